-- CreateEnum
CREATE TYPE "AlertIntegrationType" AS ENUM ('http', 'prometheus');

-- CreateEnum
CREATE TYPE "AlertStatus" AS ENUM ('triggered', 'acknowledged', 'resolved', 'ignored');

-- CreateEnum
CREATE TYPE "AlertSeverity" AS ENUM ('critical', 'high', 'medium', 'low', 'info', 'unknown');

-- CreateTable
CREATE TABLE "alert_integrations" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "type" "AlertIntegrationType" NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "endpoint_identifier" VARCHAR(255) NOT NULL,
    "token_digest" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT false,
    "payload_example" TEXT,
    "payload_attribute_mappings" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "alert_integrations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alerts" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "iid" INTEGER NOT NULL,
    "integration_id" INTEGER,
    "title" VARCHAR(200) NOT NULL,
    "description" VARCHAR(1000),
    "service" VARCHAR(100),
    "monitoring_tool" VARCHAR(100),
    "hosts" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "severity" "AlertSeverity" NOT NULL DEFAULT 'critical',
    "status" "AlertStatus" NOT NULL DEFAULT 'triggered',
    "fingerprint" VARCHAR(40),
    "environment" TEXT,
    "runbook" TEXT,
    "events" INTEGER NOT NULL DEFAULT 1,
    "started_at" TIMESTAMP(3) NOT NULL,
    "ended_at" TIMESTAMP(3),
    "payload" JSONB NOT NULL DEFAULT '{}',
    "issue_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_assignees" (
    "alert_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    CONSTRAINT "alert_assignees_pkey" PRIMARY KEY ("alert_id","user_id")
);

-- CreateTable
CREATE TABLE "alert_settings" (
    "project_id" INTEGER NOT NULL,
    "create_issue" BOOLEAN NOT NULL DEFAULT false,
    "send_email" BOOLEAN NOT NULL DEFAULT false,
    "auto_close_incident" BOOLEAN NOT NULL DEFAULT true,
    "issue_template_key" TEXT,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "alert_settings_pkey" PRIMARY KEY ("project_id")
);

-- CreateTable
CREATE TABLE "issues" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "iid" INTEGER NOT NULL,
    "issue_type" TEXT NOT NULL DEFAULT 'issue',
    "title" VARCHAR(255) NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL DEFAULT 'opened',
    "closed_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "issues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_intake_windows" (
    "integration_id" INTEGER NOT NULL,
    "window_start" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "alert_intake_windows_pkey" PRIMARY KEY ("integration_id","window_start")
);

-- CreateIndex
CREATE UNIQUE INDEX "alert_integrations_project_id_endpoint_identifier_key" ON "alert_integrations"("project_id", "endpoint_identifier");

-- CreateIndex
CREATE UNIQUE INDEX "alert_integrations_project_id_name_key" ON "alert_integrations"("project_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "alert_integrations_one_prometheus_per_project" ON "alert_integrations"("project_id") WHERE (type = 'prometheus');

-- CreateIndex
CREATE INDEX "alerts_project_id_status_idx" ON "alerts"("project_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "alerts_project_id_iid_key" ON "alerts"("project_id", "iid");

-- CreateIndex
CREATE UNIQUE INDEX "alerts_open_fingerprint" ON "alerts"("project_id", "fingerprint") WHERE (status <> 'resolved' AND fingerprint IS NOT NULL);

-- CreateIndex
CREATE UNIQUE INDEX "issues_project_id_iid_key" ON "issues"("project_id", "iid");

-- AddForeignKey
ALTER TABLE "alert_integrations" ADD CONSTRAINT "alert_integrations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_integration_id_fkey" FOREIGN KEY ("integration_id") REFERENCES "alert_integrations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_assignees" ADD CONSTRAINT "alert_assignees_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_assignees" ADD CONSTRAINT "alert_assignees_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_settings" ADD CONSTRAINT "alert_settings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
