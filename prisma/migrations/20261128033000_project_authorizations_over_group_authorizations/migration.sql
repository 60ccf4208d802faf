-- A project's authorizations are its own members' and the group levels of its namespace. Which
-- groups grant a level in a namespace (its ancestors, and the groups shared with them) is defined
-- once, by `group_authorizations`; this view had its own copy of both joins.
CREATE OR REPLACE VIEW "project_authorizations" AS
SELECT m."user_id", m."project_id", m."access_level"
FROM "members" m
WHERE m."project_id" IS NOT NULL
  AND (m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date)
UNION ALL
SELECT a."user_id", p."id" AS "project_id", a."access_level"
FROM "projects" p
JOIN "group_authorizations" a ON a."namespace_id" = p."namespace_id";
