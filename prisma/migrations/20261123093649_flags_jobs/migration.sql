-- CreateTable
CREATE TABLE "feature_flags" (
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "percentage_of_actors" INTEGER,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "feature_flags_pkey" PRIMARY KEY ("name"),
    CONSTRAINT "feature_flags_percentage_of_actors_check" CHECK ("percentage_of_actors" BETWEEN 1 AND 100)
);

-- CreateTable
CREATE TABLE "job_processes" (
    "id" UUID NOT NULL,
    "hostname" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "tag" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "queues" TEXT[],
    "labels" TEXT[],
    "concurrency" INTEGER NOT NULL,
    "busy" INTEGER NOT NULL DEFAULT 0,
    "beat_at" TIMESTAMP(3) NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "job_processes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job_queue_stats" (
    "queue" TEXT NOT NULL,
    "processed" BIGINT NOT NULL DEFAULT 0,
    "failed" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "job_queue_stats_pkey" PRIMARY KEY ("queue")
);

-- CreateIndex
CREATE INDEX "job_processes_expires_at_idx" ON "job_processes"("expires_at");
