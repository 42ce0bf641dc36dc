-- IMSS affiliation movements of each employee (issue 35, IDSE): ALTA (08 alta or reingreso),
-- MODIFICACION (07 salary change) and BAJA (02), each with its effective date and the salaries
-- then in force; written when an employee is created, updated with a new salary, re-activated,
-- deactivated or given a baja. The history of SBC changes the IDSE batch file is built from.
CREATE TABLE empleados_movimientos (
    id TEXT PRIMARY KEY,
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    empleado_id TEXT NOT NULL REFERENCES empleados (id),
    tipo TEXT NOT NULL,                -- ALTA, MODIFICACION, BAJA
    fecha TEXT NOT NULL,               -- effective date AAAA-MM-DD
    salario_diario NUMERIC NOT NULL,
    salario_diario_integrado NUMERIC NOT NULL,
    motivo TEXT,                       -- BAJA: the baja's motivo (RENUNCIA, ...), NULL from DELETE
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX empleados_movimientos_fecha ON empleados_movimientos (empresa_id, fecha);
CREATE INDEX empleados_movimientos_empleado ON empleados_movimientos (empresa_id, empleado_id, fecha);
-- Employees registered before this table: their hire, and their exit when inactive.
INSERT INTO empleados_movimientos (id, empresa_id, empleado_id, tipo, fecha, salario_diario, salario_diario_integrado, motivo, created_at)
    SELECT 'alta-' || id, empresa_id, id, 'ALTA', fecha_inicio_rel_laboral, salario_diario, salario_diario_integrado, NULL, created_at
    FROM empleados;
INSERT INTO empleados_movimientos (id, empresa_id, empleado_id, tipo, fecha, salario_diario, salario_diario_integrado, motivo, created_at)
    SELECT 'baja-' || id, empresa_id, id, 'BAJA', fecha_baja, salario_diario, salario_diario_integrado, NULL, updated_at
    FROM empleados WHERE activo = FALSE AND fecha_baja IS NOT NULL;
