import { builder, scopes } from '../../graphql/builder.ts';
import { pagedConnection } from '../../graphql/connections.ts';
import { listEmails } from './service.ts';

const EmailRef = builder.prismaObject('Email', {
  description: 'An e-mail the instance sent, or kept in its outbox when no SMTP server is configured.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    to: t.exposeStringList('to'),
    subject: t.exposeString('subject'),
    text: t.exposeString('text'),
    transport: t.exposeString('transport', { description: '`outbox` (kept here only) or `smtp`.' }),
    deliveredAt: t.expose('deliveredAt', { type: 'Time', nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
  }),
});

builder.queryField('outboxEmails', (t) =>
  t.connection({
    type: EmailRef,
    extensions: scopes('api', 'read_api'),
    description: 'E-mails the instance sent or kept, newest first; administrators only.',
    args: { to: t.arg.string({ description: 'Only messages to this address.' }) },
    resolve: (_r, args, ctx) => pagedConnection(args, listEmails(ctx, args)),
  }),
);
