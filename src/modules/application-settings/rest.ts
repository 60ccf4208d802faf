import type { ApplicationSettingsEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected } from '../../rest/shape.ts';

/** GitLab numbers the one settings row 1. */
const settingsEntity = (settings: ApplicationSettingsEntityFragment) => ({ id: 1, ...settings });

export const routes = defineRoutes(
  [
    route({
      method: 'GET',
      path: '/application/settings',
      operation: 'ApplicationSettings',
      result: (data) => settingsEntity(expected(data.applicationSettings, 'applicationSettings')),
    }),
    route({
      method: 'PUT',
      path: '/application/settings',
      operation: 'ApplicationSettingsUpdate',
      params: {
        bulk_import_enabled: param.bool(),
        allow_local_requests_from_web_hooks_and_services: param.bool(),
        dns_rebinding_protection_enabled: param.bool(),
        max_decompressed_archive_size: param.int(),
        max_import_ndjson_row_size: param.int(),
        max_import_ndjson_rows: param.int(),
        allow_bypass_placeholder_confirmation: param.bool(),
      },
      variables: (v) => ({
        input: {
          bulkImportEnabled: v.bulk_import_enabled,
          allowLocalRequestsFromWebHooksAndServices: v.allow_local_requests_from_web_hooks_and_services,
          dnsRebindingProtectionEnabled: v.dns_rebinding_protection_enabled,
          maxDecompressedArchiveSize: v.max_decompressed_archive_size,
          maxImportNdjsonRowSize: v.max_import_ndjson_row_size,
          maxImportNdjsonRows: v.max_import_ndjson_rows,
          allowBypassPlaceholderConfirmation: v.allow_bypass_placeholder_confirmation,
        },
      }),
      result: (data) => settingsEntity(expected(data.applicationSettingsUpdate?.applicationSettings, 'applicationSettings')),
    }),
  ],
  { authenticate: 'always' },
);
