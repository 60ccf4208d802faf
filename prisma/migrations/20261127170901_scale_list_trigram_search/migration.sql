-- Search (ILIKE '%x%') through trigram indexes, as GitLab does. pg_trgm is a trusted extension
-- (PostgreSQL 13+): the database's owner, or any role with CREATE on it, may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "alerts_title_idx" ON "alerts" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "alerts_description_idx" ON "alerts" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "alerts_service_idx" ON "alerts" USING GIN ("service" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "alerts_monitoring_tool_idx" ON "alerts" USING GIN ("monitoring_tool" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "epics_title_idx" ON "epics" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "epics_description_idx" ON "epics" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "import_source_users_source_name_idx" ON "import_source_users" USING GIN ("source_name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "import_source_users_source_username_idx" ON "import_source_users" USING GIN ("source_username" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "labels_name_idx" ON "labels" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "milestones_title_idx" ON "milestones" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "milestones_description_idx" ON "milestones" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "namespaces_name_idx" ON "namespaces" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "namespaces_path_idx" ON "namespaces" USING GIN ("path" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "namespaces_full_path_idx" ON "namespaces" USING GIN ("full_path" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "personal_access_tokens_name_idx" ON "personal_access_tokens" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "projects_name_idx" ON "projects" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "projects_path_idx" ON "projects" USING GIN ("path" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "projects_description_idx" ON "projects" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "users_username_idx" ON "users" USING GIN ("username" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "users_name_idx" ON "users" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "users_email_idx" ON "users" USING GIN ("email" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "alerts_hosts_idx" ON "alerts" USING GIN ("hosts");
