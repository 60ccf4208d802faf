// npm run codegen: TypeScript types for the REST facade's named operations, from schema.graphql.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: 'src/modules/*/operations.graphql',
  generates: {
    'src/generated/operations.ts': {
      plugins: ['typescript-operations'],
      config: { scalars: { DateTime: 'string', Date: 'string', JSON: 'unknown' }, enumsAsTypes: true, skipTypename: true },
    },
  },
};

export default config;
