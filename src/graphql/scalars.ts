import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { ParamError } from '../core/errors.ts';
import { isStorableDate, MAX_YEAR, MIN_YEAR } from '../core/input.ts';
import { isoTimestamp } from '../core/time.ts';
import { asUpload, type Upload } from '../core/upload.ts';

/**
 * A date scalar that refuses instants PostgreSQL cannot store (`0000-01-01`, year 10000+) as a
 * bad argument, instead of failing in the database. The same rule as REST's `Params` dates.
 */
export function storableDates(scalar: GraphQLScalarType): GraphQLScalarType {
  const check = (value: unknown) => {
    if (value instanceof Date && !isStorableDate(value)) {
      throw new GraphQLError(`${scalar.name} must be between the years ${MIN_YEAR} and ${MAX_YEAR}`);
    }
    return value;
  };
  const config = scalar.toConfig();
  return new GraphQLScalarType({
    ...config,
    parseValue: (value: unknown) => check(config.parseValue!(value)),
    parseLiteral: (node: ValueNode, variables?: { [key: string]: unknown } | null) => check(config.parseLiteral!(node, variables)),
  });
}

/**
 * Timestamps answered as their ISO 8601 text (`2021-03-09T14:58:50.007Z`), the text JSON.stringify
 * writes for a Date. graphql-scalars' DateTime hands the Date itself to the answer, and the JSON
 * writer then calls its toJSON from native code, several times slower over a page of 100 releases
 * (1,100 timestamps) than `isoTimestamp` (bench/RESULTS.md, "Figures behind the code"). The REST facade's operation types already
 * say `string`.
 */
export function isoTimestamps(scalar: GraphQLScalarType): GraphQLScalarType {
  const config = scalar.toConfig();
  return new GraphQLScalarType({
    ...config,
    serialize: (value: unknown) => {
      const date = config.serialize!(value);
      return date instanceof Date ? isoTimestamp(date) : date;
    },
  });
}

/**
 * GitLab's typed global ids (`Types::GlobalIDType[::User]` is the scalar `UserID`): the scalar
 * name and the classes whose `gid://gitlab/<Class>/<id>` it accepts (the class and its
 * subclasses, as GitLab accepts a `Group` gid for a `NamespaceID`).
 */
export const GLOBAL_ID_CLASSES = {
  UserID: ['User'],
  ProjectID: ['Project'],
  GroupID: ['Group'],
  NamespaceID: ['Namespace', 'Group', 'Namespaces::UserNamespace', 'Namespaces::ProjectNamespace'],
  MilestoneID: ['Milestone'],
  LabelID: ['Label', 'ProjectLabel', 'GroupLabel'],
  MemberID: ['Member', 'ProjectMember', 'GroupMember'],
  ReleaseID: ['Release'],
  ReleasesLinkID: ['Releases::Link'],
  EpicID: ['Epic'],
  PersonalAccessTokenID: ['PersonalAccessToken'],
  PackagesProtectionRuleID: ['Packages::Protection::Rule'],
  AlertManagementHttpIntegrationID: ['AlertManagement::HttpIntegration'],
  ImportSourceUserID: ['Import::SourceUser'],
  IntegrationsPrometheusID: ['Integrations::Prometheus'],
  TodoID: ['Todo'],
  NoteID: ['Note'],
  DiscussionID: ['Discussion'],
  // Of GitLab's noteables forgegate has alerts only.
  NoteableID: ['AlertManagement::Alert'],
} as const;

export type GlobalIdScalarName = keyof typeof GLOBAL_ID_CLASSES;

const GID = /^gid:\/\/gitlab\/([A-Za-z]+(?:::[A-Za-z]+)*)\/(\d{1,15})$/;

/** `gid://gitlab/<Class>/<id>` as its class and database id; null for anything else (or an id PostgreSQL's `int` cannot hold). */
export function parseGlobalId(value: unknown): { className: string; id: number } | null {
  if (typeof value !== 'string') return null;
  const match = GID.exec(value);
  if (!match) return null;
  const id = Number(match[2]);
  return id <= 2_147_483_647 ? { className: match[1]!, id } : null;
}

/** GitLab's global id format, `gid://gitlab/Project/1`. */
export const gid = (className: string, id: number) => `gid://gitlab/${className}/${id}`;

/**
 * The database id in a global id of one of the classes of `name`; a GraphQL error in GitLab's
 * words otherwise. The scalars use it, and so do arguments GitLab types `[ID!]` (`ids:`).
 */
export function databaseIdOfGlobalId(name: GlobalIdScalarName, value: unknown): number {
  const classes: readonly string[] = GLOBAL_ID_CLASSES[name];
  const parsed = parseGlobalId(value);
  if (!parsed) throw new ParamError(`${JSON.stringify(value)} is not a valid Global ID`);
  if (!classes.includes(parsed.className)) {
    throw new ParamError(`${JSON.stringify(value)} does not represent an instance of ${classes[0]}`);
  }
  return parsed.id;
}

/**
 * The scalar `name` (e.g. `UserID`): its input is the database id of a global id of one of its
 * classes, anything else a GraphQL argument error (GitLab's wording); its output a global id.
 */
export function globalIdScalar(name: GlobalIdScalarName): GraphQLScalarType<number, string> {
  const classes: readonly string[] = GLOBAL_ID_CLASSES[name];
  const parse = (value: unknown) => databaseIdOfGlobalId(name, value);
  return new GraphQLScalarType<number, string>({
    name,
    description: `A \`${name}\` is a global ID. It is encoded as a string, for example \`${gid(classes[0]!, 1)}\`.`,
    serialize: (value) => (typeof value === 'number' ? gid(classes[0]!, value) : String(value)),
    parseValue: parse,
    parseLiteral: (node) => {
      if (node.kind !== Kind.STRING) throw new GraphQLError(`${name} must be a string, e.g. "${gid(classes[0]!, 1)}"`);
      return parse(node.value);
    },
  });
}

/**
 * GitLab's `Upload` scalar: a file of a GraphQL multipart request (Yoga hands over a `File`), or the
 * file part the REST facade passes when it runs the same operation in-process. Input only.
 */
export const uploadScalar = new GraphQLScalarType<Upload, never>({
  name: 'Upload',
  description: 'A file sent with a multipart request (GraphQL multipart request specification).',
  serialize: () => {
    throw new ParamError('Upload is an input-only scalar');
  },
  parseValue: (value): Upload => {
    const upload = asUpload(value);
    if (!upload) throw new ParamError('Upload must be a file of a multipart request');
    return upload;
  },
});
