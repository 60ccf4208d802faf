import type { Response } from 'express';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found } from '../../rest/shape.ts';
import { globalId, sourceInput } from '../../rest/sources.ts';
import type { ReassignmentRequestEntityFragment } from '../../generated/operations.ts';
import type { PlaceholderCsv } from './service.ts';

/** GitLab's CSV download: `text/csv; charset=utf-8`, an attachment named after the group and the time. */
function sendCsv(res: Response, csv: PlaceholderCsv) {
  res.set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${csv.fileName}"` }).send(csv.content);
}

export const routes = defineRoutes(
  [
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
  ],
  { authenticate: 'always' },
);

/** The request as the assignee's links answer it: database ids, GitLab's lower-case status. */
const requestEntity = (request: ReassignmentRequestEntityFragment) => ({
  ...request,
  // The global id (`gid://gitlab/Import::SourceUser/<id>`) as the database id the links name.
  id: Number(String(expected(request.id, 'id')).split('/').pop()),
  status: expected(request.status, 'status').toLowerCase(),
});

const requestParams = {
  id: param.int({ required: true }),
  reassignment_token: param.string({ required: true, description: 'The token of the link e-mailed to the assignee.' }),
};

const answerInput = (v: { id: number; reassignment_token: string }) => ({
  input: { id: globalId('Import::SourceUser', v.id), reassignmentToken: v.reassignment_token },
});

/** The links e-mailed to the assignee of a reassignment (GitLab's `/import/source_users` web routes). */
export const webRoutes = defineRoutes([
  route({
    method: 'GET',
    path: '/import/source_users/:id',
    operation: 'ImportSourceUserReassignmentRequest',
    params: requestParams,
    variables: (v) => ({ id: globalId('Import::SourceUser', v.id), reassignmentToken: v.reassignment_token }),
    result: (data) => requestEntity(found(data.importSourceUserReassignmentRequest, 'Import source user')),
  }),
  // GitLab's accept and decline actions, as the e-mailed links POST them.
  route({
    method: 'POST',
    path: '/import/source_users/:id/accept',
    operation: 'ImportSourceUserAcceptReassignment',
    status: 200,
    params: requestParams,
    variables: answerInput,
    result: (data) => requestEntity(expected(data.importSourceUserAcceptReassignment?.importSourceUser, 'importSourceUser')),
  }),
  route({
    method: 'POST',
    path: '/import/source_users/:id/decline',
    operation: 'ImportSourceUserRejectReassignment',
    status: 200,
    params: requestParams,
    variables: answerInput,
    result: (data) => requestEntity(expected(data.importSourceUserRejectReassignment?.importSourceUser, 'importSourceUser')),
  }),
]);
