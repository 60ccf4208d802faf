-- CreateEnum
CREATE TYPE "EpicState" AS ENUM ('opened', 'closed');

-- CreateEnum
CREATE TYPE "TodoState" AS ENUM ('pending', 'done');

-- CreateTable
CREATE TABLE "epics" (
    "id" SERIAL NOT NULL,
    "group_id" INTEGER NOT NULL,
    "iid" INTEGER NOT NULL,
    "parent_id" INTEGER,
    "author_id" INTEGER,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "state" "EpicState" NOT NULL DEFAULT 'opened',
    "confidential" BOOLEAN NOT NULL DEFAULT false,
    "color" TEXT NOT NULL DEFAULT '#1068BF',
    "start_date_is_fixed" BOOLEAN NOT NULL DEFAULT false,
    "start_date_fixed" DATE,
    "due_date_is_fixed" BOOLEAN NOT NULL DEFAULT false,
    "due_date_fixed" DATE,
    "closed_at" TIMESTAMP(3),
    "closed_by_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "epics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "epic_labels" (
    "epic_id" INTEGER NOT NULL,
    "label_id" INTEGER NOT NULL,

    CONSTRAINT "epic_labels_pkey" PRIMARY KEY ("epic_id","label_id")
);

-- CreateTable
CREATE TABLE "award_emoji" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "epic_id" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "award_emoji_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "epic_subscriptions" (
    "epic_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "subscribed" BOOLEAN NOT NULL,

    CONSTRAINT "epic_subscriptions_pkey" PRIMARY KEY ("epic_id","user_id")
);

-- CreateTable
CREATE TABLE "todos" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "author_id" INTEGER,
    "group_id" INTEGER NOT NULL,
    "epic_id" INTEGER NOT NULL,
    "action" TEXT NOT NULL DEFAULT 'marked',
    "state" "TodoState" NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "todos_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "epics_parent_id_idx" ON "epics"("parent_id");

-- CreateIndex
CREATE INDEX "epics_author_id_idx" ON "epics"("author_id");

-- CreateIndex
CREATE UNIQUE INDEX "epics_group_id_iid_key" ON "epics"("group_id", "iid");

-- CreateIndex
CREATE INDEX "epic_labels_label_id_idx" ON "epic_labels"("label_id");

-- CreateIndex
CREATE INDEX "award_emoji_user_id_name_idx" ON "award_emoji"("user_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "award_emoji_epic_id_user_id_name_key" ON "award_emoji"("epic_id", "user_id", "name");

-- CreateIndex
CREATE INDEX "todos_user_id_state_idx" ON "todos"("user_id", "state");

-- CreateIndex
CREATE INDEX "todos_epic_id_idx" ON "todos"("epic_id");

-- AddForeignKey
ALTER TABLE "epics" ADD CONSTRAINT "epics_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epics" ADD CONSTRAINT "epics_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "epics"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epics" ADD CONSTRAINT "epics_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epics" ADD CONSTRAINT "epics_closed_by_id_fkey" FOREIGN KEY ("closed_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epic_labels" ADD CONSTRAINT "epic_labels_epic_id_fkey" FOREIGN KEY ("epic_id") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epic_labels" ADD CONSTRAINT "epic_labels_label_id_fkey" FOREIGN KEY ("label_id") REFERENCES "labels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_epic_id_fkey" FOREIGN KEY ("epic_id") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epic_subscriptions" ADD CONSTRAINT "epic_subscriptions_epic_id_fkey" FOREIGN KEY ("epic_id") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epic_subscriptions" ADD CONSTRAINT "epic_subscriptions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_epic_id_fkey" FOREIGN KEY ("epic_id") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;
