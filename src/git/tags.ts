import { gitEnv, runGit, type GitIdentity } from './run.ts';
import { isValidRefName } from './refs.ts';

const ZERO_OID = '0000000000000000000000000000000000000000';
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

// One process for all tags; %00 and %1e (record separator) keep multi-line messages intact.
const FORMAT = '%(refname:lstrip=2)%00%(objecttype)%00%(objectname)%00%(*objectname)%00%(contents)%00%(creatordate:iso-strict)%1e';

function parse(output: string): TagInfo[] {
  return output
    .split('\x1e')
    .map((record) => record.replace(/^\n/, ''))
    .filter(Boolean)
    .map((record) => {
      const [name, type, objectId, peeled, contents, date] = record.split('\0');
      const annotated = type === 'tag';
      return {
        name,
        objectId,
        commitId: annotated ? peeled : objectId,
        message: annotated ? contents.replace(/\n$/, '') : null,
        createdAt: date ? new Date(date) : null,
      };
    });
}

/** Every tag of a repository, newest first by creation date, in one git process. */
export async function listTags(dir: string): Promise<TagInfo[]> {
  return parse(await runGit(dir, ['for-each-ref', '--sort=-creatordate', `--format=${FORMAT}`, 'refs/tags/']));
}

export async function findTag(dir: string, name: string): Promise<TagInfo | null> {
  if (!isValidTagName(name)) return null;
  // for-each-ref matches by prefix up to a slash, so `v1` would also list `v1/x`: keep the exact name.
  const tags = parse(await runGit(dir, ['for-each-ref', `--format=${FORMAT}`, `refs/tags/${name}`]));
  return tags.find((t) => t.name === name) ?? null;
}

/** Strips what would break a signature line of a tag object. */
const signaturePart = (s: string) => s.replace(/[<>\n\r]/g, '').trim() || 'unknown';

/**
 * Creates `refs/tags/<name>` at a commit: annotated (a tag object written with `mktag`) when a
 * message is given, lightweight otherwise. The ref update expects no previous value, so an
 * existing tag is never moved. Returns false when the tag already exists.
 */
export async function createTag(
  dir: string,
  opts: { name: string; commitId: string; message?: string | null; tagger: GitIdentity },
): Promise<boolean> {
  if (!isValidTagName(opts.name) || !FULL_SHA.test(opts.commitId)) throw new Error('invalid tag name or commit');
  let target = opts.commitId;
  if (opts.message != null) {
    const when = Math.floor((opts.tagger.date ?? new Date()).getTime() / 1000);
    const body = [
      `object ${opts.commitId}`,
      'type commit',
      `tag ${opts.name}`,
      `tagger ${signaturePart(opts.tagger.name)} <${signaturePart(opts.tagger.email)}> ${when} +0000`,
      '',
      opts.message.endsWith('\n') ? opts.message : `${opts.message}\n`,
    ].join('\n');
    target = (await runGit(dir, ['mktag'], { input: body, env: gitEnv() })).trim();
  }
  try {
    await runGit(dir, ['update-ref', `refs/tags/${opts.name}`, target, ZERO_OID]);
    return true;
  } catch {
    return (await findTag(dir, opts.name)) === null ? Promise.reject(new Error(`cannot create tag ${opts.name}`)) : false;
  }
}

/** Deletes a tag if it still points where the caller saw it. */
export async function deleteTag(dir: string, tag: TagInfo): Promise<void> {
  await runGit(dir, ['update-ref', '-d', `refs/tags/${tag.name}`, tag.objectId]);
}
