import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

describe('application settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('reads GitLab defaults and writes only the given settings (REST)', async () => {
    const read = await t.api('get', '/application/settings').expect(200);
    expect(read.headers['content-type']).toMatch(/^application\/json/);
    expect(read.body).toMatchObject({
      id: 1,
      bulk_import_enabled: false,
      allow_local_requests_from_web_hooks_and_services: false,
      dns_rebinding_protection_enabled: true,
    });
    const written = await t.api('put', '/application/settings').send({ bulk_import_enabled: 'true' }).expect(200);
    expect(written.body).toMatchObject({ bulk_import_enabled: true, allow_local_requests_from_web_hooks_and_services: false });
    expect((await t.api('get', '/application/settings').expect(200)).body.bulk_import_enabled).toBe(true);
    await t.api('put', '/application/settings').send({ bulk_import_enabled: 'maybe' }).expect(400, { error: 'bulk_import_enabled is invalid' });
  });

  it('is for administrators only, over REST and GraphQL alike', async () => {
    const alice = await t.user('alice');
    await t.api('get', '/application/settings', alice.token).expect(403, { message: '403 Forbidden' });
    await t.api('put', '/application/settings', alice.token).send({ bulk_import_enabled: false }).expect(403, { message: '403 Forbidden' });
    await t.api('get', '/application/settings', null).expect(401, { message: '401 Unauthorized' });
    const q = await t.graphql('{ applicationSettings { bulkImportEnabled } }', {}, alice.token);
    expect(q.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const m = await t.graphql('mutation { applicationSettingsUpdate(input: { bulkImportEnabled: false }) { errors } }', {}, alice.token);
    expect(m.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await t.api('get', '/application/settings').expect(200)).body.bulk_import_enabled).toBe(true);
  });

  it('answers the same through GraphQL as through REST (twin)', async () => {
    const m = await t.graphql(
      'mutation($input: ApplicationSettingsUpdateInput!) { applicationSettingsUpdate(input: $input) { errors applicationSettings { allowLocalRequestsFromWebHooksAndServices } } }',
      { input: { allowLocalRequestsFromWebHooksAndServices: true } },
    );
    expect(m.body.data.applicationSettingsUpdate).toEqual({ errors: [], applicationSettings: { allowLocalRequestsFromWebHooksAndServices: true } });
    const rest = (await t.api('get', '/application/settings').expect(200)).body;
    const gql = (
      await t.graphql('{ applicationSettings { bulkImportEnabled allowLocalRequestsFromWebHooksAndServices dnsRebindingProtectionEnabled updatedAt } }')
    ).body.data.applicationSettings;
    expect(gql).toEqual({
      bulkImportEnabled: rest.bulk_import_enabled,
      allowLocalRequestsFromWebHooksAndServices: rest.allow_local_requests_from_web_hooks_and_services,
      dnsRebindingProtectionEnabled: rest.dns_rebinding_protection_enabled,
      updatedAt: rest.updated_at,
    });
  });
});
