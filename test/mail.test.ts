import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { Mailer } from '../src/mail/mailer.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { captureSmtp } from './helpers/smtp.ts';

describe('outgoing e-mail', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('keeps mail in the outbox without SMTP_URL, readable by administrators over REST and GraphQL', async () => {
    const sent = await t.deps.mail.send({ to: ['alice@example.com'], subject: 'Placeholders reassigned', text: '2 of 2 done' });
    expect(sent).toMatchObject({ transport: 'outbox', deliveredAt: null });
    await t.deps.mail.send({ to: ['bob@example.com'], subject: 'Other', text: 'x' });

    const rest = await t.api('get', '/admin/emails?to=alice@example.com').expect(200);
    expect(rest.headers['x-total']).toBe('1');
    expect(rest.body).toEqual([
      expect.objectContaining({
        id: sent.id,
        to: ['alice@example.com'],
        subject: 'Placeholders reassigned',
        text: '2 of 2 done',
        transport: 'outbox',
        delivered_at: null,
      }),
    ]);
    const gql = await t.graphql('{ outboxEmails(to: "alice@example.com") { totalCount nodes { id subject transport } } }');
    expect(gql.body.data.outboxEmails).toEqual({ totalCount: 1, nodes: [{ id: sent.id, subject: 'Placeholders reassigned', transport: 'outbox' }] });
    expect((await t.api('get', '/admin/emails').expect(200)).body.map((e: { to: string[] }) => e.to[0])).toEqual(['bob@example.com', 'alice@example.com']);

    const alice = await t.user('alice');
    await t.api('get', '/admin/emails', alice.token).expect(403, { message: '403 Forbidden' });
    await t.api('get', '/admin/emails', null).expect(401);
    expect((await t.graphql('{ outboxEmails { totalCount } }', {}, alice.token)).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('hands mail to the SMTP server of SMTP_URL and records the delivery', async () => {
    const smtp = await captureSmtp();
    const { received, port } = smtp;
    const config = loadConfig({ SMTP_URL: smtp.url, MAIL_FROM: 'forgegate@gitlab.test' });
    const mailer = new Mailer(t.db, config.mail);
    try {
      const row = await mailer.send({ to: ['carol@example.com'], subject: 'Hello', text: 'Body text' });
      expect(row.transport).toBe('smtp');
      expect(row.deliveredAt).toBeInstanceOf(Date);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ from: 'forgegate@gitlab.test', to: ['carol@example.com'] });
      expect(received[0].data).toContain('Subject: Hello');
      expect(received[0].data).toContain('Body text');
    } finally {
      mailer.close();
      await smtp.close();
    }
    // A server that is gone: the failure is recorded and thrown (a job sending it is retried).
    const gone = new Mailer(t.db, loadConfig({ SMTP_URL: `smtp://127.0.0.1:${port}` }).mail);
    await expect(gone.send({ to: ['dave@example.com'], subject: 'Lost', text: 'x' })).rejects.toThrow();
    const failed = await t.db.email.findFirstOrThrow({ where: { subject: 'Lost' } });
    expect(failed.deliveredAt).toBeNull();
    expect(failed.error).toBeTruthy();
    gone.close();
  });
});
