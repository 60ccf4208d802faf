import type { GroupEntityFragment } from '../../generated/operations.ts';

/**
 * Settings GitLab's group entity carries that forgegate has no choice for, as their values here:
 * no two-factor enforcement, no sharing lock, LFS on, the default branch fully protected (only
 * Maintainers push to it, `Policy.canPushToBranch`), projects created by Developers and subgroups
 * by Owners (`createGroup`).
 */
export const FIXED_SETTINGS = {
  share_with_group_lock: false,
  require_two_factor_authentication: false,
  two_factor_grace_period: 48,
  project_creation_level: 'developer',
  auto_devops_enabled: null,
  subgroup_creation_level: 'owner',
  emails_enabled: true,
  mentions_disabled: null,
  lfs_enabled: true,
  default_branch_protection: 2,
} as const;

/** GitLab's group entity (`Entities::Group`). */
export const groupEntity = <G extends GroupEntityFragment>(group: G) => ({ ...group, ...FIXED_SETTINGS });
