-- Every process caches token lookups for a few seconds (src/auth/viewer-cache.ts); any change to a
-- token or a user is announced to all of them on commit, so a revocation, a rotation or a blocked
-- account takes effect at once. `last_used_at` alone (touched once a minute per token) is not announced.
CREATE FUNCTION "forgegate_auth_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'personal_access_tokens'
     AND (to_jsonb(OLD) - 'last_used_at') = (to_jsonb(NEW) - 'last_used_at') THEN
    RETURN NULL;
  END IF;
  PERFORM pg_notify('forgegate_auth_changed', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

CREATE TRIGGER "personal_access_tokens_auth_changed"
AFTER UPDATE OR DELETE ON "personal_access_tokens"
FOR EACH ROW EXECUTE FUNCTION "forgegate_auth_changed"();

CREATE TRIGGER "users_auth_changed"
AFTER UPDATE OR DELETE ON "users"
FOR EACH ROW EXECUTE FUNCTION "forgegate_auth_changed"();
