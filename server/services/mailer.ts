import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Db } from '../../db/knex';
import { claimEmail, enqueueEmail, listUnsentEmails, markEmailFailed, markEmailSent } from '../../db/repositories/outbox';

// Longer than any SMTP exchange takes; a claim left by a dead process is retried after it.
const CLAIM_MS = 5 * 60 * 1000;

export interface Mail {
  recipient: string;
  subject: string;
  body: string;
}

/**
 * E-mail goes to the outbox table first (so it is never lost offline) and is delivered
 * over SMTP when DOORLIST_SMTP_URL is set; without SMTP it simply waits in the outbox.
 */
export class Mailer {
  private transport?: Transporter;
  private delivering: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly smtpUrl: string | undefined,
    private readonly logger?: Logger,
  ) {}

  /** Queue a message; delivery happens in the background and never fails the caller. */
  async send(mail: Mail): Promise<void> {
    await enqueueEmail(this.db, mail);
    this.deliverPending();
  }

  deliverPending(): Promise<void> {
    if (!this.smtpUrl) return this.delivering;
    this.delivering = this.delivering.then(() => this.deliver()).catch((err) => this.logger?.warn({ err }, 'outbox delivery failed'));
    return this.delivering;
  }

  private async deliver(): Promise<void> {
    // nodemailer is loaded on the first delivery, not in every start.
    this.transport ??= (await import('nodemailer')).createTransport(this.smtpUrl);
    for (const mail of await listUnsentEmails(this.db)) {
      // Other server processes on the database deliver the same outbox: send only what this one claimed.
      if (!(await claimEmail(this.db, mail.id, CLAIM_MS))) continue;
      try {
        await this.transport.sendMail({ from: 'Doorlist <doorlist@localhost>', to: mail.recipient, subject: mail.subject, text: mail.body });
        await markEmailSent(this.db, mail.id);
      } catch (err) {
        await markEmailFailed(this.db, mail.id, (err as Error).message);
      }
    }
  }
}
