-- The annual ISR adjustment (issue 35, Art. 97 LISR): each employee's figures of an ejercicio
-- and what the target period's receipt withholds or pays back. A new adjustment of the same
-- ejercicio replaces the rows.
CREATE TABLE nomina_ajustes_anuales (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    ejercicio INTEGER NOT NULL,
    periodo_id TEXT NOT NULL REFERENCES nomina_periodos (id),
    empleado_id TEXT NOT NULL REFERENCES empleados (id),
    empleado_nombre TEXT NOT NULL,
    resultado TEXT NOT NULL,           -- AJUSTADO, NO_AJUSTA
    motivos TEXT,                      -- NO_AJUSTA: comma-separated reasons
    recibos INTEGER NOT NULL,
    ingreso_gravado TEXT NOT NULL,
    isr_anual TEXT NOT NULL,
    subsidio_acreditado TEXT NOT NULL,
    isr_retenido TEXT NOT NULL,
    saldo_a_cargo TEXT NOT NULL,
    saldo_a_favor TEXT NOT NULL,
    aplicado TEXT NOT NULL,
    pendiente TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX nomina_ajustes_anuales_empleado ON nomina_ajustes_anuales (empresa_id, ejercicio, empleado_id);
