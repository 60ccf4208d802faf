import { builder, scopes } from '../../graphql/builder.ts';
import { APP_REVISION, APP_VERSION } from '../../version.ts';

const KasRef = builder.objectRef<{ enabled: boolean }>('Kas').implement({
  extensions: scopes('api', 'read_api', 'read_user', 'read_repository'),
  description: 'The GitLab agent server for Kubernetes: not part of this server.',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled', { nullable: false }),
    externalUrl: t.string({ nullable: true, resolve: () => null }),
    externalK8sProxyUrl: t.string({ nullable: true, resolve: () => null }),
    version: t.string({ nullable: true, resolve: () => null }),
  }),
});

const MetadataRef = builder.objectRef<{ version: string; revision: string }>('Metadata').implement({
  extensions: scopes('api', 'read_api', 'read_user', 'read_repository'),
  fields: (t) => ({
    version: t.exposeString('version', { nullable: false }),
    revision: t.exposeString('revision', { nullable: false }),
    // forgegate serves GitLab's Premium features (epics): GitLab's direct-transfer importer migrates
    // them only from a source that says it is an enterprise edition.
    enterprise: t.boolean({ nullable: false, resolve: () => true }),
    kas: t.field({ type: KasRef, nullable: false, resolve: () => ({ enabled: false }) }),
  }),
});

builder.queryField('metadata', (t) =>
  t.field({
    type: MetadataRef,
    nullable: true,
    extensions: scopes('api', 'read_api', 'read_user', 'read_repository'),
    description: 'The GitLab API version this server speaks and its own revision; null for anonymous requests.',
    resolve: (_r, _a, ctx) => (ctx.viewer.user ? { version: APP_VERSION, revision: APP_REVISION } : null),
  }),
);
