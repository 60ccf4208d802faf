// The GraphQL document the release benches send, shared with test/graphql-jit.test.ts (which checks
// that graphql-jit answers it as the reference executor does).
export const RELEASES_QUERY = `query($fullPath: ID!) { project(fullPath: $fullPath) { releases(first: 100) { nodes {
  tagName name description releasedAt author { username } commit { sha title }
  milestones { nodes { title webUrl issueStats { total closed } } }
  assets { count links { nodes { name url directAssetUrl linkType } } sources { nodes { format url } } }
  links { selfUrl editUrl } } } } }`;
