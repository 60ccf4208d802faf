-- GitLab's `retried` on commit statuses: a status replaced by a newer one of the same name in its
-- pipeline. Lists and counts of the latest statuses read (pipeline_id, retried, id) instead of
-- probing each status read for a newer one (a bounded count probed 10,001 of them).

-- AlterTable
ALTER TABLE "commit_statuses" ADD COLUMN     "retried" BOOLEAN NOT NULL DEFAULT false;

-- The statuses already replaced.
UPDATE "commit_statuses" s SET "retried" = true
 WHERE EXISTS (SELECT 1 FROM "commit_statuses" n WHERE n."pipeline_id" = s."pipeline_id" AND n."name" = s."name" AND n."id" > s."id");

-- CreateIndex
CREATE INDEX "commit_statuses_pipeline_id_retried_id_idx" ON "commit_statuses"("pipeline_id", "retried", "id");
