// The one way forgegate sends e-mail. Every message is recorded in the `emails` table; with
// SMTP_URL it is also handed to that server (nodemailer), and the row says whether it was taken.
import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Email } from '../generated/prisma/client.ts';

export type Message = { to: string[]; subject: string; text: string };

export class Mailer {
  /** Made for the first message: loading nodemailer lengthens the start, and mail is rare (issue #12). */
  private transport?: Promise<Transporter>;

  constructor(
    private readonly db: Db,
    private readonly config: MailConfig,
  ) {}

  /** The SMTP transport, or undefined without SMTP_URL. */
  private smtp(): Promise<Transporter> | undefined {
    const url = this.config.smtpUrl;
    if (!url) return undefined;
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url));
    return this.transport;
  }

  /**
   * Records the message and, with an SMTP server, delivers it. A refusal by the server is
   * recorded and thrown, so a background job that sends mail is retried.
   */
  async send(message: Message): Promise<Email> {
    if (!message.to.length) throw new Error('an e-mail needs at least one recipient');
    const smtp = this.smtp();
    const row = await this.db.email.create({ data: { ...message, transport: smtp ? 'smtp' : 'outbox' } });
    if (!smtp) return row;
    try {
      await (await smtp).sendMail({ from: this.config.from, ...message });
      return await this.db.email.update({ where: { id: row.id }, data: { deliveredAt: new Date(), error: null } });
    } catch (error) {
      await this.db.email.update({ where: { id: row.id }, data: { error: (error as Error).message.slice(0, 1000) } });
      throw error;
    }
  }

  close() {
    this.transport?.then(
      (transport) => transport.close(),
      () => {},
    );
  }
}
