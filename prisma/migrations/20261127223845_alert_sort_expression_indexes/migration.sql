-- The alert list's orders that GraphQL cursors seek by a row comparison (alerts/store.ts), which
-- needs every key in one direction: expression indexes, which Prisma cannot declare (its diff
-- leaves them alone).

-- Severity and status: ties run by id against the enum's direction, so the id is indexed negated.
DROP INDEX "alerts_project_id_severity_id_idx";
CREATE INDEX "alerts_project_id_severity_neg_id_idx" ON "alerts"("project_id", "severity", (-"id"));

DROP INDEX "alerts_project_id_status_id_idx";
CREATE INDEX "alerts_project_id_status_neg_id_idx" ON "alerts"("project_id", "status", (-"id"));

-- The end may be empty: an open alert's end sorts as the latest instant ('infinity'), where
-- PostgreSQL puts NULLs by default (last ascending, first descending).
DROP INDEX "alerts_project_id_ended_at_id_idx";
CREATE INDEX "alerts_project_id_ended_at_id_idx" ON "alerts"("project_id", COALESCE("ended_at", 'infinity') DESC, "id" DESC);
