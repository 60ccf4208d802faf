import pg from 'pg';
import type { Logger } from 'pino';
import { pgConfigFromUrl } from './adapter-fixes.ts';
import type { Db } from './client.ts';

type Subscriber = { onMessage: (payload: string) => void; onGap: () => void };

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/**
 * PostgreSQL LISTEN/NOTIFY for everything one process shares with the others (flag changes,
 * new jobs): one dedicated connection per process. While that connection is down, messages
 * are lost, so each subscriber hears `onGap` and must stop trusting what it cached; `connected`
 * tells it whether it may cache at all.
 */
export class Notifications {
  private client: pg.Client | null = null;
  private readonly subscribers = new Map<string, Subscriber[]>();
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly url: string,
    private readonly log: Logger,
  ) {}

  static async connect(url: string, log: Logger): Promise<Notifications> {
    const notifications = new Notifications(url, log);
    await notifications.open();
    return notifications;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /** Channel names are ours (constants), never user input: quoted, not parameterised (LISTEN takes no parameters). */
  async subscribe(channel: string, subscriber: Subscriber): Promise<() => void> {
    const list = this.subscribers.get(channel) ?? [];
    list.push(subscriber);
    this.subscribers.set(channel, list);
    if (list.length === 1 && this.client) await this.client.query(`LISTEN "${channel}"`);
    // The channel stays listened to: LISTEN is cheap and the next subscriber needs no round trip.
    return () => {
      const at = list.indexOf(subscriber);
      if (at >= 0) list.splice(at, 1);
    };
  }

  private async open(): Promise<void> {
    const client = new pg.Client({ ...pgConfigFromUrl(this.url), application_name: 'forgegate-listen' });
    client.on('notification', (message) => {
      for (const s of this.subscribers.get(message.channel) ?? []) s.onMessage(message.payload ?? '');
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    await client.connect();
    for (const channel of this.subscribers.keys()) await client.query(`LISTEN "${channel}"`);
    this.client = client;
    this.retryMs = RECONNECT_MIN_MS;
  }

  private lost(client: pg.Client, error?: Error) {
    if (this.client !== client) return;
    this.client = null;
    if (this.closed) return;
    this.log.warn({ err: error }, 'notification connection lost; reconnecting');
    for (const list of this.subscribers.values()) for (const s of list) s.onGap();
    client.end().catch(() => {});
    this.scheduleReconnect();
  }

  private scheduleReconnect() {
    this.retryTimer = setTimeout(async () => {
      this.retryTimer = null;
      try {
        await this.open();
        // Anything sent while we were away is lost: everyone re-reads.
        for (const list of this.subscribers.values()) for (const s of list) s.onGap();
      } catch (error) {
        this.log.warn({ err: error }, 'notification connection: reconnect failed');
        this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
        if (!this.closed) this.scheduleReconnect();
      }
    }, this.retryMs);
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => {});
  }
}

/** Sends `payload` to every process listening on `channel`; inside a transaction, at its commit. */
export async function notify(db: Pick<Db, '$executeRaw'>, channel: string, payload: string): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${channel}, ${payload})`;
}
