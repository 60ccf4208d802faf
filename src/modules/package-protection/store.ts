import type { Db } from '../../db/client.ts';
import { selectList } from '../../db/rows.ts';
import { Prisma, type PackageProtectionRule, type PackageType } from '../../generated/prisma/client.ts';
import type { PackageAction } from './service.ts';

const RULE_COLUMNS = Prisma.raw(selectList('PackageProtectionRule', 'r'));

/** SQL LIKE pattern of a rule pattern: `%`, `_` and `\` are literal, `*` is the wildcard. */
const LIKE_OF_PATTERN = Prisma.sql`replace(replace(replace(replace(r.package_name_pattern, '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%')`;

const LEVEL_COLUMN: Record<PackageAction, Prisma.Sql> = {
  push: Prisma.raw('r.minimum_access_level_for_push'),
  delete: Prisma.raw('r.minimum_access_level_for_delete'),
};

/**
 * The project's rule for packages of `packageType` whose pattern matches the whole name,
 * case-insensitively, and whose minimum level for the action is above `accessLevel`: the
 * strictest, null when none. One statement.
 */
export async function strictestForbiddingRule(
  db: Db,
  check: { projectId: number; packageName: string; packageType: PackageType; action: PackageAction; accessLevel: number },
): Promise<PackageProtectionRule | null> {
  const column = LEVEL_COLUMN[check.action];
  const [rule] = await db.$queryRaw<PackageProtectionRule[]>`
    SELECT ${RULE_COLUMNS}
    FROM package_protection_rules r
    WHERE r.project_id = ${check.projectId}
      AND r.package_type = ${check.packageType}::"PackageType"
      AND ${check.packageName} ILIKE ${LIKE_OF_PATTERN}
      AND ${column} > ${check.accessLevel}
    ORDER BY ${column} DESC, r.id ASC
    LIMIT 1`;
  return rule ?? null;
}
