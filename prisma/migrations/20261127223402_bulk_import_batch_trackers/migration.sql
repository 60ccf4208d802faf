-- AlterTable
ALTER TABLE "bulk_import_trackers" ADD COLUMN     "batched" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "bulk_import_batch_trackers" (
    "id" SERIAL NOT NULL,
    "tracker_id" INTEGER NOT NULL,
    "batch_number" INTEGER NOT NULL,
    "status" INTEGER NOT NULL DEFAULT 0,
    "imported_objects_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "bulk_import_batch_trackers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "bulk_import_batch_trackers_tracker_id_batch_number_key" ON "bulk_import_batch_trackers"("tracker_id", "batch_number");

-- AddForeignKey
ALTER TABLE "bulk_import_batch_trackers" ADD CONSTRAINT "bulk_import_batch_trackers_tracker_id_fkey" FOREIGN KEY ("tracker_id") REFERENCES "bulk_import_trackers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
