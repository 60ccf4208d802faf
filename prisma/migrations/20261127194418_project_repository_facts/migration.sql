-- The repository's facts on the project row (empty_repo, the README's name), kept by every ref
-- change. Rows that exist now get null, "not read yet": their repositories are read once, on the
-- first answer that shows them. New rows start as an empty repository (true), which a project's
-- first commit, fork or import then corrects.
ALTER TABLE "projects" ADD COLUMN "empty_repo" BOOLEAN,
ADD COLUMN "readme_path" TEXT;
ALTER TABLE "projects" ALTER COLUMN "empty_repo" SET DEFAULT true;
