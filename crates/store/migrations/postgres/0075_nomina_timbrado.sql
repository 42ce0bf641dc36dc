-- Payroll stamping (issue 14 part B): a receipt's live stamp goes through the two-phase
-- pipeline, whose attempt (intentos_timbrado.id, the future cfdis.id) is linked here before
-- the PAC call, so the stamp's transaction, or the reconciliation job, finds the receipt.
ALTER TABLE nomina_recibos ADD COLUMN intento_id TEXT;
CREATE INDEX nomina_recibos_intento ON nomina_recibos (empresa_id, intento_id);
CREATE INDEX nomina_recibos_cfdi ON nomina_recibos (empresa_id, cfdi_id);
