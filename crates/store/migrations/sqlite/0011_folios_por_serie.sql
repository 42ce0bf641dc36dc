-- Folio counters per (company, mode, serie): each serie runs 1..N on its own (invoices under
-- the company's series, payments under P, payroll receipts under N). They replace
-- empresas.folio_sandbox / folio_live, which are no longer written.
CREATE TABLE folios (
    empresa_id TEXT NOT NULL REFERENCES empresas (id),
    sandbox INTEGER NOT NULL,
    serie TEXT NOT NULL,
    ultimo BIGINT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (empresa_id, sandbox, serie)
);
-- Each serie continues after the highest folio it already used (stamped, or spent by a live
-- attempt), so no folio can repeat.
INSERT INTO folios (empresa_id, sandbox, serie, ultimo, created_at, updated_at)
SELECT empresa_id, sandbox, serie, MAX(folio_num), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (
    SELECT empresa_id, sandbox, serie, folio_num FROM cfdis WHERE origen = 'API' AND serie IS NOT NULL AND folio_num IS NOT NULL
    UNION ALL
    SELECT empresa_id, 0, serie, folio FROM intentos_timbrado
) usados GROUP BY empresa_id, sandbox, serie;

-- A folio never repeats within a company, mode and serie.
DROP INDEX cfdis_folio_unico;
CREATE UNIQUE INDEX cfdis_folio_unico ON cfdis (empresa_id, sandbox, serie, folio_num) WHERE origen = 'API';
DROP INDEX intentos_timbrado_folio;
CREATE UNIQUE INDEX intentos_timbrado_folio ON intentos_timbrado (empresa_id, serie, folio);
