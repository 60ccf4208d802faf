import type { GitStore } from './store.ts';
import { runGit } from './run.ts';

export type HousekeepingTask = 'eager' | 'prune';

/**
 * Repository maintenance. Every API commit writes loose objects; `eager` packs them and the refs
 * (`git gc`), `prune` removes unreachable objects. Both keep objects younger than a grace period,
 * so a commit being written at the same moment (objects written, ref not yet moved) loses nothing.
 * git's own gc lock makes a second concurrent run a no-op.
 */
export async function housekeep(store: GitStore, projectId: number, task: HousekeepingTask): Promise<void> {
  const dir = store.pathFor(projectId);
  if (task === 'eager') await runGit(dir, ['gc', '--quiet', '--prune=2.weeks.ago']);
  else await runGit(dir, ['prune', '--expire=30.minutes.ago']);
}
