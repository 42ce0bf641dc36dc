-- Received retentions (issue 34): a synchronization asks one of SAT's two descarga masiva
-- services, CFDI (invoices, the default) or RETENCIONES (CFDI de Retenciones e Información de
-- Pagos, its own hosts). A job resumes against the service its row names.
ALTER TABLE sincronizaciones ADD COLUMN servicio TEXT NOT NULL DEFAULT 'CFDI';
