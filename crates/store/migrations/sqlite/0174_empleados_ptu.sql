-- PTU exclusions of LFT Art. 127 (issue 35): a trabajador de confianza takes part with at most
-- the highest base worker's salary + 20 % (fr. II); directors, administrators and general
-- managers take no part (fr. I).
ALTER TABLE empleados ADD COLUMN confianza INTEGER NOT NULL DEFAULT 0;
ALTER TABLE empleados ADD COLUMN director INTEGER NOT NULL DEFAULT 0;
