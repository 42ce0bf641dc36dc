-- Names are searched through FTS5 (cfdis_nombres, migration 0008) on SQLite; these two b-tree
-- indexes serve no query since then, and every stamp still wrote both (two of the dozen index
-- pages a group commit rewrites whatever it holds). PostgreSQL keeps its own (0003).
DROP INDEX IF EXISTS cfdis_empresa_emisor_nombre;
DROP INDEX IF EXISTS cfdis_empresa_receptor_nombre;
