-- CreateEnum
CREATE TYPE "PackageType" AS ENUM ('cargo', 'conan', 'generic', 'helm', 'maven', 'npm', 'nuget', 'pypi', 'terraform_module');

-- DropIndex
DROP INDEX "personal_access_tokens_user_id_idx";

-- AlterTable
ALTER TABLE "personal_access_tokens" ADD COLUMN     "description" TEXT,
ADD COLUMN     "previous_personal_access_token_id" INTEGER;

-- CreateTable
CREATE TABLE "access_requests" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "namespace_id" INTEGER,
    "project_id" INTEGER,
    "requested_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "access_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "package_protection_rules" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "package_name_pattern" VARCHAR(255) NOT NULL,
    "package_type" "PackageType" NOT NULL,
    "minimum_access_level_for_push" INTEGER,
    "minimum_access_level_for_delete" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "package_protection_rules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "access_requests_user_id_idx" ON "access_requests"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "access_requests_namespace_id_user_id_key" ON "access_requests"("namespace_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "access_requests_project_id_user_id_key" ON "access_requests"("project_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "package_protection_rules_project_id_package_type_package_na_key" ON "package_protection_rules"("project_id", "package_type", "package_name_pattern");

-- CreateIndex
CREATE UNIQUE INDEX "personal_access_tokens_previous_personal_access_token_id_key" ON "personal_access_tokens"("previous_personal_access_token_id");

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_impersonation_idx" ON "personal_access_tokens"("user_id", "impersonation");

-- AddForeignKey
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_namespace_id_fkey" FOREIGN KEY ("namespace_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "package_protection_rules" ADD CONSTRAINT "package_protection_rules_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "personal_access_tokens" ADD CONSTRAINT "personal_access_tokens_previous_personal_access_token_id_fkey" FOREIGN KEY ("previous_personal_access_token_id") REFERENCES "personal_access_tokens"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Hand-written: rules Prisma's schema language cannot state.
-- An access request belongs to exactly one group or project.
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_one_source" CHECK (num_nonnulls("namespace_id", "project_id") = 1);

-- A protection rule sets at least one minimum level, each one of GitLab's values for its action.
ALTER TABLE "package_protection_rules" ADD CONSTRAINT "package_protection_rules_some_level"
  CHECK ("minimum_access_level_for_push" IS NOT NULL OR "minimum_access_level_for_delete" IS NOT NULL);
ALTER TABLE "package_protection_rules" ADD CONSTRAINT "package_protection_rules_push_level"
  CHECK ("minimum_access_level_for_push" IN (40, 50, 60));
ALTER TABLE "package_protection_rules" ADD CONSTRAINT "package_protection_rules_delete_level"
  CHECK ("minimum_access_level_for_delete" IN (50, 60));
