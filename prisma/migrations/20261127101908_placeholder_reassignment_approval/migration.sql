-- AlterTable
ALTER TABLE "application_settings" ADD COLUMN     "allow_bypass_placeholder_confirmation" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "import_source_users" ADD COLUMN     "reassignment_token_digest" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "import_source_users_reassignment_token_digest_key" ON "import_source_users"("reassignment_token_digest");
