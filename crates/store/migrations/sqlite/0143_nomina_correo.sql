-- Payroll receipts by e-mail (issue 32): the employee's address, and the period setting that
-- queues each receipt's e-mail (XML and PDF) to its employee in the stamp's transaction.
ALTER TABLE empleados ADD COLUMN email TEXT;
ALTER TABLE nomina_periodos ADD COLUMN enviar_correo INTEGER NOT NULL DEFAULT 0;
