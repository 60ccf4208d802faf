-- CreateEnum
CREATE TYPE "ImportSourceUserStatus" AS ENUM ('pending_reassignment', 'awaiting_approval', 'reassignment_in_progress', 'rejected', 'failed', 'completed', 'keep_as_placeholder');

-- CreateTable
CREATE TABLE "relation_exports" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "relation" TEXT NOT NULL,
    "status" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "batched" BOOLEAN NOT NULL DEFAULT false,
    "batches_count" INTEGER NOT NULL DEFAULT 0,
    "total_objects_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "relation_exports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "relation_export_batches" (
    "id" SERIAL NOT NULL,
    "export_id" INTEGER NOT NULL,
    "batch_number" INTEGER NOT NULL,
    "status" INTEGER NOT NULL DEFAULT 0,
    "objects_count" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "relation_export_batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "relation_imports" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "relation" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'started',
    "objects_count" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "relation_imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_source_users" (
    "id" SERIAL NOT NULL,
    "namespace_id" INTEGER NOT NULL,
    "source_hostname" TEXT NOT NULL,
    "import_type" TEXT NOT NULL,
    "source_user_identifier" TEXT NOT NULL,
    "source_name" TEXT,
    "source_username" TEXT,
    "status" "ImportSourceUserStatus" NOT NULL DEFAULT 'pending_reassignment',
    "placeholder_user_id" INTEGER,
    "reassign_to_user_id" INTEGER,
    "reassigned_by_user_id" INTEGER,
    "reassignment_error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "import_source_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "namespace_import_users" (
    "namespace_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    CONSTRAINT "namespace_import_users_pkey" PRIMARY KEY ("namespace_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "relation_exports_project_id_user_id_relation_key" ON "relation_exports"("project_id", "user_id", "relation");

-- CreateIndex
CREATE UNIQUE INDEX "relation_export_batches_export_id_batch_number_key" ON "relation_export_batches"("export_id", "batch_number");

-- CreateIndex
CREATE INDEX "import_source_users_placeholder_user_id_idx" ON "import_source_users"("placeholder_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "import_source_users_namespace_id_source_hostname_import_typ_key" ON "import_source_users"("namespace_id", "source_hostname", "import_type", "source_user_identifier");

-- CreateIndex
CREATE UNIQUE INDEX "namespace_import_users_user_id_key" ON "namespace_import_users"("user_id");

-- AddForeignKey
ALTER TABLE "relation_exports" ADD CONSTRAINT "relation_exports_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "relation_exports" ADD CONSTRAINT "relation_exports_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "relation_export_batches" ADD CONSTRAINT "relation_export_batches_export_id_fkey" FOREIGN KEY ("export_id") REFERENCES "relation_exports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "relation_imports" ADD CONSTRAINT "relation_imports_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "relation_imports" ADD CONSTRAINT "relation_imports_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_source_users" ADD CONSTRAINT "import_source_users_namespace_id_fkey" FOREIGN KEY ("namespace_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_source_users" ADD CONSTRAINT "import_source_users_placeholder_user_id_fkey" FOREIGN KEY ("placeholder_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_source_users" ADD CONSTRAINT "import_source_users_reassign_to_user_id_fkey" FOREIGN KEY ("reassign_to_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_source_users" ADD CONSTRAINT "import_source_users_reassigned_by_user_id_fkey" FOREIGN KEY ("reassigned_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "namespace_import_users" ADD CONSTRAINT "namespace_import_users_namespace_id_fkey" FOREIGN KEY ("namespace_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "namespace_import_users" ADD CONSTRAINT "namespace_import_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
