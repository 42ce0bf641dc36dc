-- A live attempt keeps what reconciling it needs: the exact sealed XML sent to the PAC (a retry
-- or the reconcile job resends it, never a new folio), the request's body hash (a retry of the
-- same body finds it), its Idempotency-Key, and the fields its invoice record will carry.
ALTER TABLE intentos_timbrado ADD COLUMN xml_sellado TEXT;
ALTER TABLE intentos_timbrado ADD COLUMN request_hash TEXT;
ALTER TABLE intentos_timbrado ADD COLUMN idempotency_key TEXT;
ALTER TABLE intentos_timbrado ADD COLUMN user_id TEXT;
ALTER TABLE intentos_timbrado ADD COLUMN cliente_id TEXT;
ALTER TABLE intentos_timbrado ADD COLUMN xml_path TEXT;
ALTER TABLE intentos_timbrado ADD COLUMN operacion TEXT;
CREATE INDEX intentos_timbrado_pendientes ON intentos_timbrado (empresa_id, request_hash) WHERE status IN ('ENVIADO', 'SIN_RESPUESTA');
