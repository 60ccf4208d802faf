-- AlterTable
ALTER TABLE "todos" ADD COLUMN     "alert_id" INTEGER,
ADD COLUMN     "project_id" INTEGER,
ALTER COLUMN "group_id" DROP NOT NULL,
ALTER COLUMN "epic_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "alert_notes" (
    "id" SERIAL NOT NULL,
    "alert_id" INTEGER NOT NULL,
    "author_id" INTEGER,
    "body" TEXT NOT NULL,
    "system" BOOLEAN NOT NULL DEFAULT false,
    "system_action" VARCHAR(40),
    "discussion_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "alert_notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_notes_alert_id_id_idx" ON "alert_notes"("alert_id", "id");

-- CreateIndex
CREATE INDEX "todos_alert_id_idx" ON "todos"("alert_id");

-- AddForeignKey
ALTER TABLE "alert_notes" ADD CONSTRAINT "alert_notes_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_notes" ADD CONSTRAINT "alert_notes_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A to-do names exactly one target (Prisma does not model CHECK constraints).
ALTER TABLE "todos" ADD CONSTRAINT "todos_one_target" CHECK (num_nonnulls("epic_id", "alert_id") = 1);
