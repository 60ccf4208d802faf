export const AccessLevel = {
  NO_ACCESS: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

export const MEMBER_ACCESS_LEVELS = [5, 10, 20, 30, 40, 50] as const;

const NAMES: Record<number, keyof typeof AccessLevel> = {
  0: 'NO_ACCESS',
  5: 'MINIMAL_ACCESS',
  10: 'GUEST',
  20: 'REPORTER',
  30: 'DEVELOPER',
  40: 'MAINTAINER',
  50: 'OWNER',
};

export const accessLevelName = (level: number) => NAMES[level] ?? 'NO_ACCESS';

/** GitLab's `Gitlab::Access.human_access`: the role's name as its pages show it. */
const HUMAN: Record<number, string> = {
  0: 'No access',
  5: 'Minimal Access',
  10: 'Guest',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};

export const humanAccess = (level: number) => HUMAN[level] ?? null;
