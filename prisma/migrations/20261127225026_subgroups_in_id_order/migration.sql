-- CreateIndex
CREATE INDEX "namespaces_parent_id_kind_id_idx" ON "namespaces"("parent_id", "kind", "id");
