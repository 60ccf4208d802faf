-- AlterTable
ALTER TABLE "application_settings" ADD COLUMN     "max_decompressed_archive_size" INTEGER NOT NULL DEFAULT 256,
ADD COLUMN     "max_import_ndjson_row_size" INTEGER NOT NULL DEFAULT 50,
ADD COLUMN     "max_import_ndjson_rows" INTEGER NOT NULL DEFAULT 100000;
