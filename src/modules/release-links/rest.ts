import { RecordNotFoundError } from '../../core/errors.ts';
import { param, type Values } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, page } from '../../rest/shape.ts';
import { globalId, projectInput } from '../../rest/sources.ts';
import { LINK_TYPE, linkEntity, linkType } from '../releases/entity.ts';

const PATH = '/projects/:id/releases/:tag_name/assets/links';

const RELEASE = { id: param.ref(), tag_name: param.string({ required: true, allowBlank: false }) };

/** The assets of the path's release, or GitLab's RecordNotFound for an unknown tag. */
function assetsOf<A>(project: { releaseAssets: A | null } | null): A {
  const assets = found(project, 'Project').releaseAssets;
  if (!assets) throw new RecordNotFoundError();
  return assets;
}

const LINK_ATTRIBUTES = { direct_asset_path: param.string(), filepath: param.string(), link_type: LINK_TYPE };

const linkAttributes = (v: Values<typeof LINK_ATTRIBUTES>) => ({ directAssetPath: v.direct_asset_path ?? v.filepath, linkType: linkType(v.link_type) });

/** The link of an update or delete, scoped to the project and tag of the path. */
const LINK = { ...RELEASE, link_id: param.int({ required: true }) };
const scope = (v: Values<typeof LINK>) => ({ ...projectInput(v.id), tagName: v.tag_name, id: globalId('Releases::Link', v.link_id) });

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: PATH,
    operation: 'ReleaseLinks',
    jobToken: true,
    paginated: true,
    params: RELEASE,
    variables: (v) => ({ ...v.id, tagName: v.tag_name }),
    result: (data) => page(assetsOf(data.project).links, linkEntity),
  }),
  route({
    method: 'GET',
    path: `${PATH}/:link_id`,
    operation: 'ReleaseLink',
    jobToken: true,
    params: LINK,
    variables: (v) => ({ ...v.id, tagName: v.tag_name, linkId: v.link_id }),
    result: (data) => {
      const link = assetsOf(data.project).link;
      if (!link) throw new RecordNotFoundError();
      return linkEntity(link);
    },
  }),
  route({
    method: 'POST',
    path: PATH,
    operation: 'ReleaseAssetLinkCreate',
    jobToken: true,
    status: 201,
    params: { ...RELEASE, name: param.string({ required: true }), url: param.string({ required: true }), ...LINK_ATTRIBUTES },
    variables: (v) => ({ input: { ...projectInput(v.id), tagName: v.tag_name, name: v.name, url: v.url, ...linkAttributes(v) } }),
    result: (data) => linkEntity(expected(data.releaseAssetLinkCreate?.link, 'link')),
  }),
  route({
    method: 'PUT',
    path: `${PATH}/:link_id`,
    operation: 'ReleaseAssetLinkUpdate',
    jobToken: true,
    params: { ...LINK, name: param.string(), url: param.string(), ...LINK_ATTRIBUTES },
    variables: (v) => ({ input: { ...scope(v), name: v.name, url: v.url, ...linkAttributes(v) } }),
    result: (data) => linkEntity(expected(data.releaseAssetLinkUpdate?.link, 'link')),
  }),
  route({
    method: 'DELETE',
    path: `${PATH}/:link_id`,
    operation: 'ReleaseAssetLinkDelete',
    jobToken: true,
    status: 200,
    params: LINK,
    variables: (v) => ({ input: scope(v) }),
    result: (data) => linkEntity(expected(data.releaseAssetLinkDelete?.link, 'link')),
  }),
]);
