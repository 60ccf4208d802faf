-- CreateTable
CREATE TABLE "bulk_imports" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "status" INTEGER NOT NULL DEFAULT 0,
    "source_type" TEXT NOT NULL DEFAULT 'gitlab',
    "source_url" TEXT NOT NULL,
    "access_token_encrypted" TEXT NOT NULL,
    "source_version" TEXT,
    "has_failures" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "bulk_imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bulk_import_entities" (
    "id" SERIAL NOT NULL,
    "bulk_import_id" INTEGER NOT NULL,
    "parent_id" INTEGER,
    "source_type" TEXT NOT NULL,
    "source_full_path" TEXT NOT NULL,
    "destination_slug" TEXT NOT NULL,
    "destination_name" TEXT NOT NULL,
    "destination_namespace" TEXT NOT NULL,
    "namespace_id" INTEGER,
    "project_id" INTEGER,
    "status" INTEGER NOT NULL DEFAULT 0,
    "migrate_projects" BOOLEAN NOT NULL DEFAULT true,
    "migrate_memberships" BOOLEAN NOT NULL DEFAULT true,
    "has_failures" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "bulk_import_entities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bulk_import_trackers" (
    "id" SERIAL NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "relation" TEXT NOT NULL,
    "stage" INTEGER NOT NULL,
    "status" INTEGER NOT NULL DEFAULT 0,
    "objects_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "bulk_import_trackers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bulk_import_failures" (
    "id" SERIAL NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "relation" TEXT NOT NULL,
    "pipeline_step" TEXT NOT NULL,
    "exception_class" TEXT NOT NULL,
    "exception_message" TEXT NOT NULL,
    "correlation_id_value" TEXT,
    "source_url" TEXT,
    "source_title" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bulk_import_failures_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bulk_imports_user_id_id_idx" ON "bulk_imports"("user_id", "id");

-- CreateIndex
CREATE INDEX "bulk_import_entities_bulk_import_id_id_idx" ON "bulk_import_entities"("bulk_import_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "bulk_import_entities_bulk_import_id_source_type_source_full_key" ON "bulk_import_entities"("bulk_import_id", "source_type", "source_full_path");

-- CreateIndex
CREATE UNIQUE INDEX "bulk_import_trackers_entity_id_relation_key" ON "bulk_import_trackers"("entity_id", "relation");

-- CreateIndex
CREATE INDEX "bulk_import_failures_entity_id_id_idx" ON "bulk_import_failures"("entity_id", "id");

-- AddForeignKey
ALTER TABLE "bulk_import_entities" ADD CONSTRAINT "bulk_import_entities_bulk_import_id_fkey" FOREIGN KEY ("bulk_import_id") REFERENCES "bulk_imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bulk_import_trackers" ADD CONSTRAINT "bulk_import_trackers_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "bulk_import_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bulk_import_failures" ADD CONSTRAINT "bulk_import_failures_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "bulk_import_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
