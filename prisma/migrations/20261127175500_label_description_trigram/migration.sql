-- Label search reads the description too (searchIn: TITLE, DESCRIPTION, as GitLab).
CREATE INDEX "labels_description_idx" ON "labels" USING GIN ("description" gin_trgm_ops);
