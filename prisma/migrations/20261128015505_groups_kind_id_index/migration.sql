-- The administrator's list of every group counts (up to 10,001) through this index alone.

-- CreateIndex
CREATE INDEX "namespaces_kind_id_idx" ON "namespaces"("kind", "id");
