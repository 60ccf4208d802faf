-- SOURCE_NAME_DESC puts users without a source name last (NULLS LAST), as the statement orders them;
-- Prisma declares the index as DESC (its diff does not compare the NULLS order).

-- CreateIndex
CREATE INDEX "import_source_users_namespace_id_source_name_desc_id_idx" ON "import_source_users"("namespace_id", "source_name" DESC NULLS LAST, "id" DESC);
