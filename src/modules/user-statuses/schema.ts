import type { UserStatus } from '../../generated/prisma/client.ts';
import { builder } from '../../graphql/builder.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { renderMarkdown } from '../releases/markdown.ts';
import { UserInterface } from '../users/index.ts';
import { CLEAR_STATUS_AFTER, setUserStatus, statusOf, userStatus } from './service.ts';

const AvailabilityEnum = builder.enumType('AvailabilityEnum', {
  description: 'User availability status',
  values: { NOT_SET: { value: 'not_set', description: 'Not Set' }, BUSY: { value: 'busy', description: 'Busy' } } as const,
});

/** GitLab's `UserStatus` (storage: `user_statuses`). */
const UserStatusRef = builder.objectRef<UserStatus>('UserStatus').implement({
  fields: (t) => ({
    availability: t.field({ type: AvailabilityEnum, nullable: false, description: 'User availability status.', resolve: (s) => s.availability }),
    emoji: t.string({ nullable: true, description: 'String representation of emoji.', resolve: (s) => s.emoji }),
    message: t.string({ nullable: true, description: 'User status message.', resolve: (s) => s.message }),
    messageHtml: t.string({
      nullable: true,
      description: 'HTML of the user status message',
      resolve: (s) => (s.message ? renderMarkdown(s.message).trim() : null),
    }),
    clearStatusAt: t.field({ type: 'Time', nullable: true, description: 'Timestamp for when the status is cleared.', resolve: (s) => s.clearStatusAt }),
  }),
});

builder.interfaceField(UserInterface, 'status', (t) =>
  t.field({ type: UserStatusRef, nullable: true, description: 'User status.', resolve: (u, _a, ctx) => statusOf(ctx, u) }),
);

const ClearStatusAfterEnum = builder.enumType('UserStatusClearAfter', {
  description: "forgegate's: GitLab's `clear_status_after` choices.",
  values: Object.fromEntries(Object.keys(CLEAR_STATUS_AFTER).map((k) => [`AFTER_${k.toUpperCase()}`, { value: k as keyof typeof CLEAR_STATUS_AFTER }])),
});

builder.queryField('userStatus', (t) =>
  t.field({
    type: UserStatusRef,
    nullable: true,
    description: "forgegate's: a user's status (the viewer's without arguments), as REST's `GET /users/:id/status`; null when none is set.",
    args: { id: t.arg({ type: 'UserID' }), username: t.arg.string() },
    resolve: (_r, args, ctx) => userStatus(ctx, args),
  }),
);

const UserStatusSetInput = mutationInput('UserStatusSetInput', (t) => ({
  emoji: t.string({ description: 'Name of the emoji; speech_balloon when a message comes without one.' }),
  message: t.string({ description: 'Status message (100 characters at most).' }),
  availability: t.field({ type: AvailabilityEnum, description: 'Availability.' }),
  clearStatusAfter: t.field({ type: ClearStatusAfterEnum, description: 'When the status clears itself.' }),
}));

builder.mutationField('userStatusSet', (t) =>
  t.field({
    type: payloadType('UserStatusSetPayload', 'status', UserStatusRef),
    description: "forgegate's: sets the viewer's status (nothing given clears it), as REST's `PUT /user/status`.",
    args: { input: t.arg({ type: UserStatusSetInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('status', () => setUserStatus(ctx, input), input),
  }),
);
