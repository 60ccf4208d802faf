import { builder, gid } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { MemberRef } from '../members/index.ts';
import { parentOf } from '../parents/parent.ts';
import { parentFields, parentInputFields } from '../parents/parent-fields.ts';
import { UserRef } from '../users/index.ts';
import { approveAccessRequest, denyAccessRequest, listAccessRequests, requestAccess } from './service.ts';

export const AccessRequestRef = builder.prismaObject('AccessRequest', {
  description: "A user's pending request to join a project or group.",
  fields: (t) => ({
    id: t.id({ resolve: (r) => gid('AccessRequest', r.id) }),
    user: t.field({ type: UserRef, resolve: async (r, _a, ctx) => (await ctx.loaders.user.load(r.userId))! }),
    requestedAt: t.expose('requestedAt', { type: 'Time' }),
    createdAt: t.expose('requestedAt', { type: 'Time', description: 'Same as requestedAt.' }),
  }),
});

parentFields((t) => ({
  accessRequests: t.connection({
    type: AccessRequestRef,
    description: 'Pending access requests, oldest first. Project Maintainers and group Owners only.',
    resolve: async (row, args, ctx) => pagedConnection(args, await listAccessRequests(ctx, parentOf(row))),
  }),
}));

const CreateInput = mutationInput('AccessRequestCreateInput', parentInputFields);

const ApproveInput = mutationInput('AccessRequestApproveInput', (t) => ({
  ...parentInputFields(t),
  userId: t.int({ required: true }),
  accessLevel: t.int({ description: "Access level to grant (default 30, Developer); never above the approver's own." }),
}));

const DenyInput = mutationInput('AccessRequestDenyInput', (t) => ({ ...parentInputFields(t), userId: t.int({ required: true }) }));

builder.mutationFields((t) => ({
  accessRequestCreate: t.field({
    type: payloadType('AccessRequestCreatePayload', 'accessRequest', AccessRequestRef),
    description: 'Asks, as the current user, to join a project or group.',
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('accessRequest', () => requestAccess(ctx, input), input),
  }),
  accessRequestApprove: t.field({
    type: payloadType('AccessRequestApprovePayload', 'member', MemberRef),
    description: 'Turns a pending request into a membership.',
    args: { input: t.arg({ type: ApproveInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('member', () => approveAccessRequest(ctx, input, input.userId, input.accessLevel ?? undefined), input),
  }),
  accessRequestDeny: t.field({
    type: payloadType('AccessRequestDenyPayload', 'accessRequest', AccessRequestRef),
    description: 'Denies a pending request, or withdraws your own.',
    args: { input: t.arg({ type: DenyInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('accessRequest', () => denyAccessRequest(ctx, input, input.userId), input),
  }),
}));
