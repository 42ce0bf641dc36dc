-- A calculated receipt has no stamping attempt and no CFDI yet: indexing those columns only
-- where they are set spares a period's calculation two index writes per receipt (1,000
-- receipts replaced on every recalculation). Lookups by attempt or CFDI (`= $n`) still use them.
DROP INDEX nomina_recibos_intento;
DROP INDEX nomina_recibos_cfdi;
CREATE INDEX nomina_recibos_intento ON nomina_recibos (empresa_id, intento_id) WHERE intento_id IS NOT NULL;
CREATE INDEX nomina_recibos_cfdi ON nomina_recibos (empresa_id, cfdi_id) WHERE cfdi_id IS NOT NULL;
