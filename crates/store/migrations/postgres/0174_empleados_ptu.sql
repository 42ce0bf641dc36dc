-- PTU exclusions of LFT Art. 127 (issue 35): a trabajador de confianza takes part with at most
-- the highest base worker's salary + 20 % (fr. II); directors, administrators and general
-- managers take no part (fr. I).
ALTER TABLE empleados ADD COLUMN confianza BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE empleados ADD COLUMN director BOOLEAN NOT NULL DEFAULT FALSE;
