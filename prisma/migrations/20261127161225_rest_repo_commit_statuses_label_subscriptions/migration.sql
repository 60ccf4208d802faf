-- CreateTable
CREATE TABLE "ci_pipelines" (
    "id" SERIAL NOT NULL,
    "iid" INTEGER NOT NULL,
    "project_id" INTEGER NOT NULL,
    "sha" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "user_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ci_pipelines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "commit_statuses" (
    "id" SERIAL NOT NULL,
    "pipeline_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'created',
    "target_url" TEXT,
    "description" TEXT,
    "coverage" DOUBLE PRECISION,
    "allow_failure" BOOLEAN NOT NULL DEFAULT false,
    "user_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,
    "started_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "commit_statuses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "label_subscriptions" (
    "label_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "label_subscriptions_pkey" PRIMARY KEY ("label_id","user_id")
);

-- CreateIndex
CREATE INDEX "ci_pipelines_project_id_sha_idx" ON "ci_pipelines"("project_id", "sha");

-- CreateIndex
CREATE UNIQUE INDEX "ci_pipelines_project_id_iid_key" ON "ci_pipelines"("project_id", "iid");

-- CreateIndex
CREATE INDEX "commit_statuses_pipeline_id_name_idx" ON "commit_statuses"("pipeline_id", "name");

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "commit_statuses" ADD CONSTRAINT "commit_statuses_pipeline_id_fkey" FOREIGN KEY ("pipeline_id") REFERENCES "ci_pipelines"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "commit_statuses" ADD CONSTRAINT "commit_statuses_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_subscriptions" ADD CONSTRAINT "label_subscriptions_label_id_fkey" FOREIGN KEY ("label_id") REFERENCES "labels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_subscriptions" ADD CONSTRAINT "label_subscriptions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
