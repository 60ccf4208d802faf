import { randomBytes } from 'node:crypto';
import type { ImportSourceUser, ImportSourceUserStatus, Namespace, Prisma } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import { tokenDigest } from '../../auth/tokens.ts';
import type { Context } from '../../core/context.ts';
import { BadRequestError, NotFoundError, ParamError, UnauthorizedError, UnprocessableError } from '../../core/errors.ts';
import type { Listing } from '../../core/listing.ts';
import { readSettings } from '../../core/settings.ts';
import { readUpload, type Upload } from '../../core/upload.ts';
import type { Db } from '../../db/client.ts';
import { lockKey } from '../../db/locks.ts';
import { featureEnabled, flagActor } from '../../flags/index.ts';
import { databaseIdOf } from '../../graphql/builder.ts';
import type { JobContext } from '../../jobs/definitions.ts';
import { resolveParent, type ParentInput } from '../parents/parent.ts';
import { findNulByte, parseCsv, tooManyDelimiters, toCsv } from './csv.ts';
import { activeRealUsers, type Assignee } from './store.ts';
import { userIdsWithEmail } from '../../core/store.ts';

/** GitLab's import type for direct transfer, the only importer here. */
export const IMPORT_TYPE = 'gitlab_migration';
export const REASSIGN_QUEUE = 'import-source-users-reassign';
export const NOTIFY_QUEUE = 'import-source-users-notify';
/** Imports into a personal namespace map every contribution to its owner while this flag is on. */
export const PERSONAL_NAMESPACE_FLAG = 'user_mapping_to_personal_namespace_owner';

/** Statuses a placeholder can still be reassigned from (GitLab's `REASSIGNABLE_STATUSES`). */
export const REASSIGNABLE: ImportSourceUserStatus[] = ['pending_reassignment', 'rejected'];

/** A contributor as an export file names them. */
export type SourceContributor = { id: number | string; username?: string | null; name?: string | null; email?: string | null; source_hostname?: string | null };

const hostOf = (url: string) => new URL(url).hostname;

/**
 * Where contributions of one import go. Per top-level group, each contributor of a source has
 * one import source user: a member of the destination's group with the contributor's e-mail is
 * mapped to directly (recorded as completed); anyone else gets a placeholder user (a blocked user
 * no one can sign in as) until a group owner reassigns it. In a personal namespace mapping is not
 * supported: everything goes to the namespace owner (flag `user_mapping_to_personal_namespace_owner`)
 * or to the namespace's one import user.
 */
export class ContributorMapper {
  private readonly cache = new Map<string, number>();

  constructor(
    private readonly ctx: { db: Db; deps: Context['deps'] },
    /** The project or group imported into: only its namespace decides where contributors go. */
    private readonly project: Pick<ProjectWithNamespace, 'namespace'>,
  ) {}

  async userIdFor(contributor: SourceContributor | null | undefined): Promise<number | null> {
    const namespace = this.project.namespace;
    if (namespace.kind === 'user') return this.personalNamespaceUser(namespace);
    if (!contributor || contributor.id == null || !contributor.source_hostname) return null;
    const key = `${contributor.source_hostname}\u0000${contributor.id}`;
    const known = this.cache.get(key);
    if (known !== undefined) return known;
    const userId = await this.sourceUser(namespace.traversalIds[0], contributor);
    this.cache.set(key, userId);
    return userId;
  }

  private async personalNamespaceUser(namespace: Namespace): Promise<number> {
    const cached = this.cache.get('personal');
    if (cached !== undefined) return cached;
    const owner = await featureEnabled(this.ctx.deps, PERSONAL_NAMESPACE_FLAG, flagActor('Namespace', namespace.id));
    const userId = owner && namespace.ownerId !== null ? namespace.ownerId : await importUserOf(this.ctx.db, this.ctx.deps.config.externalUrl, namespace);
    this.cache.set('personal', userId);
    return userId;
  }

  private async sourceUser(rootId: number, contributor: SourceContributor): Promise<number> {
    const identity = {
      namespaceId: rootId,
      sourceHostname: contributor.source_hostname!,
      importType: IMPORT_TYPE,
      sourceUserIdentifier: String(contributor.id),
    };
    const mapped = (row: ImportSourceUser) => (row.status === 'completed' && row.reassignToUserId !== null ? row.reassignToUserId : row.placeholderUserId!);
    const existing = await this.ctx.db.importSourceUser.findUnique({ where: { namespaceId_sourceHostname_importType_sourceUserIdentifier: identity } });
    if (existing) return mapped(existing);
    return this.ctx.db.$transaction(async (tx) => {
      await lockKey(tx, `import-source-user:${rootId}:${identity.sourceHostname}:${identity.sourceUserIdentifier}`);
      const raced = await tx.importSourceUser.findUnique({ where: { namespaceId_sourceHostname_importType_sourceUserIdentifier: identity } });
      if (raced) return mapped(raced);
      const source = { ...identity, sourceName: contributor.name ?? null, sourceUsername: contributor.username ?? null };
      const member = contributor.email ? await memberWithEmail(tx, rootId, contributor.email) : null;
      if (member) {
        await tx.importSourceUser.create({ data: { ...source, status: 'completed', reassignToUserId: member.id } });
        return member.id;
      }
      const placeholder = await createPlaceholderUser(tx, this.ctx.deps.config.externalUrl, contributor);
      await tx.importSourceUser.create({ data: { ...source, status: 'pending_reassignment', placeholderUserId: placeholder.id } });
      return placeholder.id;
    });
  }
}

/** An active user with this e-mail who is a member of the group tree (the group, a subgroup or one of its projects). */
async function memberWithEmail(tx: Prisma.TransactionClient, rootId: number, email: string) {
  return tx.user.findFirst({
    where: {
      id: { in: await userIdsWithEmail(tx, email) },
      state: 'active',
      memberships: { some: { OR: [{ namespace: { traversalIds: { has: rootId } } }, { project: { namespace: { traversalIds: { has: rootId } } } }] } },
    },
    select: { id: true },
  });
}

const usernameSegment = (value: string | null | undefined) => (value ?? 'user').replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40) || 'user';

/** GitLab's placeholder: `<username>_placeholder_user_<n>`, no namespace, no password, blocked. */
function createPlaceholderUser(tx: Prisma.TransactionClient, externalUrl: string, contributor: SourceContributor) {
  const username = `${usernameSegment(contributor.username)}_placeholder_user_${randomBytes(4).toString('hex')}`;
  return tx.user.create({
    data: {
      username,
      name: `Placeholder ${contributor.name ?? contributor.username ?? contributor.id}`.slice(0, 255),
      email: `${username}@noreply.${hostOf(externalUrl)}`,
      state: 'blocked',
    },
  });
}

/** The personal namespace's one non-functional import user, created on first use. */
async function importUserOf(db: Db, externalUrl: string, namespace: Namespace): Promise<number> {
  const existing = await db.namespaceImportUser.findUnique({ where: { namespaceId: namespace.id } });
  if (existing) return existing.userId;
  return db.$transaction(async (tx) => {
    await lockKey(tx, `namespace-import-user:${namespace.id}`);
    const raced = await tx.namespaceImportUser.findUnique({ where: { namespaceId: namespace.id } });
    if (raced) return raced.userId;
    const username = `import_user_namespace_${namespace.id}`;
    const user = await tx.user.create({ data: { username, name: 'Import User', email: `${username}@noreply.${hostOf(externalUrl)}`, state: 'blocked' } });
    await tx.namespaceImportUser.create({ data: { namespaceId: namespace.id, userId: user.id } });
    return user.id;
  });
}

// ------------------------------------------------------------------------------------------------
// The group owner's side

/** GitLab's placeholder routes: signed in, then the group (404), then Owner (403). */
async function requireOwnedGroup(ctx: Context, input: ParentInput): Promise<Namespace> {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const parent = await resolveParent(ctx, input, ['group']);
  if (parent.kind !== 'group') throw new NotFoundError('Group');
  await ctx.policy.requireGroupAccess(parent.group, AccessLevel.OWNER);
  return parent.group;
}

/** GitLab's `SourceUserSort` orders (the default: by source name). */
export const SOURCE_USER_SORTS = ['status_asc', 'status_desc', 'source_name_asc', 'source_name_desc', 'id_asc', 'id_desc'] as const;
export type SourceUserSort = (typeof SOURCE_USER_SORTS)[number];

export type SourceUserFilter = { statuses?: ImportSourceUserStatus[] | null; search?: string | null; sort?: SourceUserSort | null };

/** The order of a sort; the id breaks ties so that pages never overlap. Statuses order as GitLab numbers them (the enum's order). */
function sourceUserOrder(sort: SourceUserSort): Prisma.ImportSourceUserOrderByWithRelationInput[] {
  const direction = sort.endsWith('_desc') ? 'desc' : 'asc';
  if (sort.startsWith('status')) return [{ status: direction }, { id: direction }];
  if (sort.startsWith('source_name')) return [{ sourceName: { sort: direction, nulls: 'last' } }, { id: direction }];
  return [{ id: direction }];
}

/** The group's import source users (Owner only), by source name unless told. */
export async function listSourceUsers(ctx: Context, group: Namespace, filter: SourceUserFilter = {}): Promise<Listing<ImportSourceUser>> {
  await requireOwnedGroup(ctx, { groupId: group.id });
  const search = filter.search?.trim();
  const where: Prisma.ImportSourceUserWhereInput = {
    namespaceId: group.id,
    ...(filter.statuses?.length && { status: { in: filter.statuses } }),
    ...(search && {
      OR: [{ sourceName: { contains: search, mode: 'insensitive' } }, { sourceUsername: { contains: search, mode: 'insensitive' } }],
    }),
  };
  return {
    fetch: ({ offset, limit }) =>
      ctx.db.importSourceUser.findMany({ where, orderBy: sourceUserOrder(filter.sort ?? 'source_name_asc'), skip: offset, take: limit }),
    count: () => ctx.db.importSourceUser.count({ where, take: ctx.countLimit }),
  };
}

/** The spec's columns, in order (GitLab's GenerateCsvService). */
export const CSV_HEADER = [
  'Source host',
  'Import type',
  'Source user identifier',
  'Source user name',
  'Source username',
  'GitLab username',
  'GitLab public email',
];

export type PlaceholderCsv = { fileName: string; content: string };

/** The CSV of the group's placeholders still awaiting reassignment, the two last columns blank for the owner to fill. */
export async function placeholderCsv(ctx: Context, input: ParentInput): Promise<PlaceholderCsv> {
  const group = await requireOwnedGroup(ctx, input);
  const rows = await ctx.db.importSourceUser.findMany({ where: { namespaceId: group.id, status: { in: REASSIGNABLE } }, orderBy: { id: 'asc' } });
  const content = toCsv([
    CSV_HEADER,
    ...rows.map((r) => [r.sourceHostname, r.importType, r.sourceUserIdentifier, r.sourceName ?? '', r.sourceUsername ?? '', '', '']),
  ]);
  return { fileName: `placeholder_reassignments_for_group_${group.id}_${Math.floor(Date.now() / 1000)}.csv`, content };
}

export const CSV_LIMITS = { bytes: 10 * 1024 * 1024, rows: 50_000, columns: 20, delimiters: 625_000 };
const REQUIRED_HEADERS = ['source_host', 'import_type', 'source_user_identifier', 'gitlab_username', 'gitlab_public_email'];
export const CSV_ACCEPTED = 'The file is being processed and you will receive an email when completed.';

const sheetErrors = (errors: string[]) => new UnprocessableError(`The following errors are preventing the sheet from being processed: ${errors.join(' ')}`);

/** Ruby CSV's `header_converters: :symbol`: "GitLab username" → `gitlab_username`. */
const symbolHeader = (header: string) =>
  header
    .normalize('NFKD')
    .toLowerCase()
    .trim()
    .replace(/[^\s\w]+/g, '')
    .replace(/\s+/g, '_');

/** A user contributions may be reassigned to. */

type Reassignment = { sourceUser: ImportSourceUser; user: Assignee };

/**
 * Checks a completed CSV whole before anything changes (GitLab's 422s: extension, size, rows,
 * columns, headers, duplicates; and every row that names a user must name an existing placeholder
 * and an existing active user), then marks each chosen placeholder as being reassigned and queues
 * the job that moves the contributions and mails the result.
 */
export async function uploadReassignmentCsv(ctx: Context, input: ParentInput, upload: Upload): Promise<string> {
  const group = await requireOwnedGroup(ctx, input);
  if (!upload.filename.toLowerCase().endsWith('.csv')) throw new UnprocessableError('You must upload a CSV file with a .csv file extension.');
  if (upload.size > CSV_LIMITS.bytes) throw sheetErrors(['The provided CSV file exceeds the maximum size of 10 MB.']);
  const text = (await readUpload(upload)).toString('utf8');
  // GitLab's MAX_CSV_DELIMITERS: 10 MB of commas would otherwise be ten million cells in memory.
  if (tooManyDelimiters(text, CSV_LIMITS.delimiters)) throw sheetErrors(['The provided CSV file has too many rows or columns to be processed.']);
  const parsed = parseCsv(text, CSV_LIMITS.rows + 1);
  if (parsed === null) throw sheetErrors(['The provided CSV file could not be processed.']);
  if (parsed.tooManyRows) throw sheetErrors([`The provided CSV file exceeds the maximum number of rows (${CSV_LIMITS.rows}).`]);
  const [header = [], ...records] = parsed.rows;
  if (header.length > CSV_LIMITS.columns) throw sheetErrors([`The provided CSV file exceeds the maximum number of columns (${CSV_LIMITS.columns}).`]);
  // PostgreSQL cannot hold a NUL in text: the cell is refused here, with its place, not by the database.
  const nul = findNulByte(parsed.rows);
  if (nul) {
    const name = header[nul.column - 1]?.replace(/\0/g, '').trim().slice(0, 64);
    throw new BadRequestError(`The provided CSV file contains a null byte in row ${nul.row}, column ${nul.column}${name ? ` (${name})` : ''}.`);
  }
  const keys = header.map(symbolHeader);
  if (!keys.length || REQUIRED_HEADERS.some((h) => !keys.includes(h))) throw sheetErrors(['The provided CSV was not correctly formatted.']);
  const rows = records
    .map(
      (cells, index) =>
        ({ line: index + 2, ...Object.fromEntries(keys.map((k, i) => [k, (cells[i] ?? '').trim()])) }) as Record<string, string> & { line: number },
    )
    .filter((row) => row.gitlab_username || row.gitlab_public_email);
  const seen = new Set<string>();
  for (const row of rows) {
    const scope = `${row.import_type}/${row.source_host}/`;
    const keysOf = [
      row.gitlab_public_email && `e:${scope}${row.gitlab_public_email.toLowerCase()}`,
      row.gitlab_username && `u:${scope}${row.gitlab_username.toLowerCase()}`,
    ].filter(Boolean) as string[];
    if (keysOf.some((k) => seen.has(k))) throw sheetErrors(['The provided spreadsheet contains duplicate email addresses or usernames.']);
    for (const key of keysOf) seen.add(key);
  }
  const reassignments: Reassignment[] = [];
  const unknown: string[] = [];
  // Two statements for the whole sheet (up to 50,000 rows), not a lookup per row.
  const sourceKey = (host: string, type: string, identifier: string) => JSON.stringify([host, type, identifier]);
  const sourceUsers = new Map(
    (await ctx.db.importSourceUser.findMany({ where: { namespaceId: group.id } })).map((u) => [
      sourceKey(u.sourceHostname, u.importType, u.sourceUserIdentifier),
      u,
    ]),
  );
  const assignee = await reassignableUsers(
    ctx.db,
    rows.map((row) => ({ username: row.gitlab_username, email: row.gitlab_public_email })),
  );
  for (const row of rows) {
    const sourceUser = sourceUsers.get(sourceKey(row.source_host, row.import_type, row.source_user_identifier));
    const user = assignee(row.gitlab_username, row.gitlab_public_email);
    if (!sourceUser || !user) unknown.push(`Row ${row.line}: No matching user for provided information.`);
    else if (REASSIGNABLE.includes(sourceUser.status)) reassignments.push({ sourceUser, user });
  }
  if (unknown.length) throw sheetErrors(unknown.slice(0, 20));
  await startReassignments(ctx, group, reassignments, ctx.viewer.user!.id);
  return CSV_ACCEPTED;
}

/**
 * The users contributions may go to (active, not themselves a placeholder or an import user) among
 * those the pairs name, in one statement: a pair names its user by username (whose e-mail must
 * then match, when one is given) or else by e-mail. Returns the lookup for one pair.
 */
async function reassignableUsers(db: Db, pairs: { username: string; email: string }[]) {
  const usernames = [...new Set(pairs.map((p) => p.username.toLowerCase()).filter(Boolean))];
  const emails = [...new Set(pairs.map((p) => p.email.toLowerCase()).filter(Boolean))];
  const users = await activeRealUsers(db, usernames, emails);
  const byUsername = new Map(users.map((u) => [u.username.toLowerCase(), u]));
  const byEmail = new Map(users.map((u) => [u.email.toLowerCase(), u]));
  return (username: string, email: string): Assignee | null => {
    const user = username ? byUsername.get(username.toLowerCase()) : byEmail.get(email.toLowerCase());
    if (!user) return null;
    return username && email && user.email.toLowerCase() !== email.toLowerCase() ? null : user;
  };
}

/** Statuses a reassignment can be cancelled from (GitLab's `CANCELABLE_STATUSES`). */
const CANCELABLE: ImportSourceUserStatus[] = ['awaiting_approval', 'rejected'];

/**
 * GitLab's AdminBypassAuthorizer: with `allow_bypass_placeholder_confirmation` on, an
 * administrator's reassignment goes straight to the job that moves the contributions. Anyone
 * else's, and every reassignment while the setting is off, waits for the assignee to accept it.
 */
async function skipsConfirmation(ctx: Context): Promise<boolean> {
  return ctx.viewer.isAdmin && (await readSettings(ctx.db)).allowBypassPlaceholderConfirmation;
}

/**
 * Records each reassignment (GitLab's ReassignService): awaiting the assignee's approval, whom a
 * job mails a link to accept or decline, or already in progress when the confirmation is
 * bypassed. `summaryTo` (a CSV upload) also gets one e-mail listing the sheet's reassignments.
 */
async function startReassignments(ctx: Context, group: Namespace, reassignments: Reassignment[], summaryTo: number | null) {
  const byId = ctx.viewer.user!.id;
  const status: ImportSourceUserStatus = (await skipsConfirmation(ctx)) ? 'reassignment_in_progress' : 'awaiting_approval';
  await ctx.db.$transaction(async (tx) => {
    const ids: number[] = [];
    for (const { sourceUser, user } of reassignments) {
      // Only a placeholder still reassignable moves: a concurrent upload that got there first wins.
      const { count } = await tx.importSourceUser.updateMany({
        where: { id: sourceUser.id, status: { in: REASSIGNABLE } },
        data: { status, reassignToUserId: user.id, reassignedByUserId: byId, reassignmentError: null, reassignmentTokenDigest: null },
      });
      if (count) ids.push(sourceUser.id);
    }
    if (status === 'reassignment_in_progress' && ids.length) {
      await ctx.deps.jobs.send(REASSIGN_QUEUE, { sourceUserIds: ids } satisfies ReassignJob, { tx });
      await ctx.deps.jobs.send(NOTIFY_QUEUE, { kind: 'bypassed', sourceUserIds: ids } satisfies NotifyJob, { tx });
    }
    if ((status === 'awaiting_approval' && ids.length) || summaryTo !== null) {
      await ctx.deps.jobs.send(NOTIFY_QUEUE, { kind: 'requests', groupId: group.id, sourceUserIds: ids, summaryTo } satisfies NotifyJob, { tx });
    }
  });
}

/** A source user of a group the viewer owns: signed in (401), visible (404), Owner (403). */
async function ownedSourceUser(ctx: Context, id: string | number) {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const sourceUserId = databaseIdOf('Import::SourceUser', id);
  if (sourceUserId === null) throw new ParamError(`${id} is not a valid ImportSourceUserID`);
  const found = await ctx.db.importSourceUser.findUnique({ where: { id: sourceUserId }, include: { namespace: true } });
  if (!found || !(await ctx.policy.canReadNamespace(found.namespace))) throw new NotFoundError('Import source user');
  await ctx.policy.requireGroupAccess(found.namespace, AccessLevel.OWNER);
  return found;
}

const invalidStatus = () => new UnprocessableError('Import source user has an invalid status for this operation');

/** `importSourceUserReassign`: one placeholder to one user (Owner of the group it belongs to). */
export async function reassignSourceUser(ctx: Context, id: string | number, assignee: string | number): Promise<ImportSourceUser> {
  const found = await ownedSourceUser(ctx, id);
  if (!REASSIGNABLE.includes(found.status)) throw invalidStatus();
  const userId = databaseIdOf('User', assignee);
  const user = userId === null ? null : await ctx.db.user.findUnique({ where: { id: userId } });
  const reassignable = user && (await reassignableUsers(ctx.db, [{ username: user.username, email: '' }]))(user.username, '');
  if (!reassignable) throw new UnprocessableError('Only active regular, auditor, or administrator users can be assigned');
  await startReassignments(ctx, found.namespace, [{ sourceUser: found, user: reassignable }], null);
  return ctx.db.importSourceUser.findUniqueOrThrow({ where: { id: found.id } });
}

/** Moves one source user from one of `from` to `data`, or fails as GitLab does for a status the operation does not apply to. */
async function moveSourceUser(ctx: Context, id: string | number, from: ImportSourceUserStatus[], data: Prisma.ImportSourceUserUncheckedUpdateManyInput) {
  const found = await ownedSourceUser(ctx, id);
  const { count } = await ctx.db.importSourceUser.updateMany({ where: { id: found.id, status: { in: from } }, data });
  if (!count) throw invalidStatus();
  return ctx.db.importSourceUser.findUniqueOrThrow({ where: { id: found.id } });
}

/**
 * `importSourceUserKeepAsPlaceholder` (GitLab's KeepAsPlaceholderService): the contributions stay
 * with the placeholder for good, a decision of the owner who made it (`reassignedByUser`).
 */
export function keepAsPlaceholder(ctx: Context, id: string | number): Promise<ImportSourceUser> {
  return moveSourceUser(ctx, id, REASSIGNABLE, { status: 'keep_as_placeholder', reassignToUserId: null, reassignedByUserId: ctx.viewer.userId });
}

/** `importSourceUserUndoKeepAsPlaceholder`: back to awaiting a reassignment. */
export function undoKeepAsPlaceholder(ctx: Context, id: string | number): Promise<ImportSourceUser> {
  return moveSourceUser(ctx, id, ['keep_as_placeholder'], { status: 'pending_reassignment', reassignedByUserId: null });
}

/**
 * `importSourceUserKeepAllAsPlaceholder` (GitLab's KeepAllAsPlaceholderService): every source user
 * of the group still awaiting a reassignment keeps its placeholder; the number changed.
 */
export async function keepAllAsPlaceholder(ctx: Context, namespaceId: number): Promise<number> {
  const group = await requireOwnedGroup(ctx, { groupId: namespaceId });
  const { count } = await ctx.db.importSourceUser.updateMany({
    where: { namespaceId: group.id, status: { in: REASSIGNABLE } },
    data: { status: 'keep_as_placeholder', reassignToUserId: null, reassignedByUserId: ctx.viewer.userId },
  });
  return count;
}

/** `importSourceUserCancelReassignment` (GitLab's CancelReassignmentService): back to pending, the assignee's link dead. */
export function cancelReassignment(ctx: Context, id: string | number): Promise<ImportSourceUser> {
  return moveSourceUser(ctx, id, CANCELABLE, {
    status: 'pending_reassignment',
    reassignToUserId: null,
    reassignedByUserId: null,
    reassignmentTokenDigest: null,
  });
}

/**
 * `importSourceUserResendNotification`: mails the assignee a new link. Only the token's digest is
 * kept, so a new token is issued and the earlier link stops working.
 */
export async function resendReassignmentRequest(ctx: Context, id: string | number): Promise<ImportSourceUser> {
  const found = await ownedSourceUser(ctx, id);
  return ctx.db.$transaction(async (tx) => {
    const { count } = await tx.importSourceUser.updateMany({ where: { id: found.id, status: 'awaiting_approval' }, data: { reassignmentTokenDigest: null } });
    if (!count) throw invalidStatus();
    await ctx.deps.jobs.send(NOTIFY_QUEUE, { kind: 'requests', groupId: found.namespaceId, sourceUserIds: [found.id], summaryTo: null } satisfies NotifyJob, {
      tx,
    });
    return tx.importSourceUser.findUniqueOrThrow({ where: { id: found.id } });
  });
}

// ------------------------------------------------------------------------------------------------
// The assignee's side

/**
 * The reassignment request a link names, for its assignee only. An unknown id, a wrong or used
 * token and someone else's request get the same 404: only the token says the request exists, and
 * the answer must not tell a guesser (or another user holding the link) anything more.
 */
function requestOf(ctx: Context, id: string, token: string): Prisma.ImportSourceUserWhereInput & { id: number } {
  if (!ctx.viewer.user) throw new UnauthorizedError();
  const sourceUserId = databaseIdOf('Import::SourceUser', id);
  if (sourceUserId === null || !token) throw new NotFoundError('Import source user');
  return {
    id: sourceUserId,
    status: 'awaiting_approval',
    reassignToUserId: ctx.viewer.user.id,
    reassignmentTokenDigest: tokenDigest(ctx.deps.secrets.tokenDigestKey, token),
  };
}

/** The request the assignee's link opens (GitLab's `Import::SourceUsersController#show`). */
export async function findReassignmentRequest(ctx: Context, id: string, token: string): Promise<ImportSourceUser> {
  const found = await ctx.db.importSourceUser.findFirst({ where: requestOf(ctx, id, token) });
  if (!found) throw new NotFoundError('Import source user');
  return found;
}

/**
 * The assignee accepts (GitLab's AcceptReassignmentService): the request moves to
 * `reassignment_in_progress`, the token is spent, and the job moves the contributions; or rejects
 * (RejectReassignmentService): `rejected`, and whoever reassigned is told.
 */
export async function answerReassignmentRequest(ctx: Context, id: string, token: string, accept: boolean): Promise<ImportSourceUser> {
  const where = requestOf(ctx, id, token);
  return ctx.db.$transaction(async (tx) => {
    const { count } = await tx.importSourceUser.updateMany({
      where,
      data: { status: accept ? 'reassignment_in_progress' : 'rejected', reassignmentTokenDigest: null },
    });
    if (!count) throw new NotFoundError('Import source user');
    const row = await tx.importSourceUser.findUniqueOrThrow({ where: { id: where.id } });
    if (accept) await ctx.deps.jobs.send(REASSIGN_QUEUE, { sourceUserIds: [row.id] } satisfies ReassignJob, { tx });
    else
      await ctx.deps.jobs.send(
        NOTIFY_QUEUE,
        { kind: 'rejected', sourceUserId: row.id, ownerId: row.reassignedByUserId, assigneeId: row.reassignToUserId! } satisfies NotifyJob,
        { tx },
      );
    return row;
  });
}

// ------------------------------------------------------------------------------------------------
// Jobs

type ReassignJob = { sourceUserIds: number[] };

type NotifyJob =
  | { kind: 'requests'; groupId: number; sourceUserIds: number[]; summaryTo: number | null }
  | { kind: 'rejected'; sourceUserId: number; ownerId: number | null; assigneeId: number }
  | { kind: 'bypassed'; sourceUserIds: number[] };

/** The assignee's links: the request, and where to POST the answer (GitLab's `/import/source_users` web routes). */
export const reassignmentLinks = (externalUrl: string, id: number, token: string) => {
  const base = `${externalUrl}/import/source_users/${id}`;
  const query = `?reassignment_token=${token}`;
  return { review: base + query, accept: `${base}/accept${query}`, decline: `${base}/decline${query}` };
};

const sourceLabel = (u: ImportSourceUser) =>
  `${u.sourceName ?? u.sourceUsername ?? u.sourceUserIdentifier} (@${u.sourceUsername ?? u.sourceUserIdentifier} on ${u.sourceHostname})`;

type SourceUserWithPeople = ImportSourceUser & {
  reassignToUser: { username: string; email: string } | null;
  reassignedByUser: { name: string; username: string } | null;
};

/**
 * Issues the request's token and mails its links to the assignee, once per request: the token is
 * set only where none is (a retried job skips requests already mailed), and taken back if the
 * mail could not be handed over, so the retry mails a fresh one.
 */
async function mailRequest(deps: JobContext['deps'], group: Namespace, sourceUser: SourceUserWithPeople) {
  const assignee = sourceUser.reassignToUser;
  if (sourceUser.status !== 'awaiting_approval' || sourceUser.reassignmentTokenDigest !== null || !assignee) return;
  const token = randomBytes(16).toString('hex');
  const digest = tokenDigest(deps.secrets.tokenDigestKey, token);
  const { count } = await deps.db.importSourceUser.updateMany({
    where: { id: sourceUser.id, status: 'awaiting_approval', reassignmentTokenDigest: null },
    data: { reassignmentTokenDigest: digest },
  });
  if (!count) return;
  const links = reassignmentLinks(deps.config.externalUrl, sourceUser.id, token);
  const by = sourceUser.reassignedByUser;
  const text = [
    `${by ? `${by.name} (@${by.username})` : 'An owner of the group'} asks you to take over the contributions ${sourceLabel(sourceUser)} made before they were imported into ${group.fullPath}.`,
    `Once you accept, those contributions show you as their author. Nothing moves unless you accept.`,
    ``,
    `Review the request (signed in as @${assignee.username}): ${links.review}`,
    `Accept: POST ${links.accept}`,
    `Decline: POST ${links.decline}`,
    ``,
    `If you do not know this group or this person, decline.`,
  ].join('\n');
  try {
    await deps.mail.send({ to: [assignee.email], subject: `Reassignments in ${group.fullPath} waiting for review`, text });
  } catch (error) {
    await deps.db.importSourceUser.updateMany({ where: { id: sourceUser.id, reassignmentTokenDigest: digest }, data: { reassignmentTokenDigest: null } });
    throw error;
  }
}

/**
 * The e-mails of reassignment: each assignee's request, the uploader's summary of a CSV, the
 * owner's notice of a rejection, the assignee's notice of a reassignment that skipped them.
 */
export async function sendReassignmentMail(data: NotifyJob, job: JobContext): Promise<void> {
  const { db } = job.deps;
  if (data.kind === 'rejected') return mailRejection(data, job);
  if (data.kind === 'bypassed') return mailBypassNotices(data, job);
  const group = await db.namespace.findUnique({ where: { id: data.groupId } });
  if (!group) return;
  const sourceUsers = await db.importSourceUser.findMany({
    where: { id: { in: data.sourceUserIds } },
    include: { reassignToUser: { select: { username: true, email: true } }, reassignedByUser: { select: { name: true, username: true } } },
    orderBy: { id: 'asc' },
  });
  for (const sourceUser of sourceUsers) await mailRequest(job.deps, group, sourceUser);
  const recipient = data.summaryTo === null ? null : await db.user.findUnique({ where: { id: data.summaryTo } });
  if (!recipient) return;
  const text = [
    `${sourceUsers.length} placeholder user${sourceUsers.length === 1 ? '' : 's'} of ${group.fullPath} matched a user of the sheet:`,
    ...sourceUsers.map(
      (u) => `- ${sourceLabel(u)} → @${u.reassignToUser?.username}: ${u.status === 'awaiting_approval' ? 'awaiting approval' : u.status.replace(/_/g, ' ')}`,
    ),
  ].join('\n');
  await job.deps.mail.send({ to: [recipient.email], subject: `Placeholder reassignments in ${group.fullPath} completed`, text });
}

async function mailRejection(data: Extract<NotifyJob, { kind: 'rejected' }>, job: JobContext) {
  const { db } = job.deps;
  const [sourceUser, owner, assignee] = await Promise.all([
    db.importSourceUser.findUnique({ where: { id: data.sourceUserId }, include: { namespace: true } }),
    data.ownerId === null ? null : db.user.findUnique({ where: { id: data.ownerId } }),
    db.user.findUnique({ where: { id: data.assigneeId } }),
  ]);
  if (!sourceUser || !owner || !assignee) return;
  await job.deps.mail.send({
    to: [owner.email],
    subject: `Reassignments in ${sourceUser.namespace.fullPath} rejected`,
    text: `@${assignee.username} declined to take over the contributions of ${sourceLabel(sourceUser)} in ${sourceUser.namespace.fullPath}. They stay with the placeholder user; you can reassign them to someone else.`,
  });
}

/** An administrator skipped the assignee's approval (GitLab's admin bypass): the assignee is at least told. */
async function mailBypassNotices(data: Extract<NotifyJob, { kind: 'bypassed' }>, job: JobContext) {
  const sourceUsers = await job.deps.db.importSourceUser.findMany({
    where: { id: { in: data.sourceUserIds } },
    include: { namespace: true, reassignToUser: { select: { email: true } }, reassignedByUser: { select: { username: true } } },
    orderBy: { id: 'asc' },
  });
  for (const sourceUser of sourceUsers) {
    if (!sourceUser.reassignToUser) continue;
    await job.deps.mail.send({
      to: [sourceUser.reassignToUser.email],
      subject: `Contributions in ${sourceUser.namespace.fullPath} reassigned to you`,
      text: `An administrator (@${sourceUser.reassignedByUser?.username ?? 'unknown'}) reassigned to you the contributions of ${sourceLabel(sourceUser)} in ${sourceUser.namespace.fullPath}, without asking for your confirmation (the instance allows administrators to skip it).`,
    });
  }
}

/**
 * Every table column that holds a contributor. Reassignment moves a placeholder's rows in each;
 * an area that records authors of imported data adds its column here.
 */
const CONTRIBUTIONS: ((tx: Prisma.TransactionClient, from: number, to: number) => Promise<unknown>)[] = [
  (tx, from, to) => tx.release.updateMany({ where: { authorId: from }, data: { authorId: to } }),
  (tx, from, to) => tx.epic.updateMany({ where: { authorId: from }, data: { authorId: to } }),
  moveAwards,
  moveMemberships,
];

/** Award emoji: the user's own award of the same emoji on the same epic stays, the placeholder's duplicate goes. */
async function moveAwards(tx: Prisma.TransactionClient, from: number, to: number) {
  const theirs = await tx.awardEmoji.findMany({
    where: { userId: to, epic: { awardEmoji: { some: { userId: from } } } },
    select: { epicId: true, name: true },
  });
  if (theirs.length) await tx.awardEmoji.deleteMany({ where: { userId: from, OR: theirs.map(({ epicId, name }) => ({ epicId, name })) } });
  await tx.awardEmoji.updateMany({ where: { userId: from }, data: { userId: to } });
}

/**
 * Memberships, as GitLab's reassignment: the placeholder's membership becomes the user's where the
 * user has none there; where the user already is a member, the user's own membership stays as it
 * is (neither raised nor lowered) and the placeholder's goes.
 */
async function moveMemberships(tx: Prisma.TransactionClient, from: number, to: number) {
  const placeholders = await tx.member.findMany({ where: { userId: from }, select: { namespaceId: true, projectId: true } });
  if (!placeholders.length) return;
  const namespaceIds = placeholders.flatMap((m) => (m.namespaceId === null ? [] : [m.namespaceId]));
  const projectIds = placeholders.flatMap((m) => (m.projectId === null ? [] : [m.projectId]));
  const existing = await tx.member.findMany({
    where: { userId: to, OR: [{ namespaceId: { in: namespaceIds } }, { projectId: { in: projectIds } }] },
    select: { namespaceId: true, projectId: true },
  });
  const taken = {
    namespaceId: { in: existing.flatMap((m) => (m.namespaceId === null ? [] : [m.namespaceId])) },
    projectId: { in: existing.flatMap((m) => (m.projectId === null ? [] : [m.projectId])) },
  };
  await tx.member.deleteMany({ where: { userId: from, OR: [{ namespaceId: taken.namespaceId }, { projectId: taken.projectId }] } });
  await tx.member.updateMany({ where: { userId: from }, data: { userId: to } });
}

/**
 * The background job: moves each placeholder's contributions to its chosen user. Only a
 * reassignment the assignee accepted (or an administrator's, with the confirmation bypassed) is
 * `reassignment_in_progress`; anything else (awaiting approval, rejected, cancelled) is left alone.
 */
export async function runReassignments(data: ReassignJob, job: JobContext): Promise<void> {
  const { db } = job.deps;
  const accepted = await db.importSourceUser.findMany({
    where: { id: { in: data.sourceUserIds }, status: 'reassignment_in_progress', reassignToUserId: { not: null } },
    orderBy: { id: 'asc' },
  });
  for (const sourceUser of accepted) {
    const { id } = sourceUser;
    try {
      await db.$transaction(async (tx) => {
        // Claimed under the transaction: a second run of the same job finds it completed and moves nothing.
        const { count } = await tx.importSourceUser.updateMany({
          where: { id, status: 'reassignment_in_progress' },
          data: { status: 'completed', reassignmentError: null },
        });
        if (!count || sourceUser.placeholderUserId === null) return;
        for (const move of CONTRIBUTIONS) await move(tx, sourceUser.placeholderUserId, sourceUser.reassignToUserId!);
      });
    } catch (error) {
      job.log.error({ err: error, sourceUserId: id }, 'placeholder reassignment failed');
      await db.importSourceUser.update({ where: { id }, data: { status: 'failed', reassignmentError: (error as Error).message.slice(0, 255) } });
    }
  }
}
