import type { Response } from 'express';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found } from '../../rest/shape.ts';
import { sourceInput } from '../../rest/sources.ts';
import type { PlaceholderCsv } from './service.ts';

/** GitLab's CSV download: `text/csv; charset=utf-8`, an attachment named after the group and the time. */
function sendCsv(res: Response, csv: PlaceholderCsv) {
  res.set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${csv.fileName}"` }).send(csv.content);
}

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: '/groups/:id/placeholder_reassignments',
    operation: 'GroupPlaceholderReassignmentsCsv',
    params: { id: param.ref() },
    variables: (v) => v.id,
    result: (data) => expected(found(data.group, 'Group').placeholderReassignmentsCsv, 'CSV'),
    respond: sendCsv,
  }),
  route({
    method: 'POST',
    path: '/groups/:id/placeholder_reassignments',
    operation: 'ImportSourceUsersReassignFromCsv',
    status: 201,
    params: { id: param.ref(), file: param.file({ required: true, description: 'The completed CSV (multipart).' }) },
    variables: (v) => ({ input: { ...sourceInput('Group', v.id), file: v.file } }),
    result: (data) => ({ message: expected(data.importSourceUsersReassignFromCsv?.message, 'message') }),
  }),
], { authenticate: 'always' });
