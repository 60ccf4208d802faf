import { NotFoundError, RecordNotFoundError } from '../../core/errors.ts';
import type { ReleaseBasicFragment, ReleaseDetailsFragment } from '../../generated/operations.ts';
import { param, type Values } from '../../rest/declare.ts';
import { defineRoutes, redirect, route } from '../../rest/route.ts';
import { enumValue, expected, found, nodesOf, page, withoutNull } from '../../rest/shape.ts';
import { projectInput } from '../../rest/sources.ts';
import { commitEntity } from '../commits/entity.ts';
import { milestoneEntity } from '../milestones/entity.ts';
import { LINK_TYPE, linkEntity, linkType } from './entity.ts';

/** Sources only for those who may read the code (written out, not spread: see `omit` in rest/shape.ts). */
const assetsEntity = ({ count, sources, links }: NonNullable<ReleaseDetailsFragment['assets']>) => {
  const linkEntities = nodesOf(links).map(linkEntity);
  return sources ? { count, sources: nodesOf(sources), links: linkEntities } : { count, links: linkEntities };
};

/** A release as the operations select it; a group's `simple` list leaves the details out. */
type ReleaseNode = ReleaseBasicFragment & Partial<ReleaseDetailsFragment> & { description_html?: string | null };

/**
 * GraphQL's release as GitLab's entity: connections become arrays, and what the viewer may not
 * see (commit, paths, sources, evidences, edit_url) or what is empty (author, milestones) is left
 * out (undefined: not serialized). Keys keep the operation's order.
 */
export function releaseEntity(node: ReleaseNode) {
  const milestones = nodesOf(node.milestones);
  return {
    ...node,
    author: node.author ?? undefined,
    commit: node.commit ? commitEntity(node.commit) : undefined,
    milestones: milestones.length ? milestones.map(milestoneEntity) : undefined,
    commit_path: node.commit_path ?? undefined,
    tag_path: node.tag_path ?? undefined,
    assets: node.assets && assetsEntity(node.assets),
    evidences: node.evidences ? nodesOf(node.evidences) : undefined,
    _links: node._links && withoutNull(node._links, ['edit_url']),
  };
}

const ORDER = { order_by: param.oneOf(['released_at', 'created_at'], { default: 'released_at' }), sort: param.oneOf(['asc', 'desc'], { default: 'desc' }) };

const sortOf = (v: Values<typeof ORDER>) => `${v.order_by === 'created_at' ? 'CREATED' : 'RELEASED_AT'}_${enumValue(v.sort)}` as const;

const TAG_NAME = param.string({ required: true, allowBlank: false });

/** `milestones` (titles) or `milestone_ids`; the service refuses both together. */
const MILESTONES = { milestones: param.stringArray(), milestone_ids: param.intArray() };

const LINKS = param.hash({
  links: param.hashes({
    name: param.string({ required: true }),
    url: param.string({ required: true }),
    direct_asset_path: param.string(),
    filepath: param.string(),
    link_type: LINK_TYPE,
  }),
});

/** 302 to the link whose direct asset path is exactly the requested one. */
const downloadRoute = (path: string) =>
  route({
    method: 'GET',
    path,
    operation: 'ReleaseAssetDownload',
    jobToken: true,
    params: { id: param.projectRef(), tag_name: TAG_NAME, direct_asset_path: param.wildcardPath() },
    variables: (v) => ({ ...v.id, tagName: v.tag_name, path: `/${v.direct_asset_path ?? ''}` }),
    result: (data) => {
      const release = found(data.project, 'Project').requiringReadCode.release;
      if (!release) throw new NotFoundError();
      if (!release.assetDownloadUrl) throw new RecordNotFoundError();
      return release.assetDownloadUrl;
    },
    respond: redirect,
  });

const PERMALINK = '/projects/:id/releases/permalink/latest';

/** 302 to the same path under the latest release, as the releases service builds it from the query. */
const permalinkRoute = (path: string) =>
  route({
    method: 'GET',
    path,
    operation: 'ProjectLatestRelease',
    jobToken: true,
    params: { id: param.ref(), suffix_path: param.wildcardPath() },
    variables: (v, p) => {
      const { id: _id, suffix_path: _suffix, ...query } = p.raw;
      return { ...v.id, suffixPath: v.suffix_path, query };
    },
    result: (data) => {
      const location = found(data.project, 'Project').requiringReadCode.latestReleasePath;
      if (!location) throw new NotFoundError();
      return location;
    },
    respond: redirect,
  });

export const routes = defineRoutes([
  permalinkRoute(PERMALINK),
  permalinkRoute(`${PERMALINK}/{*suffix_path}`),
  route({
    method: 'GET',
    path: '/projects/:id/releases',
    operation: 'ProjectReleases',
    jobToken: true,
    paginated: true,
    params: {
      id: param.ref(),
      ...ORDER,
      updated_before: param.dateTime(),
      updated_after: param.dateTime(),
      include_html_description: param.bool({ default: false }),
    },
    variables: (v) => ({
      ...v.id,
      sort: sortOf(v),
      updatedBefore: v.updated_before,
      updatedAfter: v.updated_after,
      html: v.include_html_description,
    }),
    result: (data) => page(found(data.project, 'Project').releases, releaseEntity),
  }),
  route({
    method: 'GET',
    path: '/groups/:id/releases',
    operation: 'GroupReleases',
    paginated: true,
    params: {
      id: param.ref(),
      sort: ORDER.sort,
      simple: param.bool({ default: false }),
      include_html_description: param.bool({ default: false }),
    },
    variables: (v) => ({ ...v.id, sort: `RELEASED_AT_${enumValue(v.sort)}` as const, simple: v.simple, html: v.include_html_description }),
    result: (data) => page(found(data.group, 'Group').releases, releaseEntity),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/releases/:tag_name',
    operation: 'ProjectRelease',
    jobToken: true,
    params: { id: param.ref(), tag_name: TAG_NAME, include_html_description: param.bool({ default: false }) },
    variables: (v) => ({ ...v.id, tagName: v.tag_name, html: v.include_html_description }),
    result: (data) => {
      const { release } = found(data.project, 'Project').requiringReadCode;
      if (!release) throw new NotFoundError();
      return releaseEntity(release);
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/releases',
    operation: 'ReleaseCreate',
    jobToken: true,
    status: 201,
    params: {
      id: param.ref(),
      tag_name: TAG_NAME,
      tag_message: param.string(),
      ref: param.string(),
      name: param.string(),
      description: param.string(),
      released_at: param.dateTime(),
      ...MILESTONES,
      assets: LINKS,
    },
    variables: (v) => ({
      input: {
        ...projectInput(v.id),
        tagName: v.tag_name,
        tagMessage: v.tag_message,
        ref: v.ref,
        name: v.name,
        description: v.description,
        releasedAt: v.released_at,
        milestones: v.milestones,
        milestoneIds: v.milestone_ids,
        assets: v.assets?.links && {
          links: v.assets.links.map((l) => ({
            name: l.name,
            url: l.url,
            directAssetPath: l.direct_asset_path ?? l.filepath,
            linkType: linkType(l.link_type),
          })),
        },
      },
    }),
    result: (data) => releaseEntity(expected(data.releaseCreate?.release, 'release')),
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/releases/:tag_name',
    operation: 'ReleaseUpdate',
    jobToken: true,
    params: { id: param.ref(), tag_name: TAG_NAME, name: param.string(), description: param.string(), released_at: param.dateTime(), ...MILESTONES },
    variables: (v) => ({
      input: {
        ...projectInput(v.id),
        tagName: v.tag_name,
        name: v.name,
        description: v.description,
        releasedAt: v.released_at,
        milestones: v.milestones,
        milestoneIds: v.milestone_ids,
      },
    }),
    result: (data) => releaseEntity(expected(data.releaseUpdate?.release, 'release')),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/releases/:tag_name',
    operation: 'ReleaseDelete',
    jobToken: true,
    status: 200,
    params: { id: param.ref(), tag_name: TAG_NAME },
    variables: (v) => ({ input: { ...projectInput(v.id), tagName: v.tag_name } }),
    result: (data) => releaseEntity(expected(data.releaseDelete?.release, 'release')),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/releases/:tag_name/evidence',
    operation: 'CollectReleaseEvidence',
    status: 200,
    params: { id: param.ref(), tag_name: TAG_NAME },
    variables: (v) => ({ input: { ...projectInput(v.id), tagName: v.tag_name } }),
    // GitLab's body is the status code as a JSON number.
    result: () => 200,
  }),
  downloadRoute('/projects/:id/releases/:tag_name/downloads/{*direct_asset_path}'),
]);

/** Web paths under the project's address, as `assets` and `evidences` link to them. */
export const webRoutes = defineRoutes([
  downloadRoute('/{*full_path}/-/releases/:tag_name/downloads/{*direct_asset_path}'),
  route({
    method: 'GET',
    path: '/{*full_path}/-/releases/:tag_name/evidences/:evidence_file',
    operation: 'ReleaseEvidenceFile',
    params: { full_path: param.segments(), tag_name: TAG_NAME, evidence_file: param.string({ required: true }) },
    variables: (v) => ({
      fullPath: v.full_path.join('/'),
      tagName: v.tag_name,
      evidenceId: Number(/^(\d{1,15})\.json$/.exec(v.evidence_file)?.[1] ?? 0),
    }),
    result: (data) => {
      const evidence = found(found(data.project, 'Project').requiringReadCode.release, 'Release').evidence;
      return found(evidence, 'Evidence').summary;
    },
    respond: (res, summary) => {
      res.type('application/json').send(JSON.stringify(summary));
    },
  }),
]);
