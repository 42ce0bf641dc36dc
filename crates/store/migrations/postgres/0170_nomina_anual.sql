-- Payroll through the year (issue 35). The company's settings for extraordinary payments and
-- IMSS dues: días de aguinaldo (LFT 87, at least 15), the ISR method of extraordinary payments
-- (ART96 or RLISR174) and the riesgo de trabajo premium in percent (LSS 71-74, NULL until set).
ALTER TABLE empresas ADD COLUMN dias_aguinaldo BIGINT NOT NULL DEFAULT 15;
ALTER TABLE empresas ADD COLUMN metodo_isr_extraordinario TEXT NOT NULL DEFAULT 'ART96';
ALTER TABLE empresas ADD COLUMN prima_riesgo NUMERIC;
-- A period is ORDINARIA (by periodicidad) or EXTRAORDINARIA (TipoNomina E, periodicidad 99)
-- with its concepto: AGUINALDO, PTU or FINIQUITO; a FINIQUITO pays one employee (empleado_id).
ALTER TABLE nomina_periodos ADD COLUMN tipo TEXT NOT NULL DEFAULT 'ORDINARIA';
ALTER TABLE nomina_periodos ADD COLUMN concepto TEXT;
ALTER TABLE nomina_periodos ADD COLUMN empleado_id TEXT;
CREATE INDEX nomina_periodos_concepto ON nomina_periodos (empresa_id, concepto, fecha_pago);
