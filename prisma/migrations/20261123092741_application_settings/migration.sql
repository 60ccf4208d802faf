-- CreateTable
CREATE TABLE "application_settings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "bulk_import_enabled" BOOLEAN NOT NULL DEFAULT false,
    "allow_local_requests_from_web_hooks_and_services" BOOLEAN NOT NULL DEFAULT false,
    "dns_rebinding_protection_enabled" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "application_settings_pkey" PRIMARY KEY ("id")
);

-- One row for the whole instance.
ALTER TABLE "application_settings" ADD CONSTRAINT "application_settings_single_row" CHECK ("id" = 1);
