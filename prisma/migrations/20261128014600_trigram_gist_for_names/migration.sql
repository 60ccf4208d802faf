-- Substring search over names (`search=`, ILIKE '%x%') reads a GiST trigram index with a 256-byte
-- signature instead of GIN. A GIN trigram scan decodes the posting list of every trigram in the
-- query, so a search whose words are common ('crowd token 777' among 300,000 'crowd token N')
-- costs as much as the table, however few rows match; the GiST tree is descended only where a
-- node holds all the query's trigrams. Long text (descriptions) keeps GIN: its signatures would
-- fill up and match everything. bench/RESULTS.md has the figures. Prisma's schema declares these as
-- gist_trgm_ops: it cannot declare an operator class's parameters (siglen), nor does its diff compare them.

DROP INDEX "alerts_title_idx";
CREATE INDEX "alerts_title_idx" ON "alerts" USING GIST ("title" gist_trgm_ops(siglen=256));

DROP INDEX "alerts_service_idx";
CREATE INDEX "alerts_service_idx" ON "alerts" USING GIST ("service" gist_trgm_ops(siglen=256));

DROP INDEX "alerts_monitoring_tool_idx";
CREATE INDEX "alerts_monitoring_tool_idx" ON "alerts" USING GIST ("monitoring_tool" gist_trgm_ops(siglen=256));

DROP INDEX "epics_title_idx";
CREATE INDEX "epics_title_idx" ON "epics" USING GIST ("title" gist_trgm_ops(siglen=256));

DROP INDEX "import_source_users_source_name_idx";
CREATE INDEX "import_source_users_source_name_idx" ON "import_source_users" USING GIST ("source_name" gist_trgm_ops(siglen=256));

DROP INDEX "import_source_users_source_username_idx";
CREATE INDEX "import_source_users_source_username_idx" ON "import_source_users" USING GIST ("source_username" gist_trgm_ops(siglen=256));

DROP INDEX "labels_name_idx";
CREATE INDEX "labels_name_idx" ON "labels" USING GIST ("name" gist_trgm_ops(siglen=256));

DROP INDEX "milestones_title_idx";
CREATE INDEX "milestones_title_idx" ON "milestones" USING GIST ("title" gist_trgm_ops(siglen=256));

DROP INDEX "namespaces_name_idx";
CREATE INDEX "namespaces_name_idx" ON "namespaces" USING GIST ("name" gist_trgm_ops(siglen=256));

DROP INDEX "namespaces_path_idx";
CREATE INDEX "namespaces_path_idx" ON "namespaces" USING GIST ("path" gist_trgm_ops(siglen=256));

DROP INDEX "personal_access_tokens_name_idx";
CREATE INDEX "personal_access_tokens_name_idx" ON "personal_access_tokens" USING GIST ("name" gist_trgm_ops(siglen=256));

DROP INDEX "projects_name_idx";
CREATE INDEX "projects_name_idx" ON "projects" USING GIST ("name" gist_trgm_ops(siglen=256));

DROP INDEX "projects_path_idx";
CREATE INDEX "projects_path_idx" ON "projects" USING GIST ("path" gist_trgm_ops(siglen=256));

DROP INDEX "users_username_idx";
CREATE INDEX "users_username_idx" ON "users" USING GIST ("username" gist_trgm_ops(siglen=256));

DROP INDEX "users_name_idx";
CREATE INDEX "users_name_idx" ON "users" USING GIST ("name" gist_trgm_ops(siglen=256));
