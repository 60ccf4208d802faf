-- DropIndex
DROP INDEX "commit_statuses_pipeline_id_name_idx";

-- CreateIndex
CREATE INDEX "commit_statuses_pipeline_id_id_idx" ON "commit_statuses"("pipeline_id", "id");

-- CreateIndex
CREATE INDEX "commit_statuses_pipeline_id_name_id_idx" ON "commit_statuses"("pipeline_id", "name", "id");
