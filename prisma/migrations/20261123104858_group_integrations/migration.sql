-- CreateTable
CREATE TABLE "integrations" (
    "id" SERIAL NOT NULL,
    "namespace_id" INTEGER NOT NULL,
    "slug" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT false,
    "use_inherited_settings" BOOLEAN NOT NULL DEFAULT false,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "events" JSONB NOT NULL DEFAULT '{}',
    "secrets" BYTEA,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "integrations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "integration_deliveries" (
    "id" SERIAL NOT NULL,
    "integration_id" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "target" TEXT NOT NULL DEFAULT '',
    "payload" JSONB NOT NULL,
    "response_code" INTEGER,
    "error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "integration_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "integrations_namespace_id_slug_key" ON "integrations"("namespace_id", "slug");

-- CreateIndex
CREATE INDEX "integration_deliveries_integration_id_id_idx" ON "integration_deliveries"("integration_id", "id");

-- AddForeignKey
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_namespace_id_fkey" FOREIGN KEY ("namespace_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_integration_id_fkey" FOREIGN KEY ("integration_id") REFERENCES "integrations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
