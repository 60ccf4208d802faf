import type { ReleaseLinkType } from '../../generated/prisma/client.ts';

// The rules of a release's asset links, owned by releases: a release is created with its links,
// and the release-links routes and relation imports check each link with the same rules.

export const LINK_TYPES = ['other', 'runbook', 'image', 'package'] as const satisfies readonly ReleaseLinkType[];

export type LinkInput = { name?: string | null; url?: string | null; directAssetPath?: string | null; linkType?: ReleaseLinkType | null };
export type LinkRow = { id?: number; name: string; url: string; filepath: string | null };

const URL_SCHEMES = ['http:', 'https:', 'ftp:'];

/** GitLab stores the asset path with a leading slash; the downloads path matches it exactly. */
export const normalizeFilepath = (path: string | null | undefined) => (path ? (path.startsWith('/') ? path : `/${path}`) : path === '' ? null : path);

const FILEPATH_FORMAT = /^\/(?:[-.\w]+\/?)*[\da-zA-Z]+$/;

function urlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Url must be a valid URL';
  }
  return URL_SCHEMES.includes(parsed.protocol) ? null : 'Url is blocked: Only allowed schemes are http, https, ftp';
}

/**
 * Rails-style full messages for one link among its siblings (the other links of the release),
 * in GitLab's declaration order: url, then name, then filepath.
 */
export function linkProblems(link: LinkRow, siblings: LinkRow[]): string[] {
  const problems: string[] = [];
  const others = siblings.filter((s) => s.id === undefined || s.id !== link.id);
  if (!link.url.trim()) problems.push("Url can't be blank");
  else {
    const bad = urlProblem(link.url);
    if (bad) problems.push(bad);
  }
  if (others.some((s) => s.url === link.url)) problems.push('Url has already been taken');
  if (!link.name.trim()) problems.push("Name can't be blank");
  if (others.some((s) => s.name === link.name)) problems.push('Name has already been taken');
  if (link.filepath != null) {
    if (!FILEPATH_FORMAT.test(link.filepath)) problems.push('Filepath is in an invalid format');
    if (others.some((s) => s.filepath === link.filepath)) problems.push('Filepath has already been taken');
  }
  return problems;
}
