-- No statement compares e-mails by ILIKE any more: every lookup by address (the search, the
-- uniqueness check, commit authors, reassignment by e-mail) reads lower(email) through
-- users_lower_email_idx, so the e-mail's trigram index only cost writes.

-- DropIndex
DROP INDEX "users_email_idx";
