/** No slot became free in time, or too many requests are already waiting for one. */
export class RepositoryBusyError extends Error {
  constructor() {
    super('too many concurrent git processes for this repository');
  }
}

type Waiter = { grant: () => void; timer: NodeJS.Timeout };
type Slots = { running: number; waiting: Waiter[] };

/**
 * Bounds the git processes this server process runs per repository: `perRepository` at once,
 * up to `queue` more waiting at most `waitMs` for a slot, the rest refused at once. The bound
 * protects this process's machine, so it is per process by design; several server processes
 * sharing a database each have their own budget. A caller that bounds work over every repository
 * together acquires one key for all of it.
 */
export class RepositoryLimiter {
  private readonly slots = new Map<number, Slots>();

  constructor(
    private readonly perRepository: number,
    private readonly queue: number,
    private readonly waitMs: number,
  ) {}

  /** Resolves with a release function once a slot is held; call it exactly once. */
  acquire(repositoryId: number): Promise<() => void> {
    const slots = this.slots.get(repositoryId) ?? { running: 0, waiting: [] };
    this.slots.set(repositoryId, slots);
    if (slots.running < this.perRepository) {
      slots.running++;
      return Promise.resolve(this.releaser(repositoryId, slots));
    }
    if (slots.waiting.length >= this.queue) return Promise.reject(new RepositoryBusyError());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        // The slot passes straight from the releasing holder to this waiter: `running` is unchanged.
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.releaser(repositoryId, slots));
        },
        timer: setTimeout(() => {
          slots.waiting.splice(slots.waiting.indexOf(waiter), 1);
          this.forgetIfIdle(repositoryId, slots);
          reject(new RepositoryBusyError());
        }, this.waitMs),
      };
      slots.waiting.push(waiter);
    });
  }

  /** Processes running now for a repository (for tests and metrics). */
  running(repositoryId: number): number {
    return this.slots.get(repositoryId)?.running ?? 0;
  }

  private releaser(repositoryId: number, slots: Slots) {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slots.waiting.shift();
      if (next) return next.grant();
      slots.running--;
      this.forgetIfIdle(repositoryId, slots);
    };
  }

  private forgetIfIdle(repositoryId: number, slots: Slots) {
    if (slots.running === 0 && slots.waiting.length === 0 && this.slots.get(repositoryId) === slots) this.slots.delete(repositoryId);
  }
}
