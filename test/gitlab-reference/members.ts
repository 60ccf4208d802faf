// GitLab's GraphQL reference for members: the relation enums, the member lists of projects and
// groups. Written from docs.gitlab.com/api/graphql/reference (MemberInterface, ProjectMember,
// GroupMember, ProjectMemberRelation, GroupMemberRelation). AccessLevel is in core.ts.
import { CONNECTION_NAME, connectionTypes, PAGING } from './core.ts';
import type { ReferenceType } from './types.ts';

const ONE_MEMBER_TYPE =
  "GitLab's MemberInterface with its ProjectMember and GroupMember types, as one type (the id's class tells them apart: gid://gitlab/ProjectMember/<id>, gid://gitlab/GroupMember/<id>)";
const MEMBER_MUTATIONS = "the twin of the REST members API (POST/PUT/DELETE members); GitLab's GraphQL changes members in bulk (projectMemberBulkUpdate)";
const NO_DESCENDANTS = 'forgegate lists members of a project or group and its ancestors, not of its descendants';

export const types: ReferenceType[] = [
  { name: 'Member', notGitLab: ONE_MEMBER_TYPE },
  {
    name: 'ProjectMemberRelation',
    values: ['DESCENDANTS', 'DIRECT', 'INHERITED', 'INVITED_GROUPS', 'SHARED_INTO_ANCESTORS'],
    kept: { DESCENDANTS: NO_DESCENDANTS },
  },
  { name: 'GroupMemberRelation', values: ['DESCENDANTS', 'DIRECT', 'INHERITED', 'SHARED_FROM_GROUPS'], kept: { DESCENDANTS: NO_DESCENDANTS } },
  ...['MemberCreateInput', 'MemberCreatePayload', 'MemberUpdateInput', 'MemberUpdatePayload', 'MemberDeleteInput', 'MemberDeletePayload'].map((name) => ({
    name,
    notGitLab: MEMBER_MUTATIONS,
  })),
  ...connectionTypes('ProjectProjectMembersConnection', 'GroupGroupMembersConnection'),
];

const USER_IDS = "ours: the `user_ids[]` filter of GitLab's REST member lists";
const ONE_MEMBER = 'one member by user id, as the REST members API reads it (GET members/:user_id, members/all/:user_id)';

/** This area's fields of the types every area adds to; see users.ts `sharedParts`. */
export const sharedParts: ReferenceType[] = [
  {
    name: 'Project',
    fields: {
      projectMembers: { type: 'MemberInterfaceConnection', args: { ...PAGING, relations: '[ProjectMemberRelation!]', search: 'String' } },
    },
    kept: { projectMembers: `${CONNECTION_NAME}; its nodes are our Member (${ONE_MEMBER_TYPE})`, 'projectMembers.userIds': USER_IDS, member: ONE_MEMBER },
  },
  {
    name: 'Group',
    fields: {
      groupMembers: { type: 'GroupMemberConnection', args: { ...PAGING, relations: '[GroupMemberRelation!]', search: 'String' } },
    },
    kept: { groupMembers: `${CONNECTION_NAME}; its nodes are our Member`, 'groupMembers.userIds': USER_IDS, member: ONE_MEMBER },
  },
  { name: 'Mutation', fields: {}, kept: { memberCreate: MEMBER_MUTATIONS, memberUpdate: MEMBER_MUTATIONS, memberDelete: MEMBER_MUTATIONS } },
];
