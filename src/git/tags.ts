import { gitEnv, runGit, type GitIdentity } from './run.ts';
import { isValidRefName } from './refs.ts';

const FULL_SHA = /^[0-9a-f]{40}$/;

export type TagInfo = {
  name: string;
  /** The tag object for annotated tags, the commit for lightweight ones. */
  objectId: string;
  /** The commit the tag finally points to. */
  commitId: string;
  /** Annotation message; null for lightweight tags. */
  message: string | null;
  createdAt: Date | null;
};

/** A name `git tag` accepts; HEAD is refused like GitLab does. */
export const isValidTagName = (name: string) => isValidRefName(name) && name !== 'HEAD';

/** Strips what would break a signature line of a tag object. */
const signaturePart = (s: string) => s.replace(/[<>\n\r]/g, '').trim() || 'unknown';

/**
 * What `refs/tags/<name>` is to point to: a tag object written with `mktag` when a message is
 * given (an annotated tag, signed by `tagger`), the commit itself otherwise (a lightweight tag).
 */
export async function tagTarget(dir: string, opts: { name: string; commitId: string; message?: string | null; tagger: GitIdentity }): Promise<string> {
  if (!isValidTagName(opts.name) || !FULL_SHA.test(opts.commitId)) throw new Error('invalid tag name or commit');
  if (opts.message == null) return opts.commitId;
  const when = Math.floor((opts.tagger.date ?? new Date()).getTime() / 1000);
  const body = [
    `object ${opts.commitId}`,
    'type commit',
    `tag ${opts.name}`,
    `tagger ${signaturePart(opts.tagger.name)} <${signaturePart(opts.tagger.email)}> ${when} +0000`,
    '',
    opts.message.endsWith('\n') ? opts.message : `${opts.message}\n`,
  ].join('\n');
  return (await runGit(dir, ['mktag'], { input: body, env: gitEnv() })).trim();
}
