/**
 * GitLab's project settings that are plain values: what `PUT /projects/:id` takes and every
 * project answer shows (features' access levels, `lfs_enabled`, `request_access_enabled`, merge
 * settings, …), by their REST name, with GitLab's default for a new project. A project stores only
 * the ones ever set (`projects.settings`); this table is the one list the REST parameters, the
 * GraphQL fields and the validation are made from.
 */
export type Setting =
  | { kind: 'boolean'; default: boolean }
  | { kind: 'choice'; values: readonly string[]; default: string }
  | { kind: 'string'; default: null }
  | { kind: 'int'; min: number; max: number; default: number };

/** ProjectFeature's access levels; `pages` also has `public`. */
export const ACCESS_LEVELS = ['disabled', 'private', 'enabled'] as const;

const access = (value: (typeof ACCESS_LEVELS)[number] = 'enabled', values: readonly string[] = ACCESS_LEVELS): Setting => ({
  kind: 'choice',
  values,
  default: value,
});
const flag = (value: boolean): Setting => ({ kind: 'boolean', default: value });
const choice = (values: readonly string[], value: string): Setting => ({ kind: 'choice', values, default: value });
const text: Setting = { kind: 'string', default: null };

export const SETTINGS = {
  issues_access_level: access(),
  repository_access_level: access(),
  merge_requests_access_level: access(),
  forking_access_level: access(),
  wiki_access_level: access(),
  builds_access_level: access(),
  snippets_access_level: access(),
  pages_access_level: access('private', [...ACCESS_LEVELS, 'public']),
  analytics_access_level: access(),
  container_registry_access_level: access(),
  security_and_compliance_access_level: access('private'),
  releases_access_level: access(),
  environments_access_level: access(),
  feature_flags_access_level: access(),
  infrastructure_access_level: access(),
  monitor_access_level: access(),
  model_experiments_access_level: access(),
  model_registry_access_level: access(),
  requirements_access_level: access(),
  lfs_enabled: flag(true),
  request_access_enabled: flag(true),
  shared_runners_enabled: flag(true),
  group_runners_enabled: flag(true),
  public_jobs: flag(true),
  packages_enabled: flag(true),
  service_desk_enabled: flag(false),
  emails_enabled: flag(true),
  resolve_outdated_diff_discussions: flag(false),
  only_allow_merge_if_pipeline_succeeds: flag(false),
  allow_merge_on_skipped_pipeline: flag(false),
  only_allow_merge_if_all_discussions_are_resolved: flag(false),
  remove_source_branch_after_merge: flag(true),
  printing_merge_request_link_enabled: flag(true),
  autoclose_referenced_issues: flag(true),
  auto_devops_enabled: flag(false),
  ci_forward_deployment_enabled: flag(true),
  ci_job_token_scope_enabled: flag(false),
  ci_separated_caches: flag(true),
  ci_allow_fork_pipelines_to_run_in_parent_project: flag(true),
  ci_forward_deployment_rollback_allowed: flag(true),
  keep_latest_artifact: flag(true),
  restrict_user_defined_variables: flag(false),
  mr_default_target_self: flag(false),
  enforce_auth_checks_on_uploads: flag(true),
  warn_about_potentially_unwanted_characters: flag(true),
  merge_method: choice(['merge', 'rebase_merge', 'ff'], 'merge'),
  squash_option: choice(['never', 'always', 'default_on', 'default_off'], 'default_off'),
  build_git_strategy: choice(['fetch', 'clone'], 'fetch'),
  auto_cancel_pending_pipelines: choice(['enabled', 'disabled'], 'enabled'),
  auto_devops_deploy_strategy: choice(['continuous', 'manual', 'timed_incremental'], 'continuous'),
  ci_restrict_pipeline_cancellation_role: choice(['developer', 'maintainer', 'no_one'], 'developer'),
  ci_pipeline_variables_minimum_override_role: choice(['no_one_allowed', 'developer', 'maintainer', 'owner'], 'developer'),
  // GitLab's bounds: 10 minutes to a month; a clone depth up to 1,000 commits.
  build_timeout: { kind: 'int', min: 600, max: 2_592_000, default: 3600 },
  ci_default_git_depth: { kind: 'int', min: 0, max: 1000, default: 20 },
  ci_config_path: text,
  merge_commit_template: text,
  squash_commit_template: text,
  suggestion_commit_message: text,
  issue_branch_template: text,
  merge_requests_template: text,
  issues_template: text,
  external_authorization_classification_label: text,
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue = boolean | string | number | null;
export type StoredSettings = Partial<Record<SettingName, SettingValue>>;

/**
 * GitLab's older boolean names of feature access levels (`snippets_enabled`: python-gitlab's
 * `save()` sends it alone): true is `enabled`, false `disabled`; answered as level ≠ disabled.
 */
export const FEATURE_FLAGS = {
  issues_enabled: 'issues_access_level',
  merge_requests_enabled: 'merge_requests_access_level',
  wiki_enabled: 'wiki_access_level',
  jobs_enabled: 'builds_access_level',
  snippets_enabled: 'snippets_access_level',
  container_registry_enabled: 'container_registry_access_level',
} as const satisfies Record<string, SettingName>;

export type FeatureFlagName = keyof typeof FEATURE_FLAGS;

/** `emails_disabled`, the former name of `emails_enabled` with the opposite sense. */
export const EMAILS_DISABLED = 'emails_disabled';

/** Every name a project answer shows and an update takes. */
export type SettingsView = Record<SettingName | FeatureFlagName | typeof EMAILS_DISABLED, SettingValue>;

export const settingNames = Object.keys(SETTINGS) as SettingName[];
export const featureFlagNames = Object.keys(FEATURE_FLAGS) as FeatureFlagName[];

/** `issues_access_level` → `issuesAccessLevel`: the GraphQL name of a setting. */
export const camelName = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A project's settings with GitLab's defaults for those never set, and the names derived from them. */
export function settingsView(stored: unknown): SettingsView {
  const own = (stored ?? {}) as StoredSettings;
  const view = {} as SettingsView;
  for (const name of settingNames) view[name] = own[name] ?? SETTINGS[name].default;
  for (const name of featureFlagNames) view[name] = view[FEATURE_FLAGS[name]] !== 'disabled';
  view[EMAILS_DISABLED] = !view.emails_enabled;
  return view;
}

/** Whether an update sets any setting (for the "at least one parameter" rule). */
export const setsAnySetting = (changes: Partial<SettingsView> | null | undefined) =>
  !!changes && Object.values(changes).some((value) => value !== undefined && value !== null);

/** The kind of every name an update takes, for the REST parameters and GraphQL fields made from the table. */
export function settingKinds(): [name: keyof SettingsView, setting: Setting][] {
  return [
    ...settingNames.map((name) => [name, SETTINGS[name]] as [SettingName, Setting]),
    ...featureFlagNames.map((name) => [name, flag(true)] as [FeatureFlagName, Setting]),
    [EMAILS_DISABLED, flag(false)],
  ];
}
