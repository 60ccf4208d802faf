-- DropIndex
DROP INDEX "alerts_project_id_severity_id_idx";

-- DropIndex
DROP INDEX "alerts_project_id_status_id_idx";

-- DropIndex
DROP INDEX "ci_pipelines_project_id_sha_idx";

-- DropIndex
DROP INDEX "todos_user_id_state_idx";

-- CreateIndex
CREATE INDEX "alerts_project_id_status_id_idx" ON "alerts"("project_id", "status", "id" DESC);

-- CreateIndex
CREATE INDEX "alerts_project_id_severity_id_idx" ON "alerts"("project_id", "severity", "id" DESC);

-- CreateIndex
CREATE INDEX "ci_pipelines_project_id_sha_id_idx" ON "ci_pipelines"("project_id", "sha", "id" DESC);

-- CreateIndex
CREATE INDEX "epics_group_id_state_created_at_id_idx" ON "epics"("group_id", "state", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "import_source_users_namespace_id_source_name_id_idx" ON "import_source_users"("namespace_id", "source_name", "id");

-- CreateIndex
CREATE INDEX "import_source_users_namespace_id_status_id_idx" ON "import_source_users"("namespace_id", "status", "id");

-- CreateIndex
CREATE INDEX "milestones_project_id_due_date_id_idx" ON "milestones"("project_id", "due_date", "id" DESC);

-- CreateIndex
CREATE INDEX "milestones_group_id_due_date_id_idx" ON "milestones"("group_id", "due_date", "id" DESC);

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_created_at_id_idx" ON "personal_access_tokens"("user_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_name_id_idx" ON "personal_access_tokens"("user_id", "name", "id");

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_expires_at_id_idx" ON "personal_access_tokens"("user_id", "expires_at", "id");

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_last_used_at_id_idx" ON "personal_access_tokens"("user_id", "last_used_at", "id");

-- CreateIndex
CREATE INDEX "todos_user_id_state_id_idx" ON "todos"("user_id", "state", "id" DESC);
