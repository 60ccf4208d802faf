-- Every reader pins project_authorizations to one project (a.project_id = p.id). The branches through
-- groups read that project's namespace through a scalar subquery rather than a join: joined, the planner
-- may merge-join `namespaces` in id order against the project's namespace and, for a project of a
-- newly created group, walk every namespace first (bench/RESULTS.md, issue 42).
CREATE OR REPLACE VIEW "project_authorizations" AS
SELECT m."user_id", m."project_id", m."access_level"
FROM "members" m
WHERE m."project_id" IS NOT NULL
  AND (m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date)
UNION ALL
SELECT m."user_id", p."id" AS "project_id", m."access_level"
FROM "projects" p
JOIN "members" m ON m."namespace_id" = ANY ((SELECT n."traversal_ids" FROM "namespaces" n WHERE n."id" = p."namespace_id")::int[])
WHERE m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date
UNION ALL
SELECT m."user_id", p."id" AS "project_id", LEAST(m."access_level", l."group_access") AS "access_level"
FROM "projects" p
JOIN "group_group_links" l ON l."shared_group_id" = ANY ((SELECT n."traversal_ids" FROM "namespaces" n WHERE n."id" = p."namespace_id")::int[])
JOIN "namespaces" w ON w."id" = l."shared_with_group_id"
JOIN "members" m ON m."namespace_id" = ANY (w."traversal_ids")
WHERE (l."expires_at" IS NULL OR l."expires_at" >= (now() AT TIME ZONE 'UTC')::date)
  AND (m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date);
