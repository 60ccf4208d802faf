// A graphql-codegen plugin: after typescript-operations has written `<Name>Query` and
// `<Name>QueryVariables` for every named operation, this adds one map from the operation's name to
// both, so a REST route that names its operation gets the operation's data and variables types.
const { Kind } = require('graphql');

const SUFFIX = { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' };

module.exports = {
  plugin(_schema, documents) {
    const entries = documents
      .flatMap((source) => source.document?.definitions ?? [])
      .filter((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.name)
      .map((operation) => {
        const type = `${operation.name.value}${SUFFIX[operation.operation]}`;
        return `  ${operation.name.value}: { data: ${type}; variables: ${type}Variables };`;
      })
      .sort();
    return `\n/** Every named operation of the areas' operations.graphql files: its data and variables. */\nexport type Operations = {\n${entries.join('\n')}\n};\n`;
  },
};
