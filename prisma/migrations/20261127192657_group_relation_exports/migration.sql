-- AlterTable
ALTER TABLE "relation_exports" ADD COLUMN     "group_id" INTEGER,
ALTER COLUMN "project_id" DROP NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "relation_exports_group_id_user_id_relation_key" ON "relation_exports"("group_id", "user_id", "relation");

-- AddForeignKey
ALTER TABLE "relation_exports" ADD CONSTRAINT "relation_exports_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A relation export belongs to a project or to a group (GitLab's portable), never both, never neither.
ALTER TABLE "relation_exports" ADD CONSTRAINT "relation_exports_one_portable" CHECK (("project_id" IS NULL) <> ("group_id" IS NULL));
