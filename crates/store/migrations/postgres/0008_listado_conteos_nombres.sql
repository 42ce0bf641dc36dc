-- Listing a million invoices: the total of a listing filtered at most by tipo, tipo de
-- comprobante and status is a sum over these counters instead of a count over the company's
-- whole index range. A trigger keeps them in the same transaction as the invoice rows.
CREATE TABLE cfdi_conteos (
    empresa_id TEXT NOT NULL,
    tipo TEXT NOT NULL,
    tipo_comprobante TEXT NOT NULL,
    status TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (empresa_id, tipo, tipo_comprobante, status)
);
INSERT INTO cfdi_conteos (empresa_id, tipo, tipo_comprobante, status, n)
    SELECT empresa_id, tipo, tipo_comprobante, status, COUNT(*) FROM cfdis GROUP BY 1, 2, 3, 4;

CREATE FUNCTION cfdi_conteos_cambio() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE cfdi_conteos SET n = n - 1 WHERE empresa_id = OLD.empresa_id AND tipo = OLD.tipo
            AND tipo_comprobante = OLD.tipo_comprobante AND status = OLD.status;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO cfdi_conteos (empresa_id, tipo, tipo_comprobante, status, n)
            VALUES (NEW.empresa_id, NEW.tipo, NEW.tipo_comprobante, NEW.status, 1)
            ON CONFLICT (empresa_id, tipo, tipo_comprobante, status) DO UPDATE SET n = cfdi_conteos.n + 1;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER cfdi_conteos AFTER INSERT OR DELETE OR UPDATE OF empresa_id, tipo, tipo_comprobante, status ON cfdis
    FOR EACH ROW EXECUTE FUNCTION cfdi_conteos_cambio();

-- Name search: word prefixes of the issuer's and receiver's names through trigram indexes.
-- pg_trgm is a trusted extension: the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX cfdis_emisor_nombre_trgm ON cfdis USING gin (emisor_nombre_lower gin_trgm_ops);
CREATE INDEX cfdis_receptor_nombre_trgm ON cfdis USING gin (receptor_nombre_lower gin_trgm_ops);
