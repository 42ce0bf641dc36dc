-- The annual ISR adjustment (issue 35, Art. 97 LISR): each employee's figures of an ejercicio
-- and what the target period's receipt withholds or pays back. A new adjustment of the same
-- ejercicio replaces the rows.
CREATE TABLE nomina_ajustes_anuales (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    ejercicio BIGINT NOT NULL,
    periodo_id TEXT NOT NULL REFERENCES nomina_periodos (id),
    empleado_id TEXT NOT NULL REFERENCES empleados (id),
    empleado_nombre TEXT NOT NULL,
    resultado TEXT NOT NULL,           -- AJUSTADO, NO_AJUSTA
    motivos TEXT,                      -- NO_AJUSTA: comma-separated reasons
    recibos BIGINT NOT NULL,
    ingreso_gravado NUMERIC NOT NULL,
    isr_anual NUMERIC NOT NULL,
    subsidio_acreditado NUMERIC NOT NULL,
    isr_retenido NUMERIC NOT NULL,
    saldo_a_cargo NUMERIC NOT NULL,
    saldo_a_favor NUMERIC NOT NULL,
    aplicado NUMERIC NOT NULL,
    pendiente NUMERIC NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX nomina_ajustes_anuales_empleado ON nomina_ajustes_anuales (empresa_id, ejercicio, empleado_id);
