import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { FlagDefinitionError, loadFlagDefinitions } from '../src/flags/definitions.ts';
import { actorInPercentage } from '../src/flags/gates.ts';
import { featureEnabled, flagActor } from '../src/flags/index.ts';
import { UnknownFlagError } from '../src/flags/store.ts';
import { startRuntime, type Runtime } from '../src/server.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { FLAG_DIRS_WITH_FIXTURES } from './helpers/flags.ts';
import { testTempDir } from './helpers/temp.ts';

const FLAG_DIRS = FLAG_DIRS_WITH_FIXTURES;

const actors = Array.from({ length: 1000 }, (_, i) => ({ id: i + 1 }));

describe('flag definitions', () => {
  it('loads the product definitions the spec names, with their defaults', () => {
    const defs = loadFlagDefinitions();
    for (const name of [
      'generic_alert_fingerprinting',
      'packages_protected_packages_delete',
      'epic_highlight_color',
      'user_mapping_to_personal_namespace_owner',
    ]) {
      expect(defs.get(name), name).toMatchObject({ name, default_enabled: false });
    }
    expect(defs.get('packages_protected_packages_delete')).toMatchObject({ milestone: '17.11', type: 'beta', group: 'group::package registry' });
  });

  function definitionDir(files: Record<string, string>) {
    const dir = testTempDir('flags-');
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    return dir;
  }
  const valid = (name: string, type = 'beta') =>
    `name: ${name}\nintroduced_by_url: null\nrollout_issue_url: null\nmilestone: null\ntype: ${type}\ngroup: group::x\ndefault_enabled: false\n`;

  it('rejects invalid definitions at load, naming the file and the problem', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'beta/a.yml': valid('a').replace('default_enabled: false', 'default_enabled: maybe') }, /a\.yml: default_enabled/],
      [{ 'beta/a.yml': valid('a') + 'extra: 1\n' }, /a\.yml: .*extra/],
      [{ 'beta/a.yml': valid('b') }, /name must match the file name/],
      [{ 'wip/a.yml': valid('a', 'beta') }, /type beta must match its folder wip/],
      [{ 'beta/a.yml': valid('a').replace('milestone: null', 'milestone: soon') }, /milestone: must look like/],
      [{ 'beta/a.yml': valid('a').replace('introduced_by_url: null', 'introduced_by_url: ftp://x') }, /introduced_by_url/],
      [{ 'beta/a.yml': 'name: [' }, /not valid YAML/],
      [{ 'beta/a.json': '{}' }, /definitions are \.yml files/],
    ];
    for (const [files, message] of cases) {
      expect(() => loadFlagDefinitions([definitionDir(files)])).toThrow(FlagDefinitionError);
      expect(() => loadFlagDefinitions([definitionDir(files)])).toThrow(message);
    }
    const twice = definitionDir({ 'beta/a.yml': valid('a') });
    expect(() => loadFlagDefinitions([twice, twice])).toThrow('feature flag a is defined twice');
  });

  it('a broken definition stops the start', async () => {
    const dir = definitionDir({ 'beta/a.yml': valid('b') });
    await expect(startRuntime(loadConfig({ LOG_LEVEL: 'silent' }), { flagDefinitionDirs: [dir] })).rejects.toThrow(/name must match/);
  });
});

describe('percentage of actors', () => {
  it('splits a fixed set of actors stably, and a larger percentage only adds actors', () => {
    const at = (pct: number) => new Set(actors.filter((a) => actorInPercentage('fixture_rollout', a, pct)).map((a) => a.id));
    const ten = at(10);
    const thirty = at(30);
    // 1000 actors: the split is close to the percentage (crc32 spreads ids evenly)…
    expect(ten.size).toBeGreaterThan(70);
    expect(ten.size).toBeLessThan(130);
    expect(thirty.size).toBeGreaterThan(250);
    expect(thirty.size).toBeLessThan(350);
    // …the same every time, and monotone.
    expect(at(30)).toEqual(thirty);
    for (const id of ten) expect(thirty.has(id)).toBe(true);
    expect(at(0).size).toBe(0);
    expect(at(100).size).toBe(1000);
  });

  it('gives different flags different early adopters, and other kinds of actor their own buckets', () => {
    const a = actors.filter((x) => actorInPercentage('fixture_rollout', x, 50)).map((x) => x.id);
    const b = actors.filter((x) => actorInPercentage('fixture_default_on', x, 50)).map((x) => x.id);
    expect(a).not.toEqual(b);
    const projects = actors.filter((x) => actorInPercentage('fixture_rollout', flagActor('Project', x.id), 50)).map((x) => x.id);
    expect(projects).not.toEqual(a);
  });
});

describe('flag store', () => {
  let t: TestApp;
  let peer: Runtime;

  beforeAll(async () => {
    t = await createTestApp({ flagDefinitionDirs: FLAG_DIRS });
    // A second process's runtime on the same database (as a second server would be).
    peer = await startRuntime(t.config, { databaseUrl: t.databaseUrl, flagDefinitionDirs: FLAG_DIRS, jobMaintenance: false });
  });
  afterAll(async () => {
    await peer?.close();
    await t?.close();
  });

  it('throws for a flag without a definition', async () => {
    await expect(featureEnabled(t.deps, 'no_such_flag')).rejects.toThrow(UnknownFlagError);
    await expect(featureEnabled(t.deps, 'no_such_flag')).rejects.toThrow('feature flag no_such_flag has no definition');
  });

  it('answers the definition default until set, and again after removal', async () => {
    expect(await featureEnabled(t.deps, 'fixture_default_on')).toBe(true);
    expect(await featureEnabled(t.deps, 'epic_highlight_color')).toBe(false);
    await t.deps.flags.set('fixture_default_on', { enabled: false });
    expect(await featureEnabled(t.deps, 'fixture_default_on')).toBe(false);
    expect((await t.deps.flags.get('fixture_default_on')).persisted).toBe(true);
    await t.deps.flags.remove('fixture_default_on');
    expect(await featureEnabled(t.deps, 'fixture_default_on')).toBe(true);
    expect((await t.deps.flags.get('fixture_default_on')).persisted).toBe(false);
  });

  it('boolean gate: on for everyone, actor or not', async () => {
    await t.deps.flags.set('epic_highlight_color', { enabled: true });
    expect(await featureEnabled(t.deps, 'epic_highlight_color')).toBe(true);
    expect(await featureEnabled(t.deps, 'epic_highlight_color', { id: 7 })).toBe(true);
    await t.deps.flags.set('epic_highlight_color', { enabled: false });
    expect(await featureEnabled(t.deps, 'epic_highlight_color', { id: 7 })).toBe(false);
  });

  it('percentage gate: the same actors every time, none without an actor', async () => {
    await t.deps.flags.set('fixture_rollout', { percentageOfActors: 25 });
    const enabled = async () => {
      const out: number[] = [];
      for (const a of actors.slice(0, 200)) if (await featureEnabled(t.deps, 'fixture_rollout', a)) out.push(a.id);
      return out;
    };
    const first = await enabled();
    expect(first).toEqual(
      actors
        .slice(0, 200)
        .filter((a) => actorInPercentage('fixture_rollout', a, 25))
        .map((a) => a.id),
    );
    expect(first.length).toBeGreaterThan(25);
    expect(first.length).toBeLessThan(75);
    expect(await enabled()).toEqual(first);
    expect(await featureEnabled(t.deps, 'fixture_rollout')).toBe(false);
    expect(await t.deps.flags.get('fixture_rollout')).toMatchObject({
      state: 'conditional',
      gateValues: [
        { key: 'boolean', value: false },
        { key: 'percentage_of_actors', value: 25 },
      ],
    });
    // Opening the boolean gate clears the percentage (Flipper's rule).
    expect(await t.deps.flags.set('fixture_rollout', { enabled: true })).toMatchObject({ state: 'on', gateValues: [{ key: 'boolean', value: true }] });
  });

  it('reads the flags once and then from memory, until a change is announced', async () => {
    await featureEnabled(t.deps, 'fixture_rollout');
    t.queryCounter.reset();
    for (let i = 0; i < 20; i++) await featureEnabled(t.deps, 'fixture_rollout', { id: i });
    expect(t.queryCounter.count).toBe(0);
    // Positive control: a change drops the cache, the next question reads once.
    await t.deps.flags.set('fixture_rollout', { enabled: false });
    t.queryCounter.reset();
    for (let i = 0; i < 20; i++) await featureEnabled(t.deps, 'fixture_rollout', { id: i });
    expect(t.queryCounter.count).toBe(1);
  });

  it('a flag set by one process is seen by another within a second', async () => {
    // Warm the peer's cache first, so only the notification can make it see the change.
    expect(await featureEnabled(peer.deps, 'epic_highlight_color')).toBe(false);
    await t.deps.flags.set('epic_highlight_color', { enabled: true });
    const started = Date.now();
    while (!(await featureEnabled(peer.deps, 'epic_highlight_color'))) {
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 10));
    }
    await peer.deps.flags.remove('epic_highlight_color');
    const removed = Date.now();
    while (await featureEnabled(t.deps, 'epic_highlight_color')) {
      expect(Date.now() - removed).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 10));
    }
  });
});
