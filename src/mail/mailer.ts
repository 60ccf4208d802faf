// The one way forgegate sends e-mail. Every message is recorded in the `emails` table; with
// SMTP_URL it is also handed to that server (nodemailer), and the row says whether it was taken.
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Email } from '../generated/prisma/client.ts';

export type Message = { to: string[]; subject: string; text: string };

export class Mailer {
  private readonly transport?: Transporter;

  constructor(
    private readonly db: Db,
    private readonly config: MailConfig,
  ) {
    if (config.smtpUrl) this.transport = nodemailer.createTransport(config.smtpUrl);
  }

  /**
   * Records the message and, with an SMTP server, delivers it. A refusal by the server is
   * recorded and thrown, so a background job that sends mail is retried.
   */
  async send(message: Message): Promise<Email> {
    if (!message.to.length) throw new Error('an e-mail needs at least one recipient');
    const row = await this.db.email.create({ data: { ...message, transport: this.transport ? 'smtp' : 'outbox' } });
    if (!this.transport) return row;
    try {
      await this.transport.sendMail({ from: this.config.from, ...message });
      return await this.db.email.update({ where: { id: row.id }, data: { deliveredAt: new Date(), error: null } });
    } catch (error) {
      await this.db.email.update({ where: { id: row.id }, data: { error: (error as Error).message.slice(0, 1000) } });
      throw error;
    }
  }

  close() {
    this.transport?.close();
  }
}
