import type { CommitEntityFragment } from '../../generated/operations.ts';
import { omit } from '../../rest/shape.ts';

/** GitLab's commit entity, in its key order; `trailers` are not parsed yet. */
export const commitEntity = (commit: CommitEntityFragment) => ({ ...omit(commit, ['web_url']), trailers: {}, extended_trailers: {}, web_url: commit.web_url });
