-- A user's own token list (personal tokens, not impersonation ones) reads its page's ids from this
-- index alone, in id order: the id was not in the index it replaces.

-- DropIndex
DROP INDEX "personal_access_tokens_user_id_impersonation_idx";

-- CreateIndex
CREATE INDEX "personal_access_tokens_user_id_impersonation_id_idx" ON "personal_access_tokens"("user_id", "impersonation", "id");
