-- AlterTable
ALTER TABLE "bulk_import_entities" ADD COLUMN     "source_xid" INTEGER;

-- CreateTable
CREATE TABLE "bulk_import_epic_links" (
    "id" SERIAL NOT NULL,
    "bulk_import_id" INTEGER NOT NULL,
    "child_epic_id" INTEGER NOT NULL,
    "parent_group_xid" INTEGER,
    "parent_iid" INTEGER NOT NULL,

    CONSTRAINT "bulk_import_epic_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "bulk_import_epic_links_child_epic_id_key" ON "bulk_import_epic_links"("child_epic_id");

-- CreateIndex
CREATE INDEX "bulk_import_epic_links_bulk_import_id_id_idx" ON "bulk_import_epic_links"("bulk_import_id", "id");

-- AddForeignKey
ALTER TABLE "bulk_import_epic_links" ADD CONSTRAINT "bulk_import_epic_links_bulk_import_id_fkey" FOREIGN KEY ("bulk_import_id") REFERENCES "bulk_imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
