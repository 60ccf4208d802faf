-- Who reaches a project through an unexpired membership: of the project itself, or of a group on
-- the project's namespace path (traversal_ids, root first). Filters read it as
-- EXISTS (... WHERE project_id = p.id AND user_id = $1): both branches are index lookups
-- (members(project_id, user_id), members(namespace_id, user_id) for each ancestor).
CREATE VIEW "project_authorizations" AS
SELECT m."user_id", m."project_id", m."access_level"
FROM "members" m
WHERE m."project_id" IS NOT NULL
  AND (m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date)
UNION ALL
SELECT m."user_id", p."id" AS "project_id", m."access_level"
FROM "projects" p
JOIN "namespaces" n ON n."id" = p."namespace_id"
JOIN "members" m ON m."namespace_id" = ANY (n."traversal_ids")
WHERE m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date;
