import type { Release, ReleaseEvidence } from '../../generated/prisma/client.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { defineAbility, hiddenUnless, refusedUnless } from '../../graphql/abilities.ts';
import { builder, gid } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { listConnection, pagedConnection } from '../../graphql/connections.ts';
import { preloadAll, preloadedPage, type Preload } from '../../graphql/preload.ts';
import { asPayload, mutationInput, payloadType, type InputFields } from '../../graphql/payloads.ts';
import { ARCHIVE_FORMATS } from '../../git/archive.ts';
import { CommitRef } from '../commits/index.ts';
import { GroupRef } from '../groups/index.ts';
import { MilestoneRef } from '../milestones/index.ts';
import { resolveProject } from '../parents/parent.ts';
import { projectInputFields } from '../parents/parent-fields.ts';
import { ProjectPermissionsRef, ProjectRef } from '../projects/index.ts';
import { projectFullPath } from '../projects/service.ts';
import { TagRef } from '../tags/index.ts';
import { UserRef } from '../users/index.ts';
import { renderMarkdown } from './markdown.ts';
import type { LinkRow, ProjectFacts } from './loaders.ts';
import {
  assetDownloadUrl,
  collectEvidence,
  createRelease,
  deleteRelease,
  findRelease,
  latestReleasePath,
  listGroupReleases,
  listReleases,
  RELEASE_SORTS,
  RELEASE_WRITE_LEVEL,
  updateRelease,
  type ReleaseCreateInput as CreateInput,
  type ReleaseUpdateInput as UpdateInput,
} from './service.ts';

export const ReleaseSortEnum = builder.enumType('ReleaseSort', { values: RELEASE_SORTS });
// GitLab's group release list sorts by release date only.
const GroupReleaseSortEnum = builder.enumType('GroupReleaseSort', {
  description: 'Values for sorting releases belonging to a group.',
  values: ['RELEASED_AT_DESC', 'RELEASED_AT_ASC'] as const,
});
export const ReleaseAssetLinkTypeEnum = builder.enumType('ReleaseAssetLinkType', {
  values: { OTHER: { value: 'other' }, RUNBOOK: { value: 'runbook' }, PACKAGE: { value: 'package' }, IMAGE: { value: 'image' } } as const,
});

declare module '../../graphql/abilities.ts' {
  interface Abilities {
    /** GitLab's `update_release`: by the project's id. */
    updateRelease: number;
  }
}

defineAbility('updateRelease', (ctx, projectId) => ctx.loaders.projectAccess.use(projectId, (access) => access.level >= RELEASE_WRITE_LEVEL));

/** Release fields that answer null to those who may not read the project's code. */
const forCodeReaders = hiddenUnless('readCode', (r: Release) => r.projectId);

/**
 * `use` applied to the facts of the release's project (its row, web URL): at once once loaded, so
 * the many per-release and per-link fields below need no promise.
 */
const facts = <T>(ctx: Context, r: { projectId: number }, use: (facts: ProjectFacts) => T) => ctx.loaders.releases.facts.use(r.projectId, use);
const encodedTag = (tag: string) => encodeURIComponent(tag);

const releaseWebUrl = (f: ProjectFacts, r: Release) => `${f.webUrl}/-/releases/${encodedTag(r.tag)}`;

const projectIds = (releases: readonly Release[]) => new Set(releases.map((r) => r.projectId));

/** Preloads of release fields: their projects' facts, the viewer's access to them, their relations. */
const preloadFacts: Preload<Release> = (ctx, releases) => ctx.loaders.releases.facts.preload(projectIds(releases));
const preloadAccess: Preload<Release> = (ctx, releases) => ctx.loaders.projectAccess.preload(projectIds(releases));
const preloadCodeFacts = preloadAll(preloadAccess, preloadFacts);
const releaseIds = (releases: readonly Release[]) => releases.map((r) => r.id);
const preloadLinks: Preload<Release> = (ctx, releases) => ctx.loaders.releases.links.preload(releaseIds(releases));
/** Evidences carry their release's URL (facts) and are for code readers (access). */
const preloadEvidences = preloadAll(preloadCodeFacts, (ctx, releases) => ctx.loaders.releases.evidences.preload(releaseIds(releases)));

const IssueStatsRef = builder.objectRef<{ total: number; closed: number }>('MilestoneIssueStats').implement({
  fields: (t) => ({ total: t.exposeInt('total'), closed: t.exposeInt('closed') }),
});

// forgegate has no issues yet, so every milestone counts none.
builder.objectField(MilestoneRef, 'issueStats', (t) => t.field({ type: IssueStatsRef, resolve: () => ({ total: 0, closed: 0 }) }));

const ReleaseSourceRef = builder.objectRef<{ format: string; url: string }>('ReleaseSource').implement({
  fields: (t) => ({ format: t.exposeString('format'), url: t.exposeString('url') }),
});

export const ReleaseEvidenceRef = builder.objectRef<ReleaseEvidence & { release: Release }>('ReleaseEvidence').implement({
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (e) => gid('Releases::Evidence', e.id) }),
    databaseId: t.exposeInt('id'),
    sha: t.exposeString('sha'),
    filepath: t.string({ resolve: (e, _a, ctx) => facts(ctx, e.release, (f) => `${releaseWebUrl(f, e.release)}/evidences/${e.id}.json`) }),
    collectedAt: t.expose('createdAt', { type: 'Time' }),
    summary: t.field({ type: 'JSON', description: 'The collected JSON document.', resolve: (e) => e.summary }),
  }),
});

/**
 * GitLab's `_links` of a release (GraphQL name `links`), as properties of an object made with the
 * project's facts, not as resolvers: graphql-jit reads a field without a resolver as a property,
 * where each resolver call builds its resolve info and response path (~10 objects). A page of
 * 100 releases has 700 of these fields in the REST list.
 */
class ReleaseUrls {
  constructor(
    private readonly release: Release,
    private readonly facts: ProjectFacts,
  ) {}

  get projectId() {
    return this.release.projectId;
  }

  get selfUrl() {
    return releaseWebUrl(this.facts, this.release);
  }

  get editUrl() {
    return `${this.selfUrl}/edit`;
  }

  get openedIssuesUrl() {
    return this.listUrl('issues', 'opened');
  }

  get closedIssuesUrl() {
    return this.listUrl('issues', 'closed');
  }

  get openedMergeRequestsUrl() {
    return this.listUrl('merge_requests', 'opened');
  }

  get mergedMergeRequestsUrl() {
    return this.listUrl('merge_requests', 'merged');
  }

  get closedMergeRequestsUrl() {
    return this.listUrl('merge_requests', 'closed');
  }

  private listUrl(list: string, state: string) {
    return `${this.facts.webUrl}/-/${list}?release_tag=${encodedTag(this.release.tag)}&scope=all&state=${state}`;
  }
}

const ReleaseLinksRef = builder.objectRef<ReleaseUrls>('ReleaseLinks').implement({
  fields: (t) => ({
    selfUrl: t.exposeString('selfUrl'),
    editUrl: t.exposeString('editUrl', {
      nullable: true,
      description: 'Only for those who may edit the release.',
      ...hiddenUnless('updateRelease', (urls: ReleaseUrls) => urls.projectId),
    }),
    openedIssuesUrl: t.exposeString('openedIssuesUrl'),
    closedIssuesUrl: t.exposeString('closedIssuesUrl'),
    openedMergeRequestsUrl: t.exposeString('openedMergeRequestsUrl'),
    mergedMergeRequestsUrl: t.exposeString('mergedMergeRequestsUrl'),
    closedMergeRequestsUrl: t.exposeString('closedMergeRequestsUrl'),
  }),
});

export const ReleaseRef = builder.prismaObject('Release', {
  fields: (t) => ({
    id: t.field({ type: 'ReleaseID', nullable: false, resolve: (r) => r.id }),
    databaseId: t.exposeInt('id'),
    tagName: t.exposeString('tag'),
    name: t.string({ resolve: (r) => r.name ?? r.tag }),
    description: t.exposeString('description'),
    descriptionHtml: t.string({ resolve: (r) => renderMarkdown(r.description) }),
    createdAt: t.expose('createdAt', { type: 'Time' }),
    releasedAt: t.expose('releasedAt', { type: 'Time' }),
    upcomingRelease: t.boolean({ resolve: (r) => r.releasedAt > new Date() }),
    historicalRelease: t.boolean({ resolve: (r) => r.releasedAt < r.createdAt }),
    author: t.field({
      type: UserRef,
      nullable: true,
      preload: (ctx, releases) => ctx.loaders.user.preload(new Set(releases.flatMap((r) => (r.authorId == null ? [] : [r.authorId])))),
      resolve: (r, _a, ctx) => (r.authorId == null ? null : ctx.loaders.user.get(r.authorId)),
    }),
    commit: t.field({
      type: CommitRef,
      nullable: true,
      description: 'Null for those who may not read the code.',
      ...forCodeReaders,
      preload: preloadAll(preloadCodeFacts, (ctx, releases) => ctx.loaders.repository.preload(projectIds(releases))),
      resolve: (r, _a, ctx) =>
        r.sha
          ? facts(ctx, r, (f) =>
              ctx.loaders.repository.use(r.projectId, (repository) => {
                const commit = repository.commit(r.sha!);
                return commit && { ...commit, project: f.project };
              }),
            )
          : null,
    }),
    commitPath: t.string({
      nullable: true,
      ...forCodeReaders,
      preload: preloadCodeFacts,
      resolve: (r, _a, ctx) => (r.sha ? facts(ctx, r, (f) => `/${projectFullPath(f.project)}/-/commit/${r.sha}`) : null),
    }),
    tagPath: t.string({
      nullable: true,
      ...forCodeReaders,
      preload: preloadCodeFacts,
      resolve: (r, _a, ctx) => facts(ctx, r, (f) => `/${projectFullPath(f.project)}/-/tags/${encodedTag(r.tag)}`),
    }),
    milestones: t.connection({
      type: MilestoneRef,
      // The milestones of the page, for the fields below a milestone to preload from.
      preload: async (ctx, releases) => {
        const ids = releaseIds(releases);
        await ctx.loaders.releases.milestones.preload(ids);
        return ids.flatMap((id) => {
          const milestones = ctx.loaders.releases.milestones.get(id);
          // Settled by the preload (a list still being read elsewhere leaves its fields to read them).
          return Array.isArray(milestones) ? milestones : [];
        });
      },
      resolve: (r, args, ctx) => ctx.loaders.releases.milestones.use(r.id, (milestones) => listConnection(args, milestones)),
    }),
    evidences: t.connection({
      type: ReleaseEvidenceRef,
      nullable: true,
      description: 'Null for those who may not read the code.',
      ...forCodeReaders,
      preload: preloadEvidences,
      resolve: (r, args, ctx) =>
        ctx.loaders.releases.evidences.use(r.id, (evidences) =>
          listConnection(
            args,
            evidences.map((e) => ({ ...e, release: r })),
          ),
        ),
    }),
    evidence: t.field({
      type: ReleaseEvidenceRef,
      nullable: true,
      args: { id: t.arg.int({ required: true }) },
      ...forCodeReaders,
      preload: preloadEvidences,
      resolve: (r, { id }, ctx) =>
        ctx.loaders.releases.evidences.use(r.id, (evidences) => {
          const evidence = evidences.find((e) => e.id === id);
          return evidence ? { ...evidence, release: r } : null;
        }),
    }),
    evidenceSha: t.string({
      nullable: true,
      description: 'SHA-256 of the newest evidence.',
      ...forCodeReaders,
      preload: preloadEvidences,
      resolve: (r, _a, ctx) => ctx.loaders.releases.evidences.use(r.id, (evidences) => evidences[0]?.sha ?? null),
    }),
    // The assets are the release's: the fields below preload from the same page.
    assets: t.field({ type: ReleaseAssetsRef, preload: (_ctx, releases) => releases, resolve: (r) => r }),
    links: t.field({
      type: ReleaseLinksRef,
      // Facts for the URLs, access for `editUrl`.
      preload: preloadCodeFacts,
      resolve: (r, _a, ctx) => facts(ctx, r, (f) => new ReleaseUrls(r, f)),
    }),
    assetDownloadUrl: t.string({
      nullable: true,
      description: 'URL of the asset link with exactly this direct asset path; needs the right to read code.',
      args: { directAssetPath: t.arg.string({ required: true }) },
      ...refusedUnless('readCode', (r: Release) => r.projectId),
      resolve: (r, { directAssetPath }, ctx) => assetDownloadUrl(ctx, r, directAssetPath),
    }),
  }),
});

export const ReleaseAssetsRef = builder.objectRef<Release>('ReleaseAssets');

/** Source archives of the tag: `/<full_path>/-/archive/<tag>/<project>-<tag with / as ->.<format>`. */
function releaseSources(ctx: Context, r: Release, p: ProjectWithNamespace) {
  const base = `${ctx.deps.config.externalUrl}/${projectFullPath(p)}/-/archive/${r.tag}/${p.path}-${r.tag.replace(/\//g, '-')}`;
  return ARCHIVE_FORMATS.map((format) => ({ format, url: `${base}.${format}` }));
}
/**
 * A link with what its URLs need (its release, the project's facts), which it answers as
 * properties (see ReleaseUrls): a page of 100 releases has 500 links. Fields copied one by one, not
 * spread, which costs a row many times more (bench/RESULTS.md, "Figures behind the code"). A field added to LinkRow and not here
 * fails to compile.
 */
export class LinkParent implements LinkRow {
  readonly id: number;
  readonly releaseId: number;
  readonly name: string;
  readonly url: string;
  readonly filepath: string | null;
  readonly linkType: LinkRow['linkType'];

  constructor(
    link: LinkRow,
    readonly release: Release,
    private readonly facts: ProjectFacts,
  ) {
    this.id = link.id;
    this.releaseId = link.releaseId;
    this.name = link.name;
    this.url = link.url;
    this.filepath = link.filepath;
    this.linkType = link.linkType;
  }

  /** The downloads address when the link has a direct asset path, else its URL. */
  get directAssetUrl() {
    return this.filepath ? `${releaseWebUrl(this.facts, this.release)}/downloads${this.filepath}` : this.url;
  }

  get external() {
    return !this.url.startsWith(this.facts.webUrl);
  }
}

/** The link of a release as the fields below a link read it. */
export const linkParent = (ctx: Context, release: Release, link: LinkRow) => facts(ctx, release, (f) => new LinkParent(link, release, f));

export const ReleaseAssetLinkRef = builder.objectRef<LinkParent>('ReleaseAssetLink').implement({
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (l) => gid('Releases::Link', l.id) }),
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name'),
    url: t.exposeString('url'),
    linkType: t.expose('linkType', { type: ReleaseAssetLinkTypeEnum }),
    directAssetPath: t.exposeString('filepath', { nullable: true }),
    directAssetUrl: t.exposeString('directAssetUrl', { description: 'The downloads address when the link has a direct asset path, else its URL.' }),
    external: t.exposeBoolean('external'),
  }),
});

ReleaseAssetsRef.implement({
  fields: (t) => ({
    count: t.int({
      description: 'Links, plus the four source archives for those who may read the code.',
      preload: preloadAll(preloadAccess, preloadLinks),
      resolve: (r, _a, ctx) =>
        ctx.loaders.projectAccess.use(r.projectId, (access) =>
          ctx.loaders.releases.links.use(r.id, (links) => links.length + (access.readCode ? ARCHIVE_FORMATS.length : 0)),
        ),
    }),
    links: t.connection({
      type: ReleaseAssetLinkRef,
      args: { directAssetPath: t.arg.string() },
      preload: preloadAll(preloadFacts, preloadLinks),
      resolve: (r, args, ctx) =>
        facts(ctx, r, (f) =>
          ctx.loaders.releases.links.use(r.id, (rows) => {
            const links = rows.map((link) => new LinkParent(link, r, f));
            return listConnection(args, args.directAssetPath == null ? links : links.filter((l) => l.filepath === args.directAssetPath));
          }),
        ),
    }),
    sources: t.connection({
      type: ReleaseSourceRef,
      nullable: true,
      description: 'Null for those who may not read the code.',
      ...forCodeReaders,
      preload: preloadCodeFacts,
      resolve: (r, args, ctx) => facts(ctx, r, (f) => listConnection(args, releaseSources(ctx, r, f.project))),
    }),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  releases: t.connection({
    type: ReleaseRef,
    args: {
      sort: t.arg({ type: ReleaseSortEnum, defaultValue: 'RELEASED_AT_DESC', description: 'Sort order of returned releases.' }),
      updatedBefore: t.arg({ type: 'Time', description: 'Only releases updated before this time.' }),
      updatedAfter: t.arg({ type: 'Time', description: 'Only releases updated after this time.' }),
    },
    resolve: (p, args, ctx, info) => preloadedPage(ctx, info, pagedConnection(args, listReleases(ctx, p, args))),
  }),
  release: t.field({
    type: ReleaseRef,
    nullable: true,
    args: { tagName: t.arg.string({ required: true }) },
    resolve: (p, { tagName }, ctx) => findRelease(ctx, p, tagName),
  }),
  latestReleasePath: t.string({
    nullable: true,
    description:
      "Where GitLab's `releases/permalink/latest[/<suffix>]` leads: the API path of the release with the greatest releasedAt, " +
      'with the suffix and the query kept (except order_by and credentials); null without releases.',
    args: { suffixPath: t.arg.string(), query: t.arg({ type: 'JSON' }) },
    resolve: (p, { suffixPath, query }, ctx) => latestReleasePath(ctx, p, { suffixPath, query: query as Record<string, unknown> | null }),
  }),
}));

builder.objectField(GroupRef, 'releases', (t) =>
  t.connection({
    type: ReleaseRef,
    args: { sort: t.arg({ type: GroupReleaseSortEnum, defaultValue: 'RELEASED_AT_DESC', description: 'Sort group releases by given criteria.' }) },
    resolve: (g, args, ctx, info) => preloadedPage(ctx, info, pagedConnection(args, listGroupReleases(ctx, g, args.sort))),
  }),
);

builder.objectField(TagRef, 'release', (t) =>
  t.field({ type: ReleaseRef, nullable: true, resolve: (tag, _a, ctx) => findRelease(ctx, tag.project, tag.name) }),
);

const ReleaseAssetLinkInput = builder.inputType('ReleaseAssetLinkInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    url: t.string({ required: true }),
    directAssetPath: t.string(),
    linkType: t.field({ type: ReleaseAssetLinkTypeEnum, defaultValue: 'other' }),
  }),
});

const ReleaseAssetsInput = builder.inputType('ReleaseAssetsInput', {
  fields: (t) => ({ links: t.field({ type: [ReleaseAssetLinkInput] }) }),
});

const releaseAttributes = (t: InputFields) => ({
  name: t.string(),
  description: t.string(),
  releasedAt: t.field({ type: 'Time' }),
  milestones: t.stringList({ description: 'Milestone titles; [] removes all milestones on update.' }),
  milestoneIds: t.intList({ description: 'Milestone ids, instead of titles.' }),
});

const ReleaseCreateInput = mutationInput('ReleaseCreateInput', (t) => ({
  ...projectInputFields(t),
  tagName: t.string({ required: true }),
  tagMessage: t.string({ description: 'Message of the annotated tag created from ref.' }),
  ref: t.string({ description: 'Commit SHA, branch or tag to create the tag from when it does not exist.' }),
  ...releaseAttributes(t),
  assets: t.field({ type: ReleaseAssetsInput }),
}));

const ReleaseUpdateInput = mutationInput('ReleaseUpdateInput', (t) => ({
  ...projectInputFields(t),
  tagName: t.string({ required: true }),
  ...releaseAttributes(t),
}));

const ReleaseTagInput = (name: string) => mutationInput(name, (t) => ({ ...projectInputFields(t), tagName: t.string({ required: true }) }));

const ReleasePayload = (name: string) => payloadType(name, 'release', ReleaseRef);

builder.mutationFields((t) => ({
  releaseCreate: t.field({
    type: ReleasePayload('ReleaseCreatePayload'),
    args: { input: t.arg({ type: ReleaseCreateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const p = await resolveProject(ctx, input);
      return asPayload('release', () => createRelease(ctx, p, { ...(input as CreateInput), links: input.assets?.links }));
    },
  }),
  releaseUpdate: t.field({
    type: ReleasePayload('ReleaseUpdatePayload'),
    args: { input: t.arg({ type: ReleaseUpdateInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const p = await resolveProject(ctx, input);
      return asPayload('release', () => updateRelease(ctx, p, input.tagName, input as UpdateInput));
    },
  }),
  releaseDelete: t.field({
    type: ReleasePayload('ReleaseDeletePayload'),
    args: { input: t.arg({ type: ReleaseTagInput('ReleaseDeleteInput'), required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const p = await resolveProject(ctx, input);
      return asPayload('release', () => deleteRelease(ctx, p, input.tagName));
    },
  }),
  collectReleaseEvidence: t.field({
    type: payloadType('CollectReleaseEvidencePayload', 'evidence', ReleaseEvidenceRef),
    args: { input: t.arg({ type: ReleaseTagInput('CollectReleaseEvidenceInput'), required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const p = await resolveProject(ctx, input);
      return asPayload('evidence', async () => {
        const evidence = await collectEvidence(ctx, p, input.tagName);
        return { ...evidence, release: (await findRelease(ctx, p, input.tagName))! };
      });
    },
  }),
}));

// The release abilities of GitLab's `ProjectPermissions`, from the level the service requires.
builder.objectFields(ProjectPermissionsRef, (t) => ({
  createRelease: t.boolean({
    nullable: false,
    description: 'If `true`, the user can perform `create_release` on this resource',
    resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, RELEASE_WRITE_LEVEL),
  }),
  updateRelease: t.boolean({
    nullable: false,
    description: 'If `true`, the user can perform `update_release` on this resource',
    resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, RELEASE_WRITE_LEVEL),
  }),
  destroyRelease: t.boolean({
    nullable: false,
    description: 'If `true`, the user can perform `destroy_release` on this resource',
    resolve: (p, _a, ctx) => ctx.policy.hasProjectLevel(p, RELEASE_WRITE_LEVEL),
  }),
}));
