import type { MemberEntityFragment } from '../../generated/operations.ts';
import { omit, withoutNull } from '../../rest/shape.ts';

/**
 * GitLab's member entity: the user's attributes with the membership's beside them. `email` is
 * there for those who may read it (administrators; here the member themself too, as `User.email`
 * answers) and left out for the others, as GitLab leaves it out.
 */
export const memberEntity = (member: MemberEntityFragment) => {
  const user: Partial<NonNullable<MemberEntityFragment['user']>> = member.user ?? {};
  return omit(member, ['user', 'access_level'], { ...withoutNull(user, ['email']), access_level: member.access_level?.integerValue ?? null });
};
