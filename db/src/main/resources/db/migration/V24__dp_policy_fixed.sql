-- A version's DP policy comes from its signed manifest and never changes: the marketplace keeps
-- policies in memory once read (issue 24, ADR 0022), so the database refuses a change that would
-- make that copy stale.
CREATE TRIGGER dp_policy_fixed BEFORE UPDATE OR DELETE ON dp_policy
    FOR EACH ROW EXECUTE FUNCTION forbid_change();

CREATE FUNCTION forbid_policy_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR NEW.dp_policy_id IS DISTINCT FROM OLD.dp_policy_id
     OR NEW.adapter_id IS DISTINCT FROM OLD.adapter_id OR NEW.version IS DISTINCT FROM OLD.version THEN
    RAISE EXCEPTION 'an adapter version''s DP policy and identity are fixed: % refused', TG_OP
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;

CREATE TRIGGER adapter_version_policy_fixed BEFORE UPDATE OR DELETE ON adapter_version
    FOR EACH ROW EXECUTE FUNCTION forbid_policy_change();
