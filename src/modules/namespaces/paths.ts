import type { Visibility } from '../../generated/prisma/client.ts';

const PATH_PATTERN = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;
const RESERVED_TOP_LEVEL = new Set([
  '-',
  'api',
  'admin',
  'assets',
  'dashboard',
  'explore',
  'groups',
  'help',
  'projects',
  'search',
  'users',
  'oauth',
  'uploads',
]);

export const PATH_FORMAT_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

/** GitLab's namespace/project path rules; returns the problems (empty when valid). */
export function pathProblems(path: string, opts: { topLevel?: boolean } = {}): string[] {
  if (path.length === 0) return ["can't be blank"];
  if (path.length > 255) return ['is too long (maximum is 255 characters)'];
  if (!PATH_PATTERN.test(path) || /\.(git|atom)$/i.test(path) || path.endsWith('.') || path.startsWith('-')) {
    return [PATH_FORMAT_MESSAGE];
  }
  if (opts.topLevel && RESERVED_TOP_LEVEL.has(path.toLowerCase())) return ['is a reserved name'];
  return [];
}

/** The path GitLab derives from a name when none is given. */
export function pathFromName(name: string): string {
  return name
    .trim()
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .toLowerCase();
}

const RANK: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };

export const exceedsVisibility = (child: Visibility, parent: Visibility) => RANK[child] > RANK[parent];

export const joinPath = (parent: string | null | undefined, path: string) => (parent ? `${parent}/${path}` : path);
