import { builder } from '../../graphql/builder.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { resolveProject } from '../parents/parent.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { createJobToken, type JobTokenGrant } from './service.ts';

const JobTokenRef = builder.objectRef<JobTokenGrant>('JobToken').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Shown once; only its digest is stored.' }),
    expiresAt: t.expose('expiresAt', { type: 'Time' }),
    projectId: t.exposeInt('projectId'),
    userId: t.exposeInt('userId'),
  }),
});

const JobTokenCreateInput = mutationInput('JobTokenCreateInput', (t) => ({
  ...projectInputFields(t),
  userId: t.int({ required: true, description: 'The user the job runs as.' }),
  expiresInMinutes: t.int({ description: 'Default 60, at most 1440.' }),
}));

builder.mutationFields((t) => ({
  jobTokenCreate: t.field({
    type: payloadType('JobTokenCreatePayload', 'jobToken', JobTokenRef),
    description: 'Administrators only: a CI job token bound to a project and a user.',
    args: { input: t.arg({ type: JobTokenCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const project = await resolveProject(ctx, input);
      return asPayload('jobToken', () => createJobToken(ctx, project, input.userId, input.expiresInMinutes));
    },
  }),
}));
