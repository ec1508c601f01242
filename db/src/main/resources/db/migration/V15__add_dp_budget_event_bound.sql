-- A reservation whose node never reported (killed mid-stream) is settled, after a stated time, to
-- the most the node can have released: what the gateway relayed plus how far a node may run ahead
-- of its relay (issue 18). That settlement is a 'bound' event; a later report can only lower it
-- (a 'settle' event then records the final count).
ALTER TABLE dp_budget_event DROP CONSTRAINT dp_budget_event_kind_check;
ALTER TABLE dp_budget_event ADD CONSTRAINT dp_budget_event_kind_check
    CHECK (kind IN ('reserve', 'settle', 'refund', 'top-up', 'bound'));
