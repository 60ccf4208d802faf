-- CreateTable
CREATE TABLE "throttle_counters" (
    "key" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "throttle_counters_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "throttle_counters_expires_at_idx" ON "throttle_counters"("expires_at");
