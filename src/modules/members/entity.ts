import type { MemberEntityFragment } from '../../generated/operations.ts';
import { omit } from '../../rest/shape.ts';

/** GitLab's member entity: the user's attributes with the membership's beside them. */
export const memberEntity = (member: MemberEntityFragment) =>
  omit(member, ['user', 'access_level'], { ...member.user, access_level: member.access_level?.integerValue ?? null });
