-- Repeatable (ADR 0038): the one current copy of the rules that choose a node. Flyway re-applies
-- this file after the versioned migrations whenever its text changes; change them here, never in a
-- versioned migration (the versioned files that first created them are history).
--
-- Functions that read tables are PL/pgSQL, not SQL: PostgreSQL 15 parses and plans a SQL
-- function's body again on each execution of a statement that calls it (it inlines only bodies
-- without FROM), about 0.2 ms a call here; PL/pgSQL keeps its plans for the session (ADR 0041).

-- Whether credential p_client may act as a node: none of its nodes is suspended and its
-- organisation, if it has one, is not. The one place that rule is written (ADR 0029).
CREATE OR REPLACE FUNCTION node_credential_usable(p_client text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT NOT EXISTS (SELECT 1 FROM node s
                           WHERE s.client_id = p_client AND s.suspended_at IS NOT NULL)
           AND NOT EXISTS (SELECT 1 FROM node_credential c JOIN organisation o
                           ON o.id = c.organisation_id
                           WHERE c.client_id = p_client AND o.suspended_at IS NOT NULL));
END $$;

-- The most requests node p_node (declaring p_declared) is given at once, by node_slot_rule (V31):
-- least(declared, unproven_slots + earned), earned being the greater of completed /
-- completed_per_slot (completed: the requests the gateway saw it complete with text in the last
-- window_seconds) and twice the highest concurrency it sustained in one minute of that window
-- (busy_ms / 60000, Little's law: completions per second times their mean duration; each hosted
-- request counts at most 60 s, so a node cannot stretch one request into a minute's worth, and
-- this part never exceeds the requests completed). So a node that keeps its slots busy and
-- answers doubles its ceiling within a minute or two, up to what it declared, while a node that
-- declares much and completes nothing never gets more than unproven_slots (ADR 0038).
CREATE OR REPLACE FUNCTION node_slots(p_node uuid, p_declared integer) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT least(p_declared::bigint, r.unproven_slots + greatest(
            coalesce((SELECT sum(s.completed) FROM node_served s
                      WHERE s.node_id = p_node
                        AND s.minute > now() - make_interval(secs => r.window_seconds)), 0)
                / r.completed_per_slot,
            -- At most one slot per request completed in the window: busy time alone, which a slow
            -- node can stretch, never earns more than its count.
            least(
                coalesce((SELECT floor(2 * max(s.busy_ms) / 60000.0) FROM node_served s
                          WHERE s.node_id = p_node
                            AND s.minute > now() - make_interval(secs => r.window_seconds)), 0),
                coalesce((SELECT sum(s.completed) FROM node_served s
                          WHERE s.node_id = p_node
                            AND s.minute > now() - make_interval(secs => r.window_seconds)), 0))))
            ::integer
        FROM node_slot_rule r);
END $$;

-- Whether a node of credential p_client declaring p_loaded holds p_ref@p_version: it declares the
-- adapter and its credential downloaded that version's package.
CREATE OR REPLACE FUNCTION node_holds_adapter(p_client text, p_loaded text[], p_ref text, p_version text)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT p_ref = ANY (p_loaded) AND EXISTS (
            SELECT 1 FROM node_download d JOIN adapter_version v ON v.id = d.adapter_version_id
            JOIN adapter a ON a.id = v.adapter_id
            WHERE d.client_id = p_client AND a.adapter_ref = p_ref AND v.version = p_version));
END $$;

-- The circuit breaker (ADR 0038). failure_streak counts a node's failures less its completed
-- answers, never below 0; once it reaches 3 the node is kept out of dispatch for 30 s, doubled with
-- each further failure, at most 15 min; when that ends it is tried again (half-open), and one more
-- failure trips it again, for longer. Each request it completes with text takes one failure off,
-- so a node that fails two requests of three still trips. Failures: an ended request whose
-- outcome is node_failed or node_timeout (trigger below), and a node that received a request and
-- failed before answering (Dispatch, through this function). Not 'empty': a client can ask for
-- one (a stop string at the answer's start), and must not trip a node by it.
CREATE OR REPLACE FUNCTION note_node_failure(p_node uuid) RETURNS void LANGUAGE sql AS $$
    UPDATE node SET failure_streak = failure_streak + 1,
        tripped_until = CASE WHEN failure_streak + 1 >= 3
            THEN now() + make_interval(
                secs => least(900, 30 * power(2, least(5, failure_streak + 1 - 3))))
            ELSE tripped_until END
    WHERE id = p_node
$$;

-- Counts a request the gateway saw node NEW.node_id complete (node_served, per minute; rows older
-- than the rule's window are removed as it completes more) and takes one failure off its streak:
-- a node that fails two requests of three still trips, and one back from a long run of failures
-- earns its way back one answer at a time. A trip running now is left to end.
CREATE OR REPLACE FUNCTION count_node_served() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO node_served AS s (node_id, minute, completed, busy_ms)
    VALUES (NEW.node_id, date_trunc('minute', now()), 1,
            CASE WHEN NEW.mode = 'hosted' THEN least(60000, greatest(0,
                (extract(epoch FROM now() - NEW.started_at) * 1000)::bigint)) ELSE 0 END)
    ON CONFLICT (node_id, minute) DO UPDATE
    SET completed = s.completed + 1, busy_ms = s.busy_ms + EXCLUDED.busy_ms;
    DELETE FROM node_served s
    WHERE s.node_id = NEW.node_id
      AND s.minute < now() - make_interval(secs => (SELECT r.window_seconds + 60
                                                    FROM node_slot_rule r));
    UPDATE node SET failure_streak = failure_streak - 1
    WHERE id = NEW.node_id AND failure_streak > 0;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS gateway_request_served ON gateway_request;
CREATE TRIGGER gateway_request_served AFTER UPDATE OF outcome ON gateway_request
    FOR EACH ROW
    WHEN (OLD.outcome IS NULL AND NEW.outcome = 'completed' AND NEW.node_id IS NOT NULL)
    EXECUTE FUNCTION count_node_served();

CREATE OR REPLACE FUNCTION count_node_failure() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM note_node_failure(NEW.node_id);
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS gateway_request_failed ON gateway_request;
CREATE TRIGGER gateway_request_failed AFTER UPDATE OF outcome ON gateway_request
    FOR EACH ROW
    WHEN (OLD.outcome IS NULL AND NEW.outcome IN ('node_failed', 'node_timeout')
          AND NEW.node_id IS NOT NULL)
    EXECUTE FUNCTION count_node_failure();

-- Views are re-created whole: a column added to node since reaches usable_node.
DROP VIEW IF EXISTS dispatchable_node;
DROP VIEW IF EXISTS usable_node;

-- The nodes that may be dispatched to or heard from, with their slot ceiling. Health is the
-- reader's to check (dispatchable_node for dispatch).
CREATE VIEW usable_node AS
    SELECT n.*, node_slots(n.id, n.max_concurrency) AS slots
    FROM node n
    WHERE n.suspended_at IS NULL AND node_credential_usable(n.client_id);

-- The nodes a request may be sent to, whatever its fleet and model: usable, with an endpoint, not
-- marked unreachable, and not kept out by the breaker. Both choosers read it: admit_request (the
-- database's choice, shared limits) and NodeDispatcher.candidates (limits in memory); each then
-- asks for a fresh heartbeat, the fleet and the base model.
CREATE VIEW dispatchable_node AS
    SELECT u.* FROM usable_node u
    WHERE u.endpoint IS NOT NULL AND u.unreachable_since IS NULL
      AND (u.tripped_until IS NULL OR u.tripped_until <= now());
