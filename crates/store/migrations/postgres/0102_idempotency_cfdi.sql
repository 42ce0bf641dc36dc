-- The invoice an Idempotency-Key acted on (a cancellation's target), so the same key sent to
-- another invoice's cancellation is refused instead of replaying the first one (issue 28,
-- finding 6). NULL for stamps (the invoice is in the stored answer) and for keys stored
-- before this column.
ALTER TABLE idempotency_keys ADD COLUMN cfdi_id TEXT;
