-- Who reaches a group through an unexpired membership of the group or of a group above it (one row
-- per membership), and which groups a user sees because they are a member somewhere below them (of
-- a subgroup, or of a project in it). Group list filters read them as EXISTS (... WHERE
-- namespace_id = n.id AND user_id = $1), so their SQL does not grow with the viewer's memberships.
CREATE VIEW "group_authorizations" AS
SELECT m."user_id", n."id" AS "namespace_id", m."access_level"
FROM "namespaces" n
JOIN "members" m ON m."namespace_id" = ANY (n."traversal_ids")
WHERE m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date;

CREATE VIEW "group_memberships_below" AS
SELECT m."user_id", a."id" AS "namespace_id"
FROM "members" m
LEFT JOIN "namespaces" g ON g."id" = m."namespace_id"
LEFT JOIN "projects" p ON p."id" = m."project_id"
LEFT JOIN "namespaces" pn ON pn."id" = p."namespace_id"
CROSS JOIN LATERAL unnest(COALESCE(g."traversal_ids", pn."traversal_ids")) AS a("id")
WHERE m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date;
