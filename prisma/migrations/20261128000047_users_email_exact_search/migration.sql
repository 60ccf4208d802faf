-- The user search's e-mail equality, case aside (GitLab: lower(email) = lower(query)): one lookup,
-- where `ILIKE` (Prisma's insensitive equality) read the e-mail's trigram index, whose entries for
-- the query's common trigrams grow with the table. Raw SQL: Prisma declares no index on an expression.
CREATE INDEX "users_lower_email_idx" ON "users" (lower("email"));
