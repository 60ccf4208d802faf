// The live alert view: every process LISTENs on the alert channel through its one Notifications
// connection and fans each change out to the subscriptions it serves for that project. The
// service NOTIFYs for every change (including this process's own), so one path serves all.
import type { Notifications } from '../../db/notifications.ts';
import type { AppDeps } from '../../deps.ts';

export const ALERT_CHANNEL = 'forgegate_alerts';

export type AlertChange = { projectId: number; alertId: number; iid: number; action: 'created' | 'grouped' | 'status_changed' | 'updated' };

/** An async iterator fed by `push`; `end` finishes it after what is queued; `return` unregisters. */
class Subscription implements AsyncIterableIterator<AlertChange> {
  private readonly queue: AlertChange[] = [];
  private waiting: ((result: IteratorResult<AlertChange>) => void) | null = null;
  private done = false;

  constructor(private readonly onClose: () => void) {}

  push(change: AlertChange) {
    if (this.done) return;
    if (this.waiting) {
      this.waiting({ value: change, done: false });
      this.waiting = null;
    } else this.queue.push(change);
  }

  end() {
    if (this.done) return;
    this.done = true;
    this.onClose();
    this.waiting?.({ value: undefined, done: true });
    this.waiting = null;
  }

  next(): Promise<IteratorResult<AlertChange>> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<AlertChange>> {
    this.queue.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/** One per Notifications connection (so per process, or per test app). */
class AlertFeed {
  private readonly byProject = new Map<number, Set<Subscription>>();
  private listening: Promise<unknown> | null = null;

  constructor(private readonly notifications: Notifications) {}

  /** A subscription registered before it is returned: nothing NOTIFYed after this resolves is missed. */
  async open(projectId: number): Promise<Subscription> {
    this.listening ??= this.notifications.subscribe(ALERT_CHANNEL, { onMessage: (payload) => this.dispatch(payload), onGap: () => this.gap() });
    await this.listening;
    const subscription = new Subscription(() => this.byProject.get(projectId)?.delete(subscription));
    const set = this.byProject.get(projectId) ?? new Set();
    set.add(subscription);
    this.byProject.set(projectId, set);
    return subscription;
  }

  private dispatch(payload: string) {
    let change: AlertChange;
    try {
      change = JSON.parse(payload) as AlertChange;
    } catch {
      return;
    }
    for (const subscription of this.byProject.get(change.projectId) ?? []) subscription.push(change);
  }

  /**
   * The LISTEN connection dropped: changes may have been lost. Streams end, so clients reconnect
   * and re-read the list rather than trust a view with holes in it.
   */
  private gap() {
    for (const set of this.byProject.values()) for (const subscription of [...set]) subscription.end();
    this.byProject.clear();
  }
}

const feeds = new WeakMap<Notifications, AlertFeed>();

export function alertChanges(deps: Pick<AppDeps, 'notifications'>, projectId: number): Promise<AsyncIterableIterator<AlertChange>> {
  let feed = feeds.get(deps.notifications);
  if (!feed) {
    feed = new AlertFeed(deps.notifications);
    feeds.set(deps.notifications, feed);
  }
  return feed.open(projectId);
}
