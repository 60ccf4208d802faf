import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { page } from '../../rest/shape.ts';

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/admin/emails',
      operation: 'OutboxEmails',
      paginated: true,
      params: { to: param.string() },
      variables: (v) => ({ to: v.to }),
      result: (data) => page(data.outboxEmails),
    }),
  ],
  { authenticate: 'always' },
);
