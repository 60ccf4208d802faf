// npm run codegen (also run by postinstall and typecheck): TypeScript types for the REST facade's
// named operations, from schema.graphql, and the `Operations` map that types each route's data.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: 'src/modules/*/operations.graphql',
  silent: true,
  generates: {
    'src/generated/operations.ts': {
      plugins: ['typescript-operations', './scripts/codegen-operation-map.cjs'],
      config: { scalars: { Time: 'string', Date: 'string', JSON: 'unknown' }, enumsAsTypes: true, skipTypename: true },
    },
  },
};

export default config;
