-- Payroll (issue 14): a company's employees, their incidences, pay periods and the receipts a
-- period's calculation writes. Dates of the payroll (AAAA-MM-DD) are TEXT on both backends,
-- so they compare as dates; money is TEXT on SQLite.

CREATE TABLE empleados (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    num_empleado TEXT NOT NULL,
    nombre TEXT NOT NULL,
    rfc TEXT NOT NULL,
    curp TEXT NOT NULL,
    nss TEXT,                          -- required for TipoContrato 01-08 (Nómina 1.2 NOM44)
    codigo_postal TEXT NOT NULL,       -- DomicilioFiscalReceptor
    fecha_inicio_rel_laboral TEXT NOT NULL,
    salario_diario TEXT NOT NULL,
    salario_diario_integrado TEXT NOT NULL,
    periodicidad TEXT NOT NULL,        -- SEMANAL, CATORCENAL, QUINCENAL, MENSUAL
    tipo_contrato TEXT NOT NULL,       -- c_TipoContrato
    tipo_jornada TEXT,                 -- c_TipoJornada
    tipo_regimen TEXT NOT NULL,        -- c_TipoRegimen
    riesgo_puesto TEXT NOT NULL,       -- c_RiesgoPuesto 1-5
    departamento TEXT,
    puesto TEXT,
    banco TEXT,                        -- c_Banco
    cuenta_bancaria TEXT,
    clave_ent_fed TEXT NOT NULL,       -- c_Estado
    activo INTEGER NOT NULL,
    fecha_baja TEXT,                   -- set by DELETE (deactivation), cleared on re-activation
    search_text TEXT NOT NULL,         -- lowercase "numEmpleado nombre rfc curp" for q= searches
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX empleados_empresa ON empleados (empresa_id, created_at);
-- Records are never deleted, so an RFC or number stays taken by a deactivated employee too
-- (a re-hire re-activates the record).
CREATE UNIQUE INDEX empleados_empresa_rfc ON empleados (empresa_id, rfc);
CREATE UNIQUE INDEX empleados_empresa_num ON empleados (empresa_id, num_empleado);
CREATE INDEX empleados_periodicidad ON empleados (empresa_id, periodicidad, activo);

CREATE TABLE incidencias (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    empleado_id TEXT NOT NULL REFERENCES empleados (id),
    tipo TEXT NOT NULL,                -- HORAS_EXTRA, INCAPACIDAD, FALTA, VACACIONES, PRIMA_DOMINICAL, PERCEPCION, DEDUCCION
    fecha TEXT NOT NULL,               -- the day it happened (first day for several days)
    status TEXT NOT NULL,              -- PENDIENTE, APROBADA, RECHAZADA
    horas INTEGER,                      -- HORAS_EXTRA
    dias INTEGER,                       -- INCAPACIDAD, FALTA, VACACIONES
    tipo_incapacidad TEXT,             -- c_TipoIncapacidad 01-03
    domingos INTEGER,                   -- PRIMA_DOMINICAL
    clave_sat TEXT,                    -- c_TipoPercepcion / c_TipoDeduccion of PERCEPCION / DEDUCCION
    concepto TEXT,
    importe TEXT,
    gravado TEXT,
    exento TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX incidencias_empresa ON incidencias (empresa_id, created_at);
CREATE INDEX incidencias_empleado ON incidencias (empresa_id, status, fecha, empleado_id);

CREATE TABLE nomina_periodos (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    fecha_inicio TEXT NOT NULL,
    fecha_fin TEXT NOT NULL,
    fecha_pago TEXT NOT NULL,
    periodicidad TEXT NOT NULL,        -- SEMANAL, CATORCENAL, QUINCENAL, MENSUAL
    dias_pagados INTEGER NOT NULL,      -- 7, 14, 15, 30
    status TEXT NOT NULL,              -- ABIERTO, CALCULADO, TIMBRADO, TIMBRADO_PARCIAL
    recibos_calculados INTEGER NOT NULL DEFAULT 0,
    total_nomina TEXT,               -- Σ receipts' net pay; NULL until calculated
    calculado_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX nomina_periodos_empresa ON nomina_periodos (empresa_id, created_at);

-- One receipt per employee and period. It keeps what stamping needs: the lines with their
-- taxable and exempt parts (lineas), the employee as calculated (empleado), the calculation
-- as POST /api/nomina/calcular answers it (calculo) and the body that reproduces it (entrada).
CREATE TABLE nomina_recibos (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    periodo_id TEXT NOT NULL REFERENCES nomina_periodos (id),
    empleado_id TEXT NOT NULL REFERENCES empleados (id),
    empleado_nombre TEXT NOT NULL,
    status TEXT NOT NULL,              -- CALCULADO, PENDIENTE, TIMBRADO, TIMBRADO_SANDBOX, CANCELADO
    dias_pagados TEXT NOT NULL,
    total_percepciones TEXT NOT NULL,
    total_gravado TEXT NOT NULL,
    total_exento TEXT NOT NULL,
    total_deducciones TEXT NOT NULL,
    total_otros_pagos TEXT NOT NULL,
    isr_retenido TEXT NOT NULL,
    subsidio_causado TEXT NOT NULL,
    imss_empleado TEXT NOT NULL,
    neto TEXT NOT NULL,              -- the CFDI Total
    lineas TEXT NOT NULL,              -- JSON
    empleado TEXT NOT NULL,            -- JSON
    calculo TEXT NOT NULL,             -- JSON
    entrada TEXT NOT NULL,             -- JSON
    detalle_errores TEXT,              -- why the last stamping attempt failed (PENDIENTE)
    cfdi_id TEXT,                      -- the stamped CFDI (cfdis.id)
    uuid TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX nomina_recibos_periodo_empleado ON nomina_recibos (periodo_id, empleado_id);
CREATE INDEX nomina_recibos_empresa ON nomina_recibos (empresa_id, periodo_id);
