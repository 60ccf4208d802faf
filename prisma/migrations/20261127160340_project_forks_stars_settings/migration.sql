-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "avatar" TEXT,
ADD COLUMN     "forked_from_id" INTEGER,
ADD COLUMN     "forks_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "open_issues_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "settings" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "star_count" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "project_stars" (
    "user_id" INTEGER NOT NULL,
    "project_id" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_stars_pkey" PRIMARY KEY ("user_id","project_id")
);

-- CreateIndex
CREATE INDEX "project_stars_project_id_idx" ON "project_stars"("project_id");

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_forked_from_id_fkey" FOREIGN KEY ("forked_from_id") REFERENCES "projects"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_stars" ADD CONSTRAINT "project_stars_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_stars" ADD CONSTRAINT "project_stars_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- star_count, forks_count and open_issues_count follow their rows whatever removes them (an unstar, a deleted user's
-- stars, a deleted fork), so that project lists read them with the project row.
CREATE FUNCTION projects_count_stars() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE projects SET star_count = star_count + 1 WHERE id = NEW.project_id;
  ELSE
    UPDATE projects SET star_count = star_count - 1 WHERE id = OLD.project_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER project_stars_count AFTER INSERT OR DELETE ON project_stars
  FOR EACH ROW EXECUTE FUNCTION projects_count_stars();

CREATE FUNCTION projects_count_forks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.forked_from_id IS NOT NULL THEN
    UPDATE projects SET forks_count = forks_count - 1 WHERE id = OLD.forked_from_id;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.forked_from_id IS NOT NULL THEN
    UPDATE projects SET forks_count = forks_count + 1 WHERE id = NEW.forked_from_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER projects_count_forks_insert_delete AFTER INSERT OR DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION projects_count_forks();
CREATE TRIGGER projects_count_forks_update AFTER UPDATE OF forked_from_id ON projects
  FOR EACH ROW WHEN (OLD.forked_from_id IS DISTINCT FROM NEW.forked_from_id) EXECUTE FUNCTION projects_count_forks();

CREATE FUNCTION projects_count_open_issues() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.state = 'opened' THEN
    UPDATE projects SET open_issues_count = open_issues_count - 1 WHERE id = OLD.project_id;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.state = 'opened' THEN
    UPDATE projects SET open_issues_count = open_issues_count + 1 WHERE id = NEW.project_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER issues_count_open_insert_delete AFTER INSERT OR DELETE ON issues
  FOR EACH ROW EXECUTE FUNCTION projects_count_open_issues();
CREATE TRIGGER issues_count_open_update AFTER UPDATE OF state, project_id ON issues
  FOR EACH ROW EXECUTE FUNCTION projects_count_open_issues();

-- Projects that already have open issues.
UPDATE projects p SET open_issues_count = c.count
  FROM (SELECT project_id, count(*) AS count FROM issues WHERE state = 'opened' GROUP BY project_id) c
 WHERE c.project_id = p.id;
