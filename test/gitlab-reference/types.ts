/**
 * The facts of GitLab's GraphQL reference (docs.gitlab.com/api/graphql/reference) for the types
 * forgegate serves, written by hand from the reference, one file per area. `test/gitlab-reference.test.ts`
 * compares the schema with them.
 *
 * Type strings are GraphQL's printed form: `String!`, `[Label!]`, `UserID!`.
 */
export interface ReferenceField {
  type: string;
  /** Every argument GitLab declares on the field that we also take, by name: its type. */
  args?: Record<string, string>;
}

export interface ReferenceType {
  name: string;
  /** Object, interface and input fields: name to type (or type and arguments). */
  fields?: Record<string, string | ReferenceField>;
  /** Enum values, all of GitLab's. */
  values?: string[];
  /** Union members, all of GitLab's. */
  members?: string[];
  /**
   * Differences kept on purpose, each with its reason: a field (`name`), an argument
   * (`field.arg`) or an enum value of ours GitLab does not have, or one of GitLab's we lack.
   */
  kept?: Record<string, string>;
  /** Set instead of the facts when the type is ours alone: why it exists. */
  notGitLab?: string;
}
