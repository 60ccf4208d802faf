import { builder, scopes } from '../../graphql/builder.ts';
import { asPayload, mutationInput, payloadType } from '../../graphql/payloads.ts';
import type { ApplicationSettings } from '../../core/settings.ts';
import { findSettings, updateSettings } from './service.ts';

const ApplicationSettingsRef = builder.objectRef<ApplicationSettings>('ApplicationSettings').implement({
  description: 'Instance-wide settings (administrators only).',
  fields: (t) => ({
    bulkImportEnabled: t.exposeBoolean('bulkImportEnabled', { description: 'Relation exports and imports (direct transfer) are allowed.' }),
    allowLocalRequestsFromWebHooksAndServices: t.exposeBoolean('allowLocalRequestsFromWebHooksAndServices', {
      description: 'Integrations and webhooks may send requests to loopback and private networks.',
    }),
    dnsRebindingProtectionEnabled: t.exposeBoolean('dnsRebindingProtectionEnabled'),
    maxDecompressedArchiveSize: t.exposeInt('maxDecompressedArchiveSize', { description: 'MiB a relation import file may decompress to.' }),
    maxImportNdjsonRowSize: t.exposeInt('maxImportNdjsonRowSize', { description: 'MiB of one row (line) of a relation import file.' }),
    maxImportNdjsonRows: t.exposeInt('maxImportNdjsonRows', { description: 'Rows (lines) of a relation import file.' }),
    allowBypassPlaceholderConfirmation: t.exposeBoolean('allowBypassPlaceholderConfirmation', {
      description: "An administrator's placeholder reassignment skips the assignee's approval.",
    }),
    updatedAt: t.expose('updatedAt', { type: 'Time' }),
  }),
});

const ApplicationSettingsUpdateInput = mutationInput('ApplicationSettingsUpdateInput', (t) => ({
  bulkImportEnabled: t.boolean(),
  allowLocalRequestsFromWebHooksAndServices: t.boolean(),
  dnsRebindingProtectionEnabled: t.boolean(),
  maxDecompressedArchiveSize: t.int(),
  maxImportNdjsonRowSize: t.int(),
  maxImportNdjsonRows: t.int(),
  allowBypassPlaceholderConfirmation: t.boolean(),
}));

builder.queryField('applicationSettings', (t) =>
  t.field({
    type: ApplicationSettingsRef,
    extensions: scopes('api', 'read_api'),
    description: 'Instance-wide settings; administrators only.',
    resolve: (_r, _a, ctx) => findSettings(ctx),
  }),
);

builder.mutationField('applicationSettingsUpdate', (t) =>
  t.field({
    type: payloadType('ApplicationSettingsUpdatePayload', 'applicationSettings', ApplicationSettingsRef),
    description: 'Changes instance-wide settings; administrators only.',
    args: { input: t.arg({ type: ApplicationSettingsUpdateInput, required: true }) },
    resolve: (_r, { input }, ctx) => asPayload('applicationSettings', () => updateSettings(ctx, input)),
  }),
);
