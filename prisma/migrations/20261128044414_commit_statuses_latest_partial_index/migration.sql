-- The latest statuses of a pipeline (not retried) get a partial index of exactly their rows instead
-- of (pipeline_id, retried, id): on a table whose pages are not yet all-visible, that index and
-- (pipeline_id, id) under a filter cost the planner about the same, and it chose either.

-- DropIndex
DROP INDEX "commit_statuses_pipeline_id_retried_id_idx";

-- CreateIndex
CREATE INDEX "commit_statuses_latest_pipeline_id_id_idx" ON "commit_statuses"("pipeline_id", "id") WHERE (retried = false);
