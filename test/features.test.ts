import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureEnabled } from '../src/flags/index.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { FLAG_DIRS_WITH_FIXTURES } from './helpers/flags.ts';

type FeatureNode = {
  name: string;
  state: string;
  gates: { key: string; value: unknown }[];
  definition: {
    name: string;
    introducedByUrl: string | null;
    rolloutIssueUrl: string | null;
    milestone: string | null;
    type: string;
    group: string | null;
    defaultEnabled: boolean;
  };
};

const definitionOf = (name: string) => ({
  name,
  introduced_by_url: null,
  rollout_issue_url: null,
  milestone: null,
  type: 'wip',
  group: 'group::product planning',
  default_enabled: false,
});

describe('features API (admin)', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<TestApp['user']>>;
  let gitbeaker: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    t = await createTestApp({ flagDefinitionDirs: FLAG_DIRS_WITH_FIXTURES });
    alice = await t.user('alice');
    gitbeaker = new Gitlab({ host: t.base, token: t.root.token });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sets, lists and deletes flags the way GitLab answers', async () => {
    await t.api('get', '/features').expect(200, []);
    const on = await t.api('post', '/features/epic_highlight_color').send({ value: 'true' }).expect(201);
    expect(on.headers['content-type']).toBe('application/json');
    expect(on.body).toEqual({
      name: 'epic_highlight_color',
      state: 'on',
      gates: [{ key: 'boolean', value: true }],
      definition: definitionOf('epic_highlight_color'),
    });
    expect(await featureEnabled(t.deps, 'epic_highlight_color')).toBe(true);

    const partial = await t.api('post', '/features/fixture_rollout').send({ value: 30, key: 'percentage_of_actors' }).expect(201);
    expect(partial.body).toMatchObject({
      state: 'conditional',
      gates: [
        { key: 'boolean', value: false },
        { key: 'percentage_of_actors', value: 30 },
      ],
    });
    // A bare number is a percentage of actors too (GitLab's default gate, percentage of time, does not exist here).
    await t.api('post', '/features/fixture_rollout').send({ value: '45' }).expect(201);
    expect((await t.deps.flags.get('fixture_rollout')).gates).toEqual({ enabled: false, percentageOfActors: 45 });

    const off = await t.api('post', '/features/epic_highlight_color').send({ value: 0 }).expect(201);
    expect(off.body).toMatchObject({ state: 'off', gates: [{ key: 'boolean', value: false }] });

    const listed = await t.api('get', '/features').expect(200);
    expect(listed.body.map((f: { name: string; state: string }) => [f.name, f.state])).toEqual([
      ['epic_highlight_color', 'off'],
      ['fixture_rollout', 'conditional'],
    ]);

    await t.api('delete', '/features/epic_highlight_color').expect(204);
    await t.api('delete', '/features/never_defined').expect(204);
    expect((await t.api('get', '/features').expect(200)).body.map((f: { name: string }) => f.name)).toEqual(['fixture_rollout']);
  });

  it('lists every definition', async () => {
    const res = await t.api('get', '/features/definitions').expect(200);
    const names = res.body.map((d: { name: string }) => d.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining([
        'epic_highlight_color',
        'generic_alert_fingerprinting',
        'packages_protected_packages_delete',
        'user_mapping_to_personal_namespace_owner',
      ]),
    );
    expect(res.body.find((d: { name: string }) => d.name === 'epic_highlight_color')).toEqual(definitionOf('epic_highlight_color'));
  });

  it('refuses values it cannot store with 400', async () => {
    await t.api('post', '/features/epic_highlight_color').send({}).expect(400, { error: 'value is missing' });
    await t.api('post', '/features/epic_highlight_color').send({ value: 'maybe' }).expect(400, { message: `Cannot set 'epic_highlight_color' to "maybe"` });
    await t.api('post', '/features/epic_highlight_color').send({ value: '150' }).expect(400, { message: 'Not a percentage' });
    await t.api('post', '/features/epic_highlight_color').send({ value: '12.5' }).expect(400, { message: 'Not a percentage' });
    await t.api('post', '/features/epic_highlight_color').send({ value: 'x', key: 'percentage_of_actors' }).expect(400, { message: 'Not a percentage' });
    await t.api('post', '/features/epic_highlight_color').send({ value: '10', key: 'percentage_of_time' }).expect(400);
    await t.api('post', '/features/epic_highlight_color').send({ value: '10', key: 'groups' }).expect(400, { error: 'key does not have a valid value' });
    await t.api('post', '/features/no_such_flag').send({ value: 'true' }).expect(400, { message: "The feature flag 'no_such_flag' has no definition" });
    expect(await t.db.featureFlag.count({ where: { name: { in: ['no_such_flag'] } } })).toBe(0);
  });

  it('is for administrators only (REST and GraphQL)', async () => {
    const readApi = await t.token(t.root.id, ['read_api']);
    for (const [method, path] of [
      ['get', '/features'],
      ['get', '/features/definitions'],
      ['post', '/features/epic_highlight_color'],
      ['delete', '/features/epic_highlight_color'],
      ['get', '/experiments'],
    ] as const) {
      await t.api(method, path, null).send({ value: 'true' }).expect(401, { message: '401 Unauthorized' });
      await t.api(method, path, alice.token).send({ value: 'true' }).expect(403, { message: '403 Forbidden' });
    }
    await t.api('get', '/features', readApi).expect(200);
    await t.api('post', '/features/epic_highlight_color', readApi).send({ value: 'true' }).expect(403);
    for (const query of [
      '{ featureFlags { name } }',
      '{ featureFlagDefinitions { name } }',
      '{ experiments { key } }',
      'mutation { featureFlagSet(input: { name: "epic_highlight_color", value: "true" }) { errors } }',
    ]) {
      const res = await t.graphql(query, {}, alice.token);
      expect(res.body.errors[0].extensions.code, query).toBe('FORBIDDEN');
    }
    expect(await featureEnabled(t.deps, 'epic_highlight_color')).toBe(false);
  });

  it('answers the same through GraphQL (twin), with clientMutationId and errors', async () => {
    const set = await t.graphql(
      'mutation($input: FeatureFlagSetInput!) { featureFlagSet(input: $input) { clientMutationId errors featureFlag { name state gates { key value } } } }',
      { input: { name: 'fixture_default_on', value: '20', key: 'PERCENTAGE_OF_ACTORS', clientMutationId: 'abc' } },
    );
    expect(set.body.data.featureFlagSet).toEqual({
      clientMutationId: 'abc',
      errors: [],
      featureFlag: {
        name: 'fixture_default_on',
        state: 'CONDITIONAL',
        gates: [
          { key: 'boolean', value: false },
          { key: 'percentage_of_actors', value: 20 },
        ],
      },
    });
    const bad = await t.graphql('mutation { featureFlagSet(input: { name: "fixture_default_on", value: "lots" }) { errors featureFlag { name } } }');
    expect(bad.body.data.featureFlagSet).toEqual({ errors: [`Cannot set 'fixture_default_on' to "lots"`], featureFlag: null });

    const rest = (await t.api('get', '/features').expect(200)).body;
    const gql = (
      await t.graphql(
        '{ featureFlags { name state gates { key value } definition { name introducedByUrl rolloutIssueUrl milestone type group defaultEnabled } } }',
      )
    ).body.data.featureFlags;
    expect(
      gql.map((f: FeatureNode) => ({
        ...f,
        state: f.state.toLowerCase(),
        definition: {
          name: f.definition.name,
          introduced_by_url: f.definition.introducedByUrl,
          rollout_issue_url: f.definition.rolloutIssueUrl,
          milestone: f.definition.milestone,
          type: f.definition.type,
          group: f.definition.group,
          default_enabled: f.definition.defaultEnabled,
        },
      })),
    ).toEqual(rest);

    const deleted = await t.graphql(
      'mutation { featureFlagDelete(input: { name: "fixture_default_on", clientMutationId: "d" }) { clientMutationId errors featureFlag { state } } }',
    );
    expect(deleted.body.data.featureFlagDelete).toEqual({ clientMutationId: 'd', errors: [], featureFlag: { state: 'ON' } });
  });

  it('lists experiments with their rollout (REST, GraphQL, gitbeaker)', async () => {
    const definition = {
      name: 'fixture_onboarding_experiment_percentage',
      introduced_by_url: 'https://gitlab.example.com/forgegate/forgegate/-/merge_requests/2',
      rollout_issue_url: 'https://gitlab.example.com/forgegate/forgegate/-/issues/3',
      milestone: '18.1',
      type: 'experiment',
      group: 'group::tests',
      default_enabled: false,
    };
    // The product's own experiment is listed beside the fixture, off until rolled out.
    const fork = {
      key: 'fork_hardlinked_objects',
      definition: {
        name: 'fork_hardlinked_objects_experiment_percentage',
        introduced_by_url: null,
        rollout_issue_url: null,
        milestone: null,
        type: 'experiment',
        group: 'group::source code',
        default_enabled: false,
      },
      current_status: { state: 'off', gates: [{ key: 'boolean', value: false }] },
    };
    await t
      .api('get', '/experiments')
      .expect(200, [{ key: 'fixture_onboarding', definition, current_status: { state: 'off', gates: [{ key: 'boolean', value: false }] } }, fork]);
    await t.api('post', '/features/fixture_onboarding_experiment_percentage').send({ value: 25 }).expect(201);
    const expected = [
      {
        key: 'fixture_onboarding',
        definition,
        current_status: {
          state: 'conditional',
          gates: [
            { key: 'boolean', value: false },
            { key: 'percentage_of_actors', value: 25 },
          ],
        },
      },
      fork,
    ];
    await t.api('get', '/experiments').expect(200, expected);
    expect(await gitbeaker.Experiments.all()).toEqual(expected);
    const gql = await t.graphql('{ experiments { key definition { name milestone defaultEnabled } currentStatus { state gates { key value } } } }');
    expect(gql.body.data.experiments).toEqual([
      {
        key: 'fixture_onboarding',
        definition: { name: definition.name, milestone: '18.1', defaultEnabled: false },
        currentStatus: { state: 'CONDITIONAL', gates: expected[0]!.current_status.gates },
      },
      {
        key: 'fork_hardlinked_objects',
        definition: { name: fork.definition.name, milestone: null, defaultEnabled: false },
        currentStatus: { state: 'OFF', gates: [{ key: 'boolean', value: false }] },
      },
    ]);
  });
});
