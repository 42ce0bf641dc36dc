-- Cancellation: status stays TIMBRADO until SAT's answer is final; the process is shown in
-- cancellation_status (SIN_ACEPTACION, PENDIENTE, ACEPTADA, RECHAZADA).
ALTER TABLE cfdis ADD COLUMN cancellation_status TEXT;
ALTER TABLE cfdis ADD COLUMN cancel_motivo TEXT;
ALTER TABLE cfdis ADD COLUMN cancel_folio_sustitucion TEXT;
ALTER TABLE cfdis ADD COLUMN acuse_url TEXT;
ALTER TABLE cfdis ADD COLUMN cancelled_at TEXT;
