import type { ProjectEntityFragment } from '../../generated/operations.ts';
import { omit } from '../../rest/shape.ts';
import type { SettingsView } from './settings.ts';

/** The API address of a project, from its web URL: `<external URL>/<full path>` becomes `<external URL>/api/v4/projects/<id>`. */
function apiUrl(project: ProjectEntityFragment) {
  const web = project.web_url ?? '';
  const base = web.slice(0, web.length - (project.path_with_namespace ?? '').length - 1);
  return `${base}/api/v4/projects/${project.id}`;
}

/** GitLab's `_links` of a project answer. */
function links(project: ProjectEntityFragment) {
  const self = apiUrl(project);
  return {
    self,
    issues: `${self}/issues`,
    merge_requests: `${self}/merge_requests`,
    repo_branches: `${self}/repository/branches`,
    labels: `${self}/labels`,
    events: `${self}/events`,
    members: `${self}/members`,
    cluster_agents: `${self}/cluster_agents`,
  };
}

/**
 * What GitLab's answer shows of features forgegate does not have (imports by URL, project sharing,
 * pull mirrors, compliance frameworks, Service Desk's address): their "none" values, so scripts
 * that read them find them.
 */
const ABSENT_FEATURES = {
  import_url: null,
  import_type: null,
  import_status: 'none',
  import_error: null,
  shared_with_groups: [] as never[],
  mirror: false,
  service_desk_address: null,
  marked_for_deletion_on: null,
  compliance_frameworks: [] as never[],
};

type Flat = Omit<ProjectEntityFragment, 'settings' | 'owner' | 'forked_from_project'> &
  SettingsView &
  typeof ABSENT_FEATURES & { _links: ReturnType<typeof links> } & Partial<Pick<ProjectEntityFragment, 'owner' | 'forked_from_project'>>;

/**
 * GitLab's project answer (ProjectWithAccess): the settings flattened beside the other keys,
 * `_links`, and `owner` / `forked_from_project` only where GitLab shows them (a personal
 * project's owner, a fork's source). Keys are added to one copy, not spread (see `omit`).
 */
export function projectEntity(project: ProjectEntityFragment): Flat {
  const entity = omit(project, ['settings', 'owner', 'forked_from_project', 'permissions']) as Record<string, unknown>;
  entity._links = links(project);
  Object.assign(entity, project.settings, ABSENT_FEATURES);
  entity.shared_with_groups = [];
  entity.compliance_frameworks = [];
  if (project.owner) entity.owner = project.owner;
  if (project.forked_from_project) entity.forked_from_project = project.forked_from_project;
  entity.permissions = project.permissions;
  return entity as Flat;
}
