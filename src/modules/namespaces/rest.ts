import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { found, page } from '../../rest/shape.ts';

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/namespaces',
      operation: 'NamespaceList',
      paginated: true,
      params: { search: param.string(), owned_only: param.bool(), top_level_only: param.bool() },
      variables: (v) => ({ search: v.search, ownedOnly: v.owned_only, topLevelOnly: v.top_level_only }),
      result: (data) => page(data.namespaces),
    }),
    // Before `/namespaces/:id`, which would take `exists` for an id.
    route({
      method: 'GET',
      path: '/namespaces/:namespace/exists',
      operation: 'NamespaceExists',
      params: { namespace: param.string({ required: true }), parent_id: param.int() },
      variables: (v) => ({ path: v.namespace, parentId: v.parent_id }),
      result: (data) => data.namespaceExists,
    }),
    route({
      method: 'GET',
      path: '/namespaces/:id',
      operation: 'NamespaceGet',
      params: { id: param.ref() },
      variables: (v) => v.id,
      result: (data) => found(data.namespace, 'Namespace'),
    }),
  ],
  { authenticate: 'always' },
);
