import { RecordNotFoundError } from '../../graphql/errors.ts';
import type { Params } from '../../rest/params.ts';
import { defineRoutes } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';
import { projectInput } from '../projects/input.ts';
import { linkEntity, linkTypeParam } from '../releases/rest.ts';

const PATH = '/projects/:id/releases/:tag_name/assets/links';

const tagName = (p: Params) => p.string('tag_name', { required: true, allowBlank: false });

/** The release of the path, or GitLab's RecordNotFound for an unknown tag. */
const releaseOf = (data: any) => {
  const release = found(data.project, 'Project').release;
  if (!release) throw new RecordNotFoundError();
  return release;
};

const linkAttributes = (p: Params) => ({
  directAssetPath: p.string('direct_asset_path') ?? p.string('filepath'),
  linkType: linkTypeParam(p),
});

/** The link of an update or delete, scoped to the project and tag of the path. */
const scope = (p: Params) => ({ ...projectInput(p.ref('id')), tagName: tagName(p), id: String(p.int('link_id', { required: true })) });

export const routes = defineRoutes([
  {
    method: 'GET',
    path: PATH,
    operation: 'ReleaseLinks',
    jobToken: true,
    paginated: true,
    variables: (p) => ({ ...p.ref('id'), tagName: tagName(p) }),
    result: (data) => {
      const links = releaseOf(data).assets.links;
      return { ...links, nodes: links.nodes.map(linkEntity) };
    },
  },
  {
    method: 'GET',
    path: `${PATH}/:link_id`,
    operation: 'ReleaseLink',
    jobToken: true,
    variables: (p) => ({ ...p.ref('id'), tagName: tagName(p), linkId: p.int('link_id', { required: true }) }),
    result: (data) => {
      const link = releaseOf(data).assets.link;
      if (!link) throw new RecordNotFoundError();
      return linkEntity(link);
    },
  },
  {
    method: 'POST',
    path: PATH,
    operation: 'ReleaseAssetLinkCreate',
    jobToken: true,
    status: 201,
    variables: (p) => ({
      input: {
        ...projectInput(p.ref('id')),
        tagName: tagName(p),
        name: p.string('name', { required: true }),
        url: p.string('url', { required: true }),
        ...linkAttributes(p),
      },
    }),
    result: (data) => linkEntity(data.releaseAssetLinkCreate.link),
  },
  {
    method: 'PUT',
    path: `${PATH}/:link_id`,
    operation: 'ReleaseAssetLinkUpdate',
    jobToken: true,
    variables: (p) => {
      p.atLeastOneOf('name', 'url');
      return { input: { ...scope(p), name: p.string('name'), url: p.string('url'), ...linkAttributes(p) } };
    },
    result: (data) => linkEntity(data.releaseAssetLinkUpdate.link),
  },
  {
    method: 'DELETE',
    path: `${PATH}/:link_id`,
    operation: 'ReleaseAssetLinkDelete',
    jobToken: true,
    status: 200,
    variables: (p) => ({ input: scope(p) }),
    result: (data) => linkEntity(data.releaseAssetLinkDelete.link),
  },
]);
