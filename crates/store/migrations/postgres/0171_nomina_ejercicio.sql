-- The fiscal year a PTU period distributes (issue 35): one PTU per ejercicio.
ALTER TABLE nomina_periodos ADD COLUMN ejercicio BIGINT;
