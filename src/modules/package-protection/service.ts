import type { PackageProtectionRule, PackageType, User } from '../../generated/prisma/client.ts';
import { AccessLevel } from '../../auth/access-levels.ts';
import { Policy, type ProjectWithNamespace } from '../../auth/policy.ts';
import { Viewer } from '../../auth/viewer.ts';
import type { Context } from '../../core/context.ts';
import { NotFoundError, RecordNotFoundError, UnauthorizedError, UnprocessableError } from '../../core/errors.ts';
import type { Listing } from '../../core/listing.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { featureEnabled, flagActor } from '../../flags/index.ts';
import { resolveProject, type ParentInput } from '../parents/parent.ts';
import { strictestForbiddingRule } from './store.ts';

export const PACKAGE_TYPES = [
  'cargo',
  'conan',
  'generic',
  'helm',
  'maven',
  'npm',
  'nuget',
  'pypi',
  'terraform_module',
] as const satisfies readonly PackageType[];

/** GitLab's names for the minimum levels; `admin` means instance administrators only. */
const ADMIN_LEVEL = 60;
export const PUSH_LEVELS = { maintainer: AccessLevel.MAINTAINER, owner: AccessLevel.OWNER, admin: ADMIN_LEVEL } as const;
export const DELETE_LEVELS = { owner: AccessLevel.OWNER, admin: ADMIN_LEVEL } as const;
export type PushLevel = keyof typeof PUSH_LEVELS;
export type DeleteLevel = keyof typeof DELETE_LEVELS;

export const levelName = (level: number | null) => (level === null ? null : (Object.keys(PUSH_LEVELS) as PushLevel[]).find((k) => PUSH_LEVELS[k] === level)!);

/** The feature flag that puts deletion rules in force; off by default. */
export const DELETE_RULES_FLAG = 'packages_protected_packages_delete';

/** Who manages rules: maintainers and owners of the project (GitLab's `admin_package`). */
const MANAGE_LEVEL = AccessLevel.MAINTAINER;

// A name of each type, where `*` may stand for any run of characters. GitLab's own check covers
// npm and PyPI; the others follow each registry's naming rules.
const NAME_CHARS = 'A-Za-z0-9._+*-';
const PATTERNS: Record<PackageType, { label: string; pattern: RegExp }> = {
  npm: { label: 'NPM', pattern: /^(?:\*|(?:@[A-Za-z0-9_.][A-Za-z0-9_.-]*\/)?[A-Za-z0-9._+*-]+)$/ },
  pypi: { label: 'PyPI', pattern: /^[A-Za-z0-9*](?:[A-Za-z0-9._*-]*[A-Za-z0-9*])?$/ },
  maven: { label: 'Maven', pattern: new RegExp(`^[${NAME_CHARS}]+(?:/[${NAME_CHARS}]+)*$`) },
  conan: { label: 'Conan', pattern: /^[A-Za-z0-9_*][A-Za-z0-9_+.*-]*$/ },
  generic: { label: 'generic', pattern: new RegExp(`^[${NAME_CHARS}]+$`) },
  helm: { label: 'Helm', pattern: /^[A-Za-z0-9*][A-Za-z0-9._*-]*$/ },
  nuget: { label: 'NuGet', pattern: new RegExp(`^[${NAME_CHARS}]+$`) },
  cargo: { label: 'Cargo', pattern: /^[A-Za-z0-9_*][A-Za-z0-9_*-]*$/ },
  terraform_module: { label: 'Terraform module', pattern: /^[a-z0-9*-]+\/[a-z0-9*-]+$/ },
};

export type RuleAttributes = {
  packageNamePattern: string;
  packageType: PackageType;
  minimumAccessLevelForPush: PushLevel | null;
  minimumAccessLevelForDelete: DeleteLevel | null;
};

/** GitLab's model errors for a rule, as its full messages, in its order. */
export function ruleProblems(rule: RuleAttributes): string[] {
  const problems: string[] = [];
  const pattern = rule.packageNamePattern;
  if (pattern.trim() === '') problems.push("Package name pattern can't be blank");
  else if (pattern.length > 255) problems.push('Package name pattern is too long (maximum is 255 characters)');
  else if (!PATTERNS[rule.packageType].pattern.test(pattern)) {
    problems.push(`Package name pattern should be a valid ${PATTERNS[rule.packageType].label} package name with optional wildcard characters.`);
  }
  if (rule.minimumAccessLevelForPush === null && rule.minimumAccessLevelForDelete === null) {
    problems.push('A rule must have at least a minimum access role for push or delete.');
  }
  return problems;
}

/** The 422 GitLab answers for a rule it cannot save: `{"message": {"error": [...]}}`. */
const unprocessable = (messages: string[]) => new UnprocessableError(messages.join(', '), { message: { error: messages } });

/** Whether deletion rules are in force for the project: the flag, asked per project as GitLab asks it. */
export function deleteRulesEnabled(ctx: Context, projectId: number): Promise<boolean> {
  return featureEnabled(ctx.deps, DELETE_RULES_FLAG, flagActor('Project', projectId));
}

async function requireManager(ctx: Context, project: ProjectWithNamespace) {
  await ctx.policy.requireProjectAccess(project, MANAGE_LEVEL);
}

/** GitLab authenticates these routes before it looks the project up: anonymous is 401, not 404. */
function requireSignedIn(ctx: Context) {
  if (!ctx.viewer.user) throw new UnauthorizedError();
}

export async function listRules(ctx: Context, project: ProjectWithNamespace): Promise<Listing<PackageProtectionRule>> {
  requireSignedIn(ctx);
  await requireManager(ctx, project);
  const where = { projectId: project.id };
  return {
    fetch: ({ offset, limit }) => ctx.db.packageProtectionRule.findMany({ where, orderBy: { id: 'asc' }, skip: offset, take: limit }),
    count: () => ctx.db.packageProtectionRule.count({ where, take: ctx.countLimit }),
  };
}

const columns = (rule: RuleAttributes) => ({
  packageNamePattern: rule.packageNamePattern,
  packageType: rule.packageType,
  minimumAccessLevelForPush: rule.minimumAccessLevelForPush === null ? null : PUSH_LEVELS[rule.minimumAccessLevelForPush],
  minimumAccessLevelForDelete: rule.minimumAccessLevelForDelete === null ? null : DELETE_LEVELS[rule.minimumAccessLevelForDelete],
});

/** Saves a rule or answers GitLab's 422; a pattern taken for the type is a unique-index violation. */
async function save(write: () => Promise<PackageProtectionRule>, rule: RuleAttributes): Promise<PackageProtectionRule> {
  const problems = ruleProblems(rule);
  if (problems.length) throw unprocessable(problems);
  return write().catch((error) => {
    if (isUniqueViolation(error)) throw unprocessable(['Package name pattern has already been taken']);
    throw error;
  });
}

export type RuleInput = {
  packageNamePattern?: string | null;
  packageType?: PackageType | null;
  /** Undefined keeps the current value, null clears it. */
  minimumAccessLevelForPush?: PushLevel | null;
  minimumAccessLevelForDelete?: DeleteLevel | null;
};

/**
 * While the deletion flag is off GitLab ignores a deletion level it is given: a new rule gets
 * none, an updated one keeps the one it had.
 */
async function withoutDisabledLevels(ctx: Context, projectId: number, input: RuleInput): Promise<RuleInput> {
  if (input.minimumAccessLevelForDelete === undefined || (await deleteRulesEnabled(ctx, projectId))) return input;
  const { minimumAccessLevelForDelete: _ignored, ...rest } = input;
  return rest;
}

export type CreateRuleInput = RuleInput & { packageNamePattern: string; packageType: PackageType };

export async function createRule(ctx: Context, projectRef: ParentInput, input: CreateRuleInput): Promise<PackageProtectionRule> {
  requireSignedIn(ctx);
  const project = await resolveProject(ctx, projectRef);
  await requireManager(ctx, project);
  const allowed = await withoutDisabledLevels(ctx, project.id, input);
  const rule: RuleAttributes = {
    packageNamePattern: input.packageNamePattern,
    packageType: input.packageType,
    minimumAccessLevelForPush: allowed.minimumAccessLevelForPush ?? null,
    minimumAccessLevelForDelete: allowed.minimumAccessLevelForDelete ?? null,
  };
  return save(() => ctx.db.packageProtectionRule.create({ data: { projectId: project.id, ...columns(rule) } }), rule);
}

/**
 * A rule by id, for a maintainer of its project. With a project (the REST path) the rule must be
 * that project's; without one (GraphQL's global id) the rule's own project is checked.
 */
export async function locateRule(
  ctx: Context,
  ruleId: number,
  projectRef?: ParentInput | null,
): Promise<{ rule: PackageProtectionRule; project: ProjectWithNamespace }> {
  requireSignedIn(ctx);
  if (projectRef && (projectRef.projectId != null || projectRef.projectPath != null)) {
    const project = await resolveProject(ctx, projectRef);
    await requireManager(ctx, project);
    const rule = await ctx.db.packageProtectionRule.findFirst({ where: { id: ruleId, projectId: project.id } });
    if (!rule) throw new RecordNotFoundError();
    return { rule, project };
  }
  const rule = await ctx.db.packageProtectionRule.findUnique({ where: { id: ruleId } });
  const project = rule && (await ctx.loaders.project.load(rule.projectId));
  if (!rule || !project || !(await ctx.policy.canReadProject(project))) throw new RecordNotFoundError();
  await requireManager(ctx, project);
  return { rule, project };
}

const attributesOf = (rule: PackageProtectionRule): RuleAttributes => ({
  packageNamePattern: rule.packageNamePattern,
  packageType: rule.packageType,
  minimumAccessLevelForPush: levelName(rule.minimumAccessLevelForPush) as PushLevel | null,
  minimumAccessLevelForDelete: levelName(rule.minimumAccessLevelForDelete) as DeleteLevel | null,
});

export async function updateRule(ctx: Context, ruleId: number, projectRef: ParentInput | null, input: RuleInput): Promise<PackageProtectionRule> {
  const { rule: current, project } = await locateRule(ctx, ruleId, projectRef);
  const allowed = await withoutDisabledLevels(ctx, project.id, input);
  const before = attributesOf(current);
  const rule: RuleAttributes = {
    packageNamePattern: allowed.packageNamePattern ?? before.packageNamePattern,
    packageType: allowed.packageType ?? before.packageType,
    minimumAccessLevelForPush: allowed.minimumAccessLevelForPush === undefined ? before.minimumAccessLevelForPush : allowed.minimumAccessLevelForPush,
    minimumAccessLevelForDelete: allowed.minimumAccessLevelForDelete === undefined ? before.minimumAccessLevelForDelete : allowed.minimumAccessLevelForDelete,
  };
  return save(() => ctx.db.packageProtectionRule.update({ where: { id: current.id }, data: columns(rule) }), rule);
}

export async function deleteRule(ctx: Context, ruleId: number, projectRef: ParentInput | null): Promise<PackageProtectionRule> {
  const { rule } = await locateRule(ctx, ruleId, projectRef);
  await ctx.db.packageProtectionRule.deleteMany({ where: { id: rule.id } });
  return rule;
}

export type PackageAction = 'push' | 'delete';

/** The answer to "may this push or delete happen": which rule forbids it, if any. */
export type ProtectionDecision = {
  protected: boolean;
  /** The strictest matching rule that asks for more than the user holds. */
  rule: PackageProtectionRule | null;
  /** The user's level in the project (60 for administrators). */
  accessLevel: number;
};

/**
 * For a package registry: does a protection rule of `project` forbid `user` (null: anonymous)
 * to push or delete the package `packageName` of `packageType`? A rule matches when its pattern
 * matches the whole name, case-insensitively, `*` standing for any run of characters; it forbids
 * when its minimum level for the action is above the user's level. Administrators pass every
 * rule; deletion rules are in force only while their feature flag is on. One query.
 */
export async function packageProtectionFor(
  ctx: Context,
  check: { project: ProjectWithNamespace; user: User | null; packageName: string; packageType: PackageType; action: PackageAction },
): Promise<ProtectionDecision> {
  // The viewer's own policy when asking about themselves (a CI job token stays bound to its project).
  const policy = (check.user?.id ?? null) === ctx.viewer.userId ? ctx.policy : new Policy(ctx.deps.sql, new Viewer(check.user, null));
  const accessLevel = check.user?.isAdmin ? ADMIN_LEVEL : await policy.projectAccessLevel(check.project);
  const inForce = check.action === 'push' || (await deleteRulesEnabled(ctx, check.project.id));
  if (!inForce || accessLevel >= ADMIN_LEVEL) return { protected: false, rule: null, accessLevel };
  const rule = await strictestForbiddingRule(ctx.db, {
    projectId: check.project.id,
    packageName: check.packageName,
    packageType: check.packageType,
    action: check.action,
    accessLevel,
  });
  return { protected: Boolean(rule), rule, accessLevel };
}

/** The user a protection question is about: the viewer, or (for maintainers) anyone. */
export async function protectionSubject(ctx: Context, project: ProjectWithNamespace, userId: number | null | undefined): Promise<User | null> {
  if (userId == null || userId === ctx.viewer.userId) return ctx.viewer.user;
  await requireManager(ctx, project);
  const user = await ctx.loaders.user.load(userId);
  if (!user) throw new NotFoundError('User');
  return user;
}
