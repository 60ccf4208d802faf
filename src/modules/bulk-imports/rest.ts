import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found, page } from '../../rest/shape.ts';

const ENTITY = param.hashes({
  source_type: param.string({ required: true, documented: { enum: ['group_entity', 'project_entity'] } }),
  source_full_path: param.string({ required: true }),
  destination_slug: param.string(),
  destination_name: param.string({ description: 'Deprecated: destination_slug.' }),
  destination_namespace: param.string({ required: true }),
  migrate_projects: param.bool(),
  migrate_memberships: param.bool(),
});

const STATUS = param.oneOf(['created', 'started', 'finished', 'timeout', 'failed', 'canceled']);

/** GitLab's `lib/api/bulk_imports.rb`: the signed-in user's own migrations only. */
export const routes = defineRoutes(
  [
    route({
      method: 'POST',
      path: '/bulk_imports',
      operation: 'BulkImportCreate',
      status: 201,
      params: {
        configuration: param.hash({ url: param.string(), access_token: param.string() }, { description: 'The source: url and access_token (required).' }),
        entities: ENTITY,
      },
      variables: (v) => ({
        input: {
          url: v.configuration?.url ?? '',
          accessToken: v.configuration?.access_token ?? '',
          entities: (v.entities ?? []).map((e) => ({
            sourceType: e.source_type,
            sourceFullPath: e.source_full_path,
            destinationSlug: e.destination_slug,
            destinationName: e.destination_name,
            destinationNamespace: e.destination_namespace,
            migrateProjects: e.migrate_projects,
            migrateMemberships: e.migrate_memberships,
          })),
        },
      }),
      result: (data) => expected(data.bulkImportCreate?.bulkImport, 'bulk import'),
    }),
    route({
      method: 'GET',
      path: '/bulk_imports',
      operation: 'BulkImports',
      paginated: true,
      params: { status: STATUS },
      variables: (v) => ({ status: v.status }),
      result: (data) => page(data.bulkImports),
    }),
    route({
      method: 'GET',
      path: '/bulk_imports/entities',
      operation: 'BulkImportEntities',
      paginated: true,
      params: { status: STATUS },
      variables: (v) => ({ status: v.status }),
      result: (data) => page(data.bulkImportEntities),
    }),
    route({
      method: 'GET',
      path: '/bulk_imports/:id',
      operation: 'BulkImport',
      params: { id: param.int({ required: true }) },
      variables: (v) => ({ id: v.id }),
      result: (data) => found(data.bulkImport, 'Bulk import'),
    }),
    route({
      method: 'GET',
      path: '/bulk_imports/:id/entities',
      operation: 'BulkImportEntities',
      paginated: true,
      params: { id: param.int({ required: true }), status: STATUS },
      variables: (v) => ({ bulkImportId: v.id, status: v.status }),
      result: (data) => page(data.bulkImportEntities),
    }),
    route({
      method: 'GET',
      path: '/bulk_imports/:id/entities/:entity_id',
      operation: 'BulkImportEntityOne',
      params: { id: param.int({ required: true }), entity_id: param.int({ required: true }) },
      variables: (v) => ({ bulkImportId: v.id, id: v.entity_id }),
      result: (data) => found(data.bulkImportEntity, 'Entity'),
    }),
    route({
      method: 'GET',
      path: '/bulk_imports/:id/entities/:entity_id/failures',
      operation: 'BulkImportEntityOne',
      params: { id: param.int({ required: true }), entity_id: param.int({ required: true }) },
      variables: (v) => ({ bulkImportId: v.id, id: v.entity_id }),
      result: (data) => found(data.bulkImportEntity, 'Entity').failures,
    }),
    route({
      method: 'POST',
      path: '/bulk_imports/:id/cancel',
      operation: 'BulkImportCancel',
      status: 200,
      params: { id: param.int({ required: true }) },
      variables: (v) => ({ input: { id: v.id } }),
      result: (data) => expected(data.bulkImportCancel?.bulkImport, 'bulk import'),
    }),
  ],
  { authenticate: 'always' },
);
