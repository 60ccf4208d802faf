/** Longest repository path accepted (git itself allows 4096 bytes on most systems). */
const MAX_PATH_BYTES = 4096;

/**
 * GitLab's file path rule (Gitlab::PathTraversal): the path is already URL-decoded once by the
 * router; `.`/`..` as the whole path, `..` segments, newlines, NUL and absolute paths are refused.
 * Returns the path to look up, or null when it is not acceptable.
 */
export function checkFilePath(path: string): string | null {
  if (path.length === 0 || Buffer.byteLength(path) > MAX_PATH_BYTES) return null;
  // Like GitLab, also look at the path decoded once more, so `%252e%252e%252f` is refused too.
  if ([path, decodedOnceMore(path)].some(isTraversal)) return null;
  return path.startsWith('/') ? null : path;
}

const isTraversal = (path: string) => /[\0\n\r]/.test(path) || path === '.' || path.split(/[/\\]/).some((segment) => segment === '..');

function decodedOnceMore(path: string) {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** A path git can store as a tree entry: no empty, `.` or `.git` segments, no trailing slash. */
export const isStorablePath = (path: string) => path.split('/').every((segment) => segment !== '' && segment !== '.' && segment.toLowerCase() !== '.git');
