-- The composite dates of an epic (GitLab's start_date / end_date), stored so that the roadmap's
-- date sorts and timeframe filter run in SQL over an index.
ALTER TABLE "epics" ADD COLUMN     "due_date" DATE,
ADD COLUMN     "start_date" DATE;

-- Backfill: walking down from each epic, a child with a fixed date contributes it and ends the
-- walk for that date below it; a child without passes the walk on to its own children. Then each
-- epic's date is its fixed one where fixed, else the earliest start (latest due) the walk found.
WITH RECURSIVE walk AS (
  SELECT c.parent_id AS root_id, c.id, 1 AS depth,
         c.start_date_is_fixed AS start_done, c.due_date_is_fixed AS due_done,
         CASE WHEN c.start_date_is_fixed THEN c.start_date_fixed END AS start_candidate,
         CASE WHEN c.due_date_is_fixed THEN c.due_date_fixed END AS due_candidate
  FROM "epics" c WHERE c.parent_id IS NOT NULL
  UNION ALL
  SELECT w.root_id, c.id, w.depth + 1,
         w.start_done OR c.start_date_is_fixed, w.due_done OR c.due_date_is_fixed,
         CASE WHEN NOT w.start_done AND c.start_date_is_fixed THEN c.start_date_fixed END,
         CASE WHEN NOT w.due_done AND c.due_date_is_fixed THEN c.due_date_fixed END
  FROM walk w JOIN "epics" c ON c.parent_id = w.id
  WHERE NOT (w.start_done AND w.due_done) AND w.depth < 20
),
inherited AS (SELECT root_id, MIN(start_candidate) AS start_date, MAX(due_candidate) AS due_date FROM walk GROUP BY root_id)
UPDATE "epics" e
SET start_date = CASE WHEN e.start_date_is_fixed THEN e.start_date_fixed ELSE i.start_date END,
    due_date = CASE WHEN e.due_date_is_fixed THEN e.due_date_fixed ELSE i.due_date END
FROM "epics" s LEFT JOIN inherited i ON i.root_id = s.id
WHERE s.id = e.id;

-- GitLab's order for the date sorts: the date, epics without one last either way, then the id
-- descending. An ascending index keeps its NULLs last already; the descending ones say so
-- (Prisma's schema cannot, and its diff does not read the NULLS order).
CREATE INDEX "epics_group_id_start_date_id_idx" ON "epics"("group_id", "start_date", "id" DESC);

CREATE INDEX "epics_group_id_start_date_desc_id_idx" ON "epics"("group_id", "start_date" DESC NULLS LAST, "id" DESC);

CREATE INDEX "epics_group_id_due_date_id_idx" ON "epics"("group_id", "due_date", "id" DESC);

CREATE INDEX "epics_group_id_due_date_desc_id_idx" ON "epics"("group_id", "due_date" DESC NULLS LAST, "id" DESC);
