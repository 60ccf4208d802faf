-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "topics" TEXT[] DEFAULT ARRAY[]::TEXT[];
