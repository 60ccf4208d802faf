// Every integration kind a group can set up, as data. Validation (service.ts), the REST routes
// (rest.ts), the GraphQL input types (schema.ts), delivery (delivery.ts) and the README table
// (docs.ts, written by `npm run docs:integrations`) all come from this one list, so adding a kind
// is adding one entry here.

/** The event flags of GitLab's Integration record, in its order. */
export const EVENT_FLAGS = [
  'commit_events',
  'push_events',
  'issues_events',
  'alert_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'deployment_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
  'job_events',
  'comment_on_event_enabled',
] as const;
export type EventFlag = (typeof EVENT_FLAGS)[number];

/** GitLab's column defaults: every flag on except deployments. */
export const EVENT_DEFAULTS: Record<EventFlag, boolean> = Object.fromEntries(EVENT_FLAGS.map((flag) => [flag, flag !== 'deployment_events'])) as Record<
  EventFlag,
  boolean
>;

/** The nine events a chat integration can be told to notify. */
const CHAT_EVENTS = [
  'push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
] as const satisfies readonly EventFlag[];

export type ParamType = 'string' | 'boolean' | 'integer';

export type ParamDef = {
  /** The spec's neutral name (what `properties` and GraphQL use). */
  name: string;
  type: ParamType;
  required?: boolean;
  default?: string | boolean | number;
  /** The only values a string may take. */
  values?: readonly string[];
  /** Stored encrypted, never returned. */
  secret?: boolean;
  /** Must be an http or https URL. */
  url?: boolean;
  /**
   * Says where the kind sends, and with it its secrets (a URL, host, server or subdomain: GitLab's
   * `exposes_secrets`). Changing one needs every stored secret given again (service.ts).
   */
  destination?: boolean;
  /** GitLab's original names, accepted as aliases on input. */
  aliases?: readonly string[];
  /** Accepted for compatibility; `ignored` ones are not even stored. */
  deprecated?: 'ignored' | 'kept';
  description: string;
};

/** What a kind does when an event it subscribes to happens. */
export type Delivery = 'webhook-chat' | 'bot' | 'email-pipeline' | 'email-push' | 'record';

export type KindDef = {
  slug: string;
  title: string;
  /** The spec's name for the kind. */
  kind: string;
  params: readonly ParamDef[];
  delivery: Delivery;
  /** Events the kind can notify (the record's flags it acts on). */
  events: readonly EventFlag[];
  /** Only where the server runs in development mode. */
  developmentOnly?: boolean;
};

const BRANCHES = ['all', 'default', 'protected', 'default_and_protected'] as const;

const p = {
  str: (name: string, description: string, extra: Partial<ParamDef> = {}): ParamDef => ({ name, type: 'string', description, ...extra }),
  req: (name: string, description: string, extra: Partial<ParamDef> = {}): ParamDef => ({ name, type: 'string', required: true, description, ...extra }),
  bool: (name: string, description: string, extra: Partial<ParamDef> = {}): ParamDef => ({ name, type: 'boolean', description, ...extra }),
  url: (name: string, description: string, extra: Partial<ParamDef> = {}): ParamDef => ({
    name,
    type: 'string',
    required: true,
    url: true,
    destination: true,
    description,
    ...extra,
  }),
  secret: (name: string, description: string, extra: Partial<ParamDef> = {}): ParamDef => ({
    name,
    type: 'string',
    required: true,
    secret: true,
    description,
    ...extra,
  }),
};

const notifyOnlyBroken = p.bool('notify_only_broken_pipelines', 'Notify only about failed pipelines.', { default: true });
const branchesToBeNotified = p.str('branches_to_be_notified', 'Branches to notify about.', { values: BRANCHES, default: 'default' });
const notifyOnlyDefaultBranch = p.bool('notify_only_default_branch', 'Deprecated: replaced by branches_to_be_notified.', { deprecated: 'kept' });
const sslVerification = p.bool('enable_ssl_verification', "Verify the server's TLS certificate.", { default: true });

const threeUrls = [
  p.url('new_issue_url', 'URL to create an issue.'),
  p.url('issues_url', 'URL of an issue; `:id` stands for the issue id.'),
  p.url('project_url', 'URL of the project.'),
];
const twoUrls = [p.url('issues_url', 'URL of an issue; `:id` stands for the issue id.'), p.url('project_url', 'URL of the project.')];

const webhookChat = (slug: string, title: string, kind: string, extra: ParamDef[] = []): KindDef => ({
  slug,
  title,
  kind,
  delivery: 'webhook-chat',
  events: [...CHAT_EVENTS, 'alert_events'],
  params: [p.url('webhook', 'Incoming webhook URL (holds a secret).', { secret: true }), notifyOnlyBroken, branchesToBeNotified, ...extra],
});

const CHANNELS = ['push', 'issue', 'confidential_issue', 'merge_request', 'note', 'confidential_note', 'tag_push', 'pipeline', 'wiki_page'];

const issueTracker = (slug: string, title: string, kind: string, params: ParamDef[]): KindDef => ({
  slug,
  title,
  kind,
  params,
  delivery: 'record',
  events: [],
});

export const KINDS: readonly KindDef[] = [
  {
    slug: 'asana',
    title: 'Asana',
    kind: 'Task tracker',
    delivery: 'record',
    events: ['push_events'],
    params: [
      p.secret('api_key', 'User API token; comments are attributed to this user.'),
      p.str('restrict_to_branch', 'Comma-separated branches; blank means all.'),
    ],
  },
  {
    slug: 'assembla',
    title: 'Assembla',
    kind: 'Project-management service',
    delivery: 'record',
    events: ['push_events'],
    params: [p.secret('token', 'Authentication token.'), p.str('subdomain', 'Subdomain setting.', { destination: true })],
  },
  {
    slug: 'bamboo',
    title: 'Atlassian Bamboo',
    kind: 'CI build server',
    delivery: 'record',
    events: ['push_events'],
    params: [
      p.url('buildserver_url', 'Root URL of the build server.', { aliases: ['bamboo_url'] }),
      sslVerification,
      p.req('build_key', 'Build plan key.'),
      p.req('username', 'User with API access to the server.'),
      p.secret('password', 'Password of the user.'),
    ],
  },
  issueTracker('bugzilla', 'Bugzilla', 'Issue tracker (three URLs)', threeUrls),
  issueTracker('custom-issue-tracker', 'Custom issue tracker', 'Custom issue tracker', threeUrls),
  issueTracker('redmine', 'Redmine', 'Issue tracker (three URLs)', threeUrls),
  issueTracker('ewm', 'EWM', 'Issue tracker (three URLs)', threeUrls),
  issueTracker('youtrack', 'YouTrack', 'Issue tracker (two URLs)', twoUrls),
  issueTracker('clickup', 'ClickUp', 'Issue tracker (two URLs)', twoUrls),
  issueTracker('phorge', 'Phorge', 'Issue tracker (two URLs)', twoUrls),
  {
    slug: 'buildkite',
    title: 'Buildkite',
    kind: 'CI pipeline service',
    delivery: 'record',
    events: ['push_events', 'merge_requests_events', 'tag_push_events'],
    params: [
      p.secret('token', 'Pipeline token.'),
      p.url('project_url', 'Pipeline URL.'),
      p.bool('enable_ssl_verification', 'Deprecated: no effect, verification is always on.', { deprecated: 'ignored' }),
    ],
  },
  {
    slug: 'drone-ci',
    title: 'Drone',
    kind: 'CI build server',
    delivery: 'record',
    events: ['push_events', 'merge_requests_events', 'tag_push_events'],
    params: [p.secret('token', 'Token of the server.'), p.url('buildserver_url', 'Root URL of the server.', { aliases: ['drone_url'] }), sslVerification],
  },
  {
    slug: 'campfire',
    title: 'Campfire',
    kind: 'Chat (legacy)',
    delivery: 'record',
    events: ['push_events'],
    params: [p.secret('token', 'API authentication token.'), p.str('subdomain', 'Subdomain.', { destination: true }), p.str('room', 'Room id.')],
  },
  {
    slug: 'confluence',
    title: 'Confluence Workspace',
    kind: 'Wiki workspace',
    delivery: 'record',
    events: [],
    params: [p.url('wikiworkspace_url', "URL of the workspace on the vendor's cloud domain.", { aliases: ['confluence_url'] })],
  },
  {
    slug: 'external-wiki',
    title: 'External wiki',
    kind: 'External wiki',
    delivery: 'record',
    events: [],
    params: [p.url('external_wiki_url', 'URL of the external wiki.')],
  },
  {
    slug: 'datadog',
    title: 'Datadog',
    kind: 'Monitoring service',
    delivery: 'record',
    events: ['pipeline_events', 'job_events'],
    params: [
      p.secret('api_key', 'API key.'),
      p.str('site', 'Site of the monitoring service.', { aliases: ['datadog_site'], default: 'datadoghq.com', destination: true }),
      p.str('service', 'Tag for the service.', { aliases: ['datadog_service'] }),
      p.str('env', 'Environment tag.', { aliases: ['datadog_env'] }),
    ],
  },
  {
    slug: 'packagist',
    title: 'Packagist',
    kind: 'Package registry notification',
    delivery: 'record',
    events: ['push_events', 'merge_requests_events', 'tag_push_events'],
    params: [
      p.req('username', 'Username on the registry.'),
      p.secret('token', 'API token.'),
      p.str('server', 'URL of the registry; blank means the default registry.', { url: true, destination: true }),
    ],
  },
  {
    slug: 'pipelines-email',
    title: 'Pipeline status emails',
    kind: 'Pipeline status e-mails',
    delivery: 'email-pipeline',
    events: ['pipeline_events'],
    params: [p.req('recipients', 'Comma-separated e-mail addresses.'), notifyOnlyBroken, branchesToBeNotified, notifyOnlyDefaultBranch],
  },
  {
    slug: 'emails-on-push',
    title: 'Emails on push',
    kind: 'Push e-mails',
    delivery: 'email-push',
    events: ['push_events', 'tag_push_events'],
    params: [
      p.req('recipients', 'Space- or comma-separated e-mail addresses.'),
      p.bool('disable_diffs', 'Leave code diffs out of the mails.'),
      p.bool('send_from_committer_email', "Send from the committer's address."),
      { ...branchesToBeNotified, default: 'all' },
    ],
  },
  {
    slug: 'pivotaltracker',
    title: 'Pivotal Tracker',
    kind: 'Tracker with branch filter',
    delivery: 'record',
    events: ['push_events'],
    params: [p.secret('token', 'API token.'), p.str('restrict_to_branch', 'Comma-separated branches; blank means all.')],
  },
  {
    slug: 'mattermost-slash-commands',
    title: 'Mattermost slash commands',
    kind: 'Chat slash commands',
    delivery: 'record',
    events: [],
    params: [p.secret('token', 'Token of the slash command.')],
  },
  {
    slug: 'slack-slash-commands',
    title: 'Slack slash commands',
    kind: 'Chat slash commands',
    delivery: 'record',
    events: [],
    params: [p.secret('token', 'Token of the slash command.')],
  },
  {
    slug: 'mock-ci',
    title: 'MockCI',
    kind: 'Mock CI',
    delivery: 'record',
    events: [],
    developmentOnly: true,
    params: [p.url('mock_service_url', 'URL of the mock service.'), sslVerification],
  },
  {
    slug: 'telegram',
    title: 'Telegram',
    kind: 'Messaging-bot chat',
    delivery: 'bot',
    events: [...CHAT_EVENTS, 'alert_events'],
    params: [
      p.str('hostname', 'Bot API address.', { url: true, destination: true, default: 'https://api.telegram.org' }),
      p.secret('token', 'Bot token.'),
      p.req('room', 'Chat identifier or channel username.'),
      { name: 'thread', type: 'integer', description: 'Message thread id.' },
      notifyOnlyBroken,
      branchesToBeNotified,
      ...CHAT_EVENTS.map((flag) => p.bool(flag, `Notify ${flag.replace(/_events$/, '').replace(/_/g, ' ')} events.`, { required: true })),
    ],
  },
  webhookChat('slack', 'Slack notifications', 'Team chat with channels', [
    p.str('username', 'Name the messages are posted as.'),
    p.str('channel', 'Default channel.'),
    notifyOnlyDefaultBranch,
    p.str('labels_to_be_notified', 'Labels to notify about; blank means all events.'),
    p.str('labels_to_be_notified_behavior', 'How the labels match.', { values: ['match_any', 'match_all'], default: 'match_any' }),
    ...CHANNELS.map((c) => p.str(`${c}_channel`, `Channel for ${c.replace(/_/g, ' ')} events.`)),
  ]),
  webhookChat('mattermost', 'Mattermost notifications', 'Enterprise team chat'),
  webhookChat('microsoft-teams', 'Microsoft Teams notifications', 'Webhook chat'),
  webhookChat('hangouts-chat', 'Google Chat', 'Webhook chat'),
  webhookChat('discord', 'Discord Notifications', 'Webhook chat'),
];

/** Kinds GitLab keeps to projects: asking for one on a group answers `400 Integration not available`. */
export const PROJECT_ONLY_SLUGS = ['apple-app-store', 'google-play', 'jenkins', 'github', 'google-cloud-platform-artifact-registry'] as const;

const BY_SLUG = new Map(KINDS.map((kind) => [kind.slug, kind]));

export const kindOf = (slug: string): KindDef | undefined => BY_SLUG.get(slug);

/** `custom-issue-tracker` → `customIssueTracker` (GraphQL field); `bamboo` → `Bamboo` with `pascal`. */
export const camel = (name: string) => name.replace(/[-_]([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
export const pascal = (name: string) => camel(name).replace(/^./, (c) => c.toUpperCase());

/** The event flags a set-up accepts: the record's, and for kinds that declare them as their own required params, none twice. */
export const flagParams = (kind: KindDef): EventFlag[] => EVENT_FLAGS.filter((flag) => !kind.params.some((param) => param.name === flag));
