import qs from 'qs';
import { ForbiddenError, NotFoundError, RecordNotFoundError } from '../../graphql/errors.ts';
import type { Params } from '../../rest/params.ts';
import { defineRoutes, redirect, type RouteDef } from '../../rest/route.ts';
import { found, withoutNull } from '../../rest/shape.ts';
import { commitEntity } from '../commits/rest.ts';
import { milestoneEntity } from '../milestones/rest.ts';
import { projectInput } from '../projects/input.ts';
import { LINK_TYPES } from '../release-links/validation.ts';

type Node = Record<string, any>;

/** GitLab's link entity: enum values in lower case. */
export const linkEntity = (link: Node) => ({ ...link, link_type: String(link.link_type).toLowerCase() });

/**
 * GraphQL's release as GitLab's entity: connections become arrays, and what the viewer may not
 * see (commit, paths, sources, evidences, edit_url) or what is empty (author, milestones) is left out.
 */
export function releaseEntity(node: Node): Node {
  const shapers: Record<string, (v: any) => unknown> = {
    author: (v) => v ?? undefined,
    commit: (v) => (v ? commitEntity(v) : undefined),
    milestones: (v) => (v.nodes.length ? v.nodes.map(milestoneEntity) : undefined),
    commit_path: (v) => v ?? undefined,
    tag_path: (v) => v ?? undefined,
    assets: (a) => ({ count: a.count, ...(a.sources && { sources: a.sources.nodes }), links: a.links.nodes.map(linkEntity) }),
    evidences: (v) => v?.nodes,
    _links: (v) => withoutNull(v, ['edit_url']),
  };
  const entity: Node = {};
  for (const [key, value] of Object.entries(node)) {
    const shaped = shapers[key] ? shapers[key](value) : value;
    if (shaped !== undefined) entity[key] = shaped;
  }
  return entity;
}

const sortOf = (p: Params) => {
  const column = p.oneOf('order_by', ['released_at', 'created_at'] as const) ?? 'released_at';
  const direction = p.oneOf('sort', ['asc', 'desc'] as const) ?? 'desc';
  return `${column === 'created_at' ? 'CREATED' : 'RELEASED_AT'}_${direction.toUpperCase()}`;
};

/** `milestones` (titles) or `milestone_ids`, never both. */
const milestoneParams = (p: Params) => {
  p.mutuallyExclusive(['milestones', 'milestone_ids'], 'Cannot specify milestones and milestone_ids at the same time');
  return { milestones: p.stringArray('milestones'), milestoneIds: p.intArray('milestone_ids') };
};

const tagName = (p: Params) => p.string('tag_name', { required: true, allowBlank: false });

/** `link_type` as the GraphQL enum value. */
export const linkTypeParam = (p: Params) => p.oneOf('link_type', LINK_TYPES)?.toUpperCase();

const linkInputs = (p: Params) =>
  p.hashes('assets', 'links')?.map((l) => ({
    name: l.string('name', { required: true }),
    url: l.string('url', { required: true }),
    directAssetPath: l.string('direct_asset_path') ?? l.string('filepath'),
    linkType: linkTypeParam(l),
  }));

/** 302 to the link whose direct asset path is exactly the requested one. */
const downloadRoute = (path: string): RouteDef => ({
  method: 'GET',
  path,
  operation: 'ReleaseAssetDownload',
  variables: (p) => ({ ...p.projectRef(), tagName: tagName(p), path: `/${p.wildcardPath('direct_asset_path') ?? ''}` }),
  result: (data) => {
    const release = found(data.project, 'Project').release;
    if (!release) throw new NotFoundError();
    if (!release.assetDownloadUrl) throw new RecordNotFoundError();
    return release.assetDownloadUrl;
  },
  respond: redirect,
});

const PERMALINK = '/projects/:id/releases/permalink/latest';

/** 302 to the same path under the latest release; the query is kept except `order_by`. */
const permalinkRoute = (path: string): RouteDef => ({
  method: 'GET',
  path,
  operation: 'ProjectLatestRelease',
  jobToken: true,
  variables: (p) => {
    p.wildcardPath('suffix_path');
    return p.ref('id');
  },
  result: (data, p) => {
    const project = found(data.project, 'Project');
    const latest = project.releases.nodes[0];
    if (!latest) throw new NotFoundError();
    const suffix = p.wildcardPath('suffix_path');
    const { id: _id, suffix_path: _s, order_by: _o, private_token: _t, access_token: _a, ...query } = p.raw;
    const search = qs.stringify(query, { arrayFormat: 'brackets' });
    return `/api/v4/projects/${project.databaseId}/releases/${encodeURIComponent(latest.tagName)}${suffix ? `/${suffix}` : ''}${search ? `?${search}` : ''}`;
  },
  respond: redirect,
});

export const routes = defineRoutes([
  permalinkRoute(PERMALINK),
  permalinkRoute(`${PERMALINK}/{*suffix_path}`),
  {
    method: 'GET',
    path: '/projects/:id/releases',
    operation: 'ProjectReleases',
    paginated: true,
    variables: (p) => ({
      ...p.ref('id'),
      sort: sortOf(p),
      updatedBefore: p.dateTime('updated_before'),
      updatedAfter: p.dateTime('updated_after'),
      html: p.bool('include_html_description') ?? false,
    }),
    result: (data) => {
      const releases = found(data.project, 'Project').releases;
      return { ...releases, nodes: releases.nodes.map(releaseEntity) };
    },
  },
  {
    method: 'GET',
    path: '/groups/:id/releases',
    operation: 'GroupReleases',
    paginated: true,
    variables: (p) => ({
      ...p.ref('id'),
      sort: `RELEASED_AT_${(p.oneOf('sort', ['asc', 'desc'] as const) ?? 'desc').toUpperCase()}`,
      simple: p.bool('simple') ?? false,
      html: p.bool('include_html_description') ?? false,
    }),
    result: (data) => {
      const releases = found(data.group, 'Group').releases;
      return { ...releases, nodes: releases.nodes.map(releaseEntity) };
    },
  },
  {
    method: 'GET',
    path: '/projects/:id/releases/:tag_name',
    operation: 'ProjectRelease',
    variables: (p) => ({ ...p.ref('id'), tagName: tagName(p), html: p.bool('include_html_description') ?? false }),
    result: (data) => {
      const project = found(data.project, 'Project');
      // GitLab authorizes reading code before it looks the release up.
      if (!project.userPermissions.downloadCode) throw new ForbiddenError();
      if (!project.release) throw new NotFoundError();
      return releaseEntity(project.release);
    },
  },
  {
    method: 'POST',
    path: '/projects/:id/releases',
    operation: 'ReleaseCreate',
    status: 201,
    variables: (p) => {
      const links = linkInputs(p);
      return {
        input: {
          ...projectInput(p.ref('id')),
          tagName: tagName(p),
          tagMessage: p.string('tag_message'),
          ref: p.string('ref'),
          name: p.string('name'),
          description: p.string('description'),
          releasedAt: p.dateTime('released_at'),
          ...milestoneParams(p),
          assets: links && { links },
        },
      };
    },
    result: (data) => releaseEntity(data.releaseCreate.release),
  },
  {
    method: 'PUT',
    path: '/projects/:id/releases/:tag_name',
    operation: 'ReleaseUpdate',
    jobToken: true,
    variables: (p) => ({
      input: {
        ...projectInput(p.ref('id')),
        tagName: tagName(p),
        name: p.string('name'),
        description: p.string('description'),
        releasedAt: p.dateTime('released_at'),
        ...milestoneParams(p),
      },
    }),
    result: (data) => releaseEntity(data.releaseUpdate.release),
  },
  {
    method: 'DELETE',
    path: '/projects/:id/releases/:tag_name',
    operation: 'ReleaseDelete',
    status: 200,
    variables: (p) => ({ input: { ...projectInput(p.ref('id')), tagName: tagName(p) } }),
    result: (data) => releaseEntity(data.releaseDelete.release),
  },
  {
    method: 'POST',
    path: '/projects/:id/releases/:tag_name/evidence',
    operation: 'CollectReleaseEvidence',
    status: 200,
    variables: (p) => ({ input: { ...projectInput(p.ref('id')), tagName: tagName(p) } }),
    // GitLab's body is the status code as a JSON number.
    result: () => 200,
  },
  downloadRoute('/projects/:id/releases/:tag_name/downloads/{*direct_asset_path}'),
]);

/** Web paths under the project's address, as `assets` and `evidences` link to them. */
export const webRoutes = defineRoutes([
  downloadRoute('/{*full_path}/-/releases/:tag_name/downloads/{*direct_asset_path}'),
  {
    method: 'GET',
    path: '/{*full_path}/-/releases/:tag_name/evidences/:evidence_file',
    operation: 'ReleaseEvidenceFile',
    variables: (p) => ({
      ...p.projectRef(),
      tagName: tagName(p),
      evidenceId: Number(/^(\d{1,15})\.json$/.exec(p.string('evidence_file') ?? '')?.[1] ?? 0),
    }),
    result: (data) => {
      const evidence = found(found(data.project, 'Project').release, 'Release').evidence;
      return found(evidence, 'Evidence').summary;
    },
    respond: (res, summary) => {
      res.type('application/json').send(JSON.stringify(summary));
    },
  },
]);
