-- Descending sorts put rows without a date last (GitLab: NULLS LAST): the indexes say so, which
-- Prisma cannot declare (its schema has them as DESC; its diff does not compare the NULLS order).

-- CreateIndex
CREATE INDEX "milestones_project_id_due_date_desc_id_idx" ON "milestones"("project_id", "due_date" DESC NULLS LAST, "id" DESC);

-- CreateIndex
CREATE INDEX "milestones_group_id_due_date_desc_id_idx" ON "milestones"("group_id", "due_date" DESC NULLS LAST, "id" DESC);

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_expires_at_desc_id_idx" ON "personal_access_tokens"("user_id", "expires_at" DESC NULLS LAST, "id" DESC);

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_last_used_at_desc_id_idx" ON "personal_access_tokens"("user_id", "last_used_at" DESC NULLS LAST, "id" DESC);

-- CreateIndex
CREATE INDEX "personal_access_tokens_created_at_id_idx" ON "personal_access_tokens"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "personal_access_tokens_name_id_idx" ON "personal_access_tokens"("name", "id");

-- CreateIndex
CREATE INDEX "personal_access_tokens_expires_at_id_idx" ON "personal_access_tokens"("expires_at", "id");

-- CreateIndex
CREATE INDEX "personal_access_tokens_last_used_at_id_idx" ON "personal_access_tokens"("last_used_at", "id");

-- CreateIndex
CREATE INDEX "personal_access_tokens_expires_at_desc_id_idx" ON "personal_access_tokens"("expires_at" DESC NULLS LAST, "id" DESC);

-- CreateIndex
CREATE INDEX "personal_access_tokens_last_used_at_desc_id_idx" ON "personal_access_tokens"("last_used_at" DESC NULLS LAST, "id" DESC);
