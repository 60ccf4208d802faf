-- AlterTable
ALTER TABLE "epics" ADD COLUMN     "relative_position" INTEGER;
