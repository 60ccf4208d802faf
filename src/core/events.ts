import type { AppDeps } from '../deps.ts';
import { ZERO_OID } from '../git/writer.ts';

/**
 * What happened in the product, announced once from the use case that did it (an API commit, a
 * git push, a release, an alert …) so that every listener (integrations, webhooks, tag-based
 * releases) hears it from one place. Areas add their events by augmenting this interface from
 * their own folder; the kernel defines only the repository events that several areas produce.
 */
export interface DomainEvents {
  /** A branch or tag moved, was created (`before` all zeros) or deleted (`after` all zeros). */
  push: {
    projectId: number;
    userId: number | null;
    ref: string;
    before: string;
    after: string;
    /** How it happened: through the API (files, branches, tags) or a git client. */
    via: 'api' | 'git';
  };
}

export type EventName = keyof DomainEvents;

/**
 * Announces an API write that created, moved or deleted one ref (a commit, a new branch, a tag)
 * as the push a git client would have made: a missing side is all zeros.
 */
export function announceRefChange(
  deps: Pick<AppDeps, 'events'>,
  change: { projectId: number; userId: number | null; ref: string; before?: string | null; after?: string | null },
): Promise<void> {
  const { before, after, ...rest } = change;
  return deps.events.publish('push', { ...rest, before: before ?? ZERO_OID, after: after ?? ZERO_OID, via: 'api' });
}

export type Subscriber<E extends EventName = EventName> = (event: DomainEvents[E], deps: AppDeps) => Promise<void> | void;

/** Listeners per event, as the module manifest collects them. */
export type Subscribers = { [E in EventName]?: Subscriber<E>[] };

/**
 * In-process delivery to the subscribers of this process. A listener that must survive a crash or
 * reach other processes enqueues a job from here; a failing listener is logged and never fails the
 * write that announced the event (the write has already committed).
 */
export class EventBus {
  private deps?: AppDeps;

  constructor(private readonly subscribers: Subscribers) {}

  /** The collaborators listeners get; set once the runtime has built them. */
  bind(deps: AppDeps) {
    this.deps = deps;
  }

  async publish<E extends EventName>(name: E, event: DomainEvents[E]): Promise<void> {
    const deps = this.deps;
    if (!deps) throw new Error('EventBus used before bind()');
    for (const subscriber of (this.subscribers[name] ?? []) as Subscriber<E>[]) {
      try {
        await subscriber(event, deps);
      } catch (error) {
        deps.log.error({ err: error, event: name }, 'event subscriber failed');
      }
    }
  }
}
