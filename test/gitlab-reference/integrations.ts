// Group integrations (Slack, Mattermost, Jira-like trackers…): GitLab serves them through REST only
// (`/groups/:id/integrations`); our REST routes run these types' fields and mutations.
import type { ReferenceType } from './types.ts';

const REST_ONLY = "GitLab's group integrations are REST-only (`/groups/:id/integrations/:slug`); our REST routes run this";

/** One settings input per integration kind: the REST parameters of `PUT /groups/:id/integrations/<slug>`. */
const KINDS = [
  'Asana',
  'Assembla',
  'Bamboo',
  'Bugzilla',
  'Buildkite',
  'Campfire',
  'Clickup',
  'Confluence',
  'CustomIssueTracker',
  'Datadog',
  'Discord',
  'DroneCi',
  'EmailsOnPush',
  'Ewm',
  'ExternalWiki',
  'HangoutsChat',
  'Mattermost',
  'MattermostSlashCommands',
  'MicrosoftTeams',
  'MockCi',
  'Packagist',
  'Phorge',
  'PipelinesEmail',
  'Pivotaltracker',
  'Redmine',
  'Slack',
  'SlackSlashCommands',
  'Telegram',
  'Youtrack',
];

export const types: ReferenceType[] = [
  ...['Integration', 'IntegrationTestResult', 'IntegrationSettingsInput'].map((name) => ({ name, notGitLab: REST_ONLY })),
  ...['Disable', 'SetUp', 'Test', 'Update'].flatMap((verb) => [
    { name: `Integration${verb}Input`, notGitLab: REST_ONLY },
    { name: `Integration${verb}Payload`, notGitLab: REST_ONLY },
  ]),
  ...KINDS.map((kind) => ({ name: `${kind}IntegrationSettingsInput`, notGitLab: REST_ONLY })),
  { name: 'Group', kept: { integration: REST_ONLY, integrations: REST_ONLY } },
  {
    name: 'Mutation',
    kept: { integrationDisable: REST_ONLY, integrationSetUp: REST_ONLY, integrationTest: REST_ONLY, integrationUpdate: REST_ONLY },
  },
];
