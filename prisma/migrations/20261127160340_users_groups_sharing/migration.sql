-- CreateEnum
CREATE TYPE "UserAvailability" AS ENUM ('not_set', 'busy');

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "UserState" ADD VALUE 'deactivated';
ALTER TYPE "UserState" ADD VALUE 'banned';
ALTER TYPE "UserState" ADD VALUE 'ldap_blocked';

-- AlterTable
ALTER TABLE "namespaces" ADD COLUMN     "avatar" TEXT;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "avatar" TEXT;

-- CreateTable
CREATE TABLE "group_group_links" (
    "id" SERIAL NOT NULL,
    "shared_group_id" INTEGER NOT NULL,
    "shared_with_group_id" INTEGER NOT NULL,
    "group_access" INTEGER NOT NULL,
    "expires_at" DATE,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "group_group_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_statuses" (
    "user_id" INTEGER NOT NULL,
    "emoji" TEXT NOT NULL DEFAULT 'speech_balloon',
    "message" TEXT,
    "availability" "UserAvailability" NOT NULL DEFAULT 'not_set',
    "clear_status_at" TIMESTAMP(3),

    CONSTRAINT "user_statuses_pkey" PRIMARY KEY ("user_id")
);

-- CreateIndex
CREATE INDEX "group_group_links_shared_with_group_id_idx" ON "group_group_links"("shared_with_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "group_group_links_shared_group_id_shared_with_group_id_key" ON "group_group_links"("shared_group_id", "shared_with_group_id");

-- AddForeignKey
ALTER TABLE "group_group_links" ADD CONSTRAINT "group_group_links_shared_group_id_fkey" FOREIGN KEY ("shared_group_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_group_links" ADD CONSTRAINT "group_group_links_shared_with_group_id_fkey" FOREIGN KEY ("shared_with_group_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_statuses" ADD CONSTRAINT "user_statuses_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Group sharing grants access: the members of the shared-with group (direct, or through a group
-- above it) reach the shared group, its subgroups and their projects with the lower of their own
-- level and the link's group_access, while neither the link nor the membership has expired.
CREATE OR REPLACE VIEW "project_authorizations" AS
SELECT m."user_id", m."project_id", m."access_level"
FROM "members" m
WHERE m."project_id" IS NOT NULL
  AND (m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date)
UNION ALL
SELECT m."user_id", p."id" AS "project_id", m."access_level"
FROM "projects" p
JOIN "namespaces" n ON n."id" = p."namespace_id"
JOIN "members" m ON m."namespace_id" = ANY (n."traversal_ids")
WHERE m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date
UNION ALL
SELECT m."user_id", p."id" AS "project_id", LEAST(m."access_level", l."group_access") AS "access_level"
FROM "projects" p
JOIN "namespaces" n ON n."id" = p."namespace_id"
JOIN "group_group_links" l ON l."shared_group_id" = ANY (n."traversal_ids")
JOIN "namespaces" w ON w."id" = l."shared_with_group_id"
JOIN "members" m ON m."namespace_id" = ANY (w."traversal_ids")
WHERE (l."expires_at" IS NULL OR l."expires_at" >= (now() AT TIME ZONE 'UTC')::date)
  AND (m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date);

CREATE OR REPLACE VIEW "group_authorizations" AS
SELECT m."user_id", n."id" AS "namespace_id", m."access_level"
FROM "namespaces" n
JOIN "members" m ON m."namespace_id" = ANY (n."traversal_ids")
WHERE m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date
UNION ALL
SELECT m."user_id", n."id" AS "namespace_id", LEAST(m."access_level", l."group_access") AS "access_level"
FROM "namespaces" n
JOIN "group_group_links" l ON l."shared_group_id" = ANY (n."traversal_ids")
JOIN "namespaces" w ON w."id" = l."shared_with_group_id"
JOIN "members" m ON m."namespace_id" = ANY (w."traversal_ids")
WHERE (l."expires_at" IS NULL OR l."expires_at" >= (now() AT TIME ZONE 'UTC')::date)
  AND (m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date);

-- A group shared with a user's group is seen with its parents, as a membership below them is.
CREATE OR REPLACE VIEW "group_memberships_below" AS
SELECT m."user_id", a."id" AS "namespace_id"
FROM "members" m
LEFT JOIN "namespaces" g ON g."id" = m."namespace_id"
LEFT JOIN "projects" p ON p."id" = m."project_id"
LEFT JOIN "namespaces" pn ON pn."id" = p."namespace_id"
CROSS JOIN LATERAL unnest(COALESCE(g."traversal_ids", pn."traversal_ids")) AS a("id")
WHERE m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date
UNION ALL
SELECT m."user_id", a."id" AS "namespace_id"
FROM "group_group_links" l
JOIN "namespaces" s ON s."id" = l."shared_group_id"
JOIN "namespaces" w ON w."id" = l."shared_with_group_id"
JOIN "members" m ON m."namespace_id" = ANY (w."traversal_ids")
CROSS JOIN LATERAL unnest(s."traversal_ids") AS a("id")
WHERE (l."expires_at" IS NULL OR l."expires_at" >= (now() AT TIME ZONE 'UTC')::date)
  AND (m."expires_at" IS NULL OR m."expires_at" >= (now() AT TIME ZONE 'UTC')::date);
