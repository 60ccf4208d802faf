import type { MilestoneEntityFragment } from '../../generated/operations.ts';
import { omit } from '../../rest/shape.ts';

/** GitLab leaves project_id out of group milestones and group_id out of project milestones. */
export const milestoneEntity = (milestone: MilestoneEntityFragment) => ({
  ...omit(milestone, ['project_id', 'group_id'], milestone.project_id != null ? { project_id: milestone.project_id } : { group_id: milestone.group_id }),
  // GraphQL types iid as GitLab does (ID, a string); REST answers a number in the same place.
  iid: Number(milestone.iid),
});
