-- CreateEnum
CREATE TYPE "ReleaseLinkType" AS ENUM ('other', 'runbook', 'image', 'package');

-- CreateTable
CREATE TABLE "releases" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "tag" TEXT NOT NULL,
    "name" TEXT,
    "description" TEXT NOT NULL DEFAULT '',
    "author_id" INTEGER,
    "sha" TEXT,
    "released_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "releases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "release_links" (
    "id" SERIAL NOT NULL,
    "release_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "filepath" TEXT,
    "link_type" "ReleaseLinkType" NOT NULL DEFAULT 'other',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "release_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "release_milestones" (
    "release_id" INTEGER NOT NULL,
    "milestone_id" INTEGER NOT NULL,

    CONSTRAINT "release_milestones_pkey" PRIMARY KEY ("release_id","milestone_id")
);

-- CreateTable
CREATE TABLE "release_evidences" (
    "id" SERIAL NOT NULL,
    "release_id" INTEGER NOT NULL,
    "summary" JSONB NOT NULL,
    "sha" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "release_evidences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job_tokens" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "releases_project_id_released_at_idx" ON "releases"("project_id", "released_at");

-- CreateIndex
CREATE UNIQUE INDEX "releases_project_id_tag_key" ON "releases"("project_id", "tag");

-- CreateIndex
CREATE UNIQUE INDEX "release_links_release_id_name_key" ON "release_links"("release_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "release_links_release_id_url_key" ON "release_links"("release_id", "url");

-- CreateIndex
CREATE UNIQUE INDEX "release_links_release_id_filepath_key" ON "release_links"("release_id", "filepath");

-- CreateIndex
CREATE INDEX "release_milestones_milestone_id_idx" ON "release_milestones"("milestone_id");

-- CreateIndex
CREATE INDEX "release_evidences_release_id_idx" ON "release_evidences"("release_id");

-- CreateIndex
CREATE UNIQUE INDEX "job_tokens_digest_key" ON "job_tokens"("digest");

-- CreateIndex
CREATE INDEX "job_tokens_project_id_idx" ON "job_tokens"("project_id");

-- AddForeignKey
ALTER TABLE "releases" ADD CONSTRAINT "releases_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "releases" ADD CONSTRAINT "releases_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_links" ADD CONSTRAINT "release_links_release_id_fkey" FOREIGN KEY ("release_id") REFERENCES "releases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_milestones" ADD CONSTRAINT "release_milestones_release_id_fkey" FOREIGN KEY ("release_id") REFERENCES "releases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_milestones" ADD CONSTRAINT "release_milestones_milestone_id_fkey" FOREIGN KEY ("milestone_id") REFERENCES "milestones"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_evidences" ADD CONSTRAINT "release_evidences_release_id_fkey" FOREIGN KEY ("release_id") REFERENCES "releases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job_tokens" ADD CONSTRAINT "job_tokens_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job_tokens" ADD CONSTRAINT "job_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
