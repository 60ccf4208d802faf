import type { PersonalAccessToken, User } from '../generated/prisma/client.ts';
import type { Notifications } from '../db/notifications.ts';

/** Sent by the triggers of migration 20261123132000 when a token or a user changes (not `last_used_at`). */
export const AUTH_CHANGED_CHANNEL = 'forgegate_auth_changed';

export type TokenRow = PersonalAccessToken & { user: User };

const DEFAULT_TTL_MS = 5_000;

/**
 * Personal access tokens with their user, by digest, for a few seconds: most requests then do no
 * SQL to know who asks. Every change to a token or a user (revocation, rotation, blocking, scopes,
 * admin flag) is announced by a database trigger over LISTEN/NOTIFY to every process, which drops
 * its whole cache at once; while the notification connection is down nothing is cached.
 */
export class ViewerCache {
  private readonly entries = new Map<string, { row: TokenRow; until: number }>();
  /** Bumped by every invalidation: a lookup that started before one does not store its row. */
  private generation = 0;

  constructor(
    private readonly notifications: Pick<Notifications, 'connected' | 'subscribe'> | null,
    private readonly ttlMs = DEFAULT_TTL_MS,
  ) {}

  async listen(): Promise<void> {
    await this.notifications?.subscribe(AUTH_CHANGED_CHANNEL, { onMessage: () => this.invalidate(), onGap: () => this.invalidate() });
  }

  invalidate() {
    this.generation += 1;
    this.entries.clear();
  }

  forget(digest: string) {
    this.entries.delete(digest);
  }

  get(digest: string): TokenRow | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    if (entry.until > Date.now() && this.notifications?.connected) return entry.row;
    this.entries.delete(digest);
    return undefined;
  }

  /** Looks a token up through `load` unless cached; caches found rows only. */
  async lookup(digest: string, load: () => Promise<TokenRow | null>): Promise<TokenRow | null> {
    const cached = this.get(digest);
    if (cached) return cached;
    const generation = this.generation;
    const row = await load();
    if (row && generation === this.generation && this.notifications?.connected && this.ttlMs > 0) {
      this.entries.set(digest, { row, until: Date.now() + this.ttlMs });
    }
    return row;
  }
}
