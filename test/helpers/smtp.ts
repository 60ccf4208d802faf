import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message as the capturing server received it: envelope, subject, raw data and decoded body. */
export type CapturedMail = { from: string; to: string[]; subject: string; data: string; text: string };

/** Quoted-printable undone: nodemailer wraps long lines (links) that way. */
const decodeQuotedPrintable = (body: string) =>
  Buffer.from(
    body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

/**
 * An SMTP server on 127.0.0.1 that keeps every message it is handed, for tests of what the server
 * mails. `url` is an `SMTP_URL`; `close` stops it.
 */
export async function captureSmtp() {
  const received: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (c) => (data += c));
      stream.on('end', () => {
        const [head, ...body] = data.split(/\r?\n\r?\n/);
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: /^Subject: (.*)$/m.exec(head)?.[1] ?? '',
          data,
          text: decodeQuotedPrintable(body.join('\n\n')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    received,
    port,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
