-- The naming rule (CONTRIBUTING.md): SAT's vocabulary in Spanish, in columns too. The API keeps
-- its published names (cancellationStatus); only the columns change.
ALTER TABLE cfdis RENAME COLUMN cancellation_status TO estado_cancelacion;
ALTER TABLE cfdis RENAME COLUMN cancel_motivo TO motivo_cancelacion;
ALTER TABLE cfdis RENAME COLUMN cancel_folio_sustitucion TO folio_sustitucion;
ALTER TABLE cfdis RENAME COLUMN cancelled_at TO fecha_cancelacion;
