import { builder } from '../../graphql/builder.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { ProjectRef } from '../projects/index.ts';
import { startHousekeeping } from './service.ts';

const HousekeepingTaskEnum = builder.enumType('HousekeepingTask', {
  values: {
    EAGER: { value: 'eager', description: 'Pack loose objects and refs (git gc).' },
    PRUNE: { value: 'prune', description: 'Remove unreachable objects older than 30 minutes.' },
  } as const,
});

const ProjectHousekeepingStartInput = mutationInput('ProjectHousekeepingStartInput', (t) => ({
  ...projectInputFields(t),
  task: t.field({ type: HousekeepingTaskEnum, required: false, description: 'Defaults to EAGER.' }),
}));

builder.mutationField('projectHousekeepingStart', (t) =>
  t.field({
    type: payloadType('ProjectHousekeepingStartPayload', 'project', ProjectRef),
    description: "Queues maintenance of the project's repository (maintainers), as `POST /projects/:id/housekeeping`.",
    args: { input: t.arg({ type: ProjectHousekeepingStartInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('project', () => startHousekeeping(ctx, input), input),
  }),
);
