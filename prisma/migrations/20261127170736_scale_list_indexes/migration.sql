-- DropIndex
DROP INDEX "alerts_project_id_status_idx";

-- DropIndex
DROP INDEX "releases_project_id_released_at_idx";

-- CreateIndex
CREATE INDEX "access_requests_namespace_id_id_idx" ON "access_requests"("namespace_id", "id");

-- CreateIndex
CREATE INDEX "access_requests_project_id_id_idx" ON "access_requests"("project_id", "id");

-- CreateIndex
CREATE INDEX "alert_integrations_project_id_id_idx" ON "alert_integrations"("project_id", "id");

-- CreateIndex
CREATE INDEX "alerts_project_id_status_id_idx" ON "alerts"("project_id", "status", "id");

-- CreateIndex
CREATE INDEX "alerts_project_id_created_at_id_idx" ON "alerts"("project_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "alerts_project_id_updated_at_id_idx" ON "alerts"("project_id", "updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "alerts_project_id_started_at_id_idx" ON "alerts"("project_id", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "alerts_project_id_ended_at_id_idx" ON "alerts"("project_id", "ended_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "alerts_project_id_events_id_idx" ON "alerts"("project_id", "events" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "alerts_project_id_severity_id_idx" ON "alerts"("project_id", "severity", "id");

-- CreateIndex
CREATE INDEX "epics_group_id_created_at_id_idx" ON "epics"("group_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "epics_group_id_updated_at_id_idx" ON "epics"("group_id", "updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "epics_group_id_title_id_idx" ON "epics"("group_id", "title", "id");

-- CreateIndex
CREATE INDEX "import_source_users_namespace_id_id_idx" ON "import_source_users"("namespace_id", "id");

-- CreateIndex
CREATE INDEX "labels_project_id_name_id_idx" ON "labels"("project_id", "name", "id");

-- CreateIndex
CREATE INDEX "labels_group_id_name_id_idx" ON "labels"("group_id", "name", "id");

-- CreateIndex
CREATE INDEX "members_namespace_id_id_idx" ON "members"("namespace_id", "id");

-- CreateIndex
CREATE INDEX "members_project_id_id_idx" ON "members"("project_id", "id");

-- CreateIndex
CREATE INDEX "milestones_project_id_id_idx" ON "milestones"("project_id", "id");

-- CreateIndex
CREATE INDEX "milestones_group_id_id_idx" ON "milestones"("group_id", "id");

-- CreateIndex
CREATE INDEX "milestones_project_id_created_at_id_idx" ON "milestones"("project_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "milestones_group_id_created_at_id_idx" ON "milestones"("group_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "milestones_project_id_updated_at_id_idx" ON "milestones"("project_id", "updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "milestones_group_id_updated_at_id_idx" ON "milestones"("group_id", "updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "namespaces_name_id_idx" ON "namespaces"("name", "id");

-- CreateIndex
CREATE INDEX "namespaces_parent_id_name_id_idx" ON "namespaces"("parent_id", "name", "id");

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_id_idx" ON "personal_access_tokens"("user_id", "id");

-- CreateIndex
CREATE INDEX "projects_created_at_id_idx" ON "projects"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_updated_at_id_idx" ON "projects"("updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_last_activity_at_id_idx" ON "projects"("last_activity_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_name_id_idx" ON "projects"("name", "id");

-- CreateIndex
CREATE INDEX "projects_path_id_idx" ON "projects"("path", "id");

-- CreateIndex
CREATE INDEX "projects_namespace_id_created_at_id_idx" ON "projects"("namespace_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_namespace_id_updated_at_id_idx" ON "projects"("namespace_id", "updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_namespace_id_last_activity_at_id_idx" ON "projects"("namespace_id", "last_activity_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "projects_namespace_id_name_id_idx" ON "projects"("namespace_id", "name", "id");

-- CreateIndex
CREATE INDEX "projects_namespace_id_id_idx" ON "projects"("namespace_id", "id");

-- CreateIndex
CREATE INDEX "relation_exports_project_id_id_idx" ON "relation_exports"("project_id", "id");

-- CreateIndex
CREATE INDEX "releases_project_id_released_at_id_idx" ON "releases"("project_id", "released_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "releases_project_id_created_at_id_idx" ON "releases"("project_id", "created_at" DESC, "id" DESC);
