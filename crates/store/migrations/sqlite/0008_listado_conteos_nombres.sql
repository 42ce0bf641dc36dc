-- Listing a million invoices: the total of a listing filtered at most by tipo, tipo de
-- comprobante and status is a sum over these counters instead of a count over the company's
-- whole index range. Triggers keep them in the same transaction as the invoice rows.
CREATE TABLE cfdi_conteos (
    empresa_id TEXT NOT NULL,
    tipo TEXT NOT NULL,
    tipo_comprobante TEXT NOT NULL,
    status TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (empresa_id, tipo, tipo_comprobante, status)
);
INSERT INTO cfdi_conteos (empresa_id, tipo, tipo_comprobante, status, n)
    SELECT empresa_id, tipo, tipo_comprobante, status, COUNT(*) FROM cfdis GROUP BY 1, 2, 3, 4;

CREATE TRIGGER cfdi_conteos_insert AFTER INSERT ON cfdis BEGIN
    INSERT INTO cfdi_conteos (empresa_id, tipo, tipo_comprobante, status, n)
        VALUES (new.empresa_id, new.tipo, new.tipo_comprobante, new.status, 1)
        ON CONFLICT (empresa_id, tipo, tipo_comprobante, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER cfdi_conteos_delete AFTER DELETE ON cfdis BEGIN
    UPDATE cfdi_conteos SET n = n - 1 WHERE empresa_id = old.empresa_id AND tipo = old.tipo
        AND tipo_comprobante = old.tipo_comprobante AND status = old.status;
END;
CREATE TRIGGER cfdi_conteos_update AFTER UPDATE OF empresa_id, tipo, tipo_comprobante, status ON cfdis BEGIN
    UPDATE cfdi_conteos SET n = n - 1 WHERE empresa_id = old.empresa_id AND tipo = old.tipo
        AND tipo_comprobante = old.tipo_comprobante AND status = old.status;
    INSERT INTO cfdi_conteos (empresa_id, tipo, tipo_comprobante, status, n)
        VALUES (new.empresa_id, new.tipo, new.tipo_comprobante, new.status, 1)
        ON CONFLICT (empresa_id, tipo, tipo_comprobante, status) DO UPDATE SET n = n + 1;
END;

-- Name search: words of the issuer's and receiver's names (FTS5, word prefixes). The invoice
-- id is stored beside them, not the rowid, which VACUUM may renumber.
CREATE VIRTUAL TABLE cfdis_nombres USING fts5(
    cfdi_id UNINDEXED, emisor_nombre, receptor_nombre, tokenize = 'unicode61 remove_diacritics 0'
);
INSERT INTO cfdis_nombres (cfdi_id, emisor_nombre, receptor_nombre) SELECT id, emisor_nombre, receptor_nombre FROM cfdis;
CREATE TRIGGER cfdis_nombres_insert AFTER INSERT ON cfdis BEGIN
    INSERT INTO cfdis_nombres (cfdi_id, emisor_nombre, receptor_nombre) VALUES (new.id, new.emisor_nombre, new.receptor_nombre);
END;
-- Invoices are kept, not deleted; these two are for completeness and scan the index.
CREATE TRIGGER cfdis_nombres_delete AFTER DELETE ON cfdis BEGIN
    DELETE FROM cfdis_nombres WHERE cfdi_id = old.id;
END;
CREATE TRIGGER cfdis_nombres_update AFTER UPDATE OF emisor_nombre, receptor_nombre ON cfdis BEGIN
    DELETE FROM cfdis_nombres WHERE cfdi_id = old.id;
    INSERT INTO cfdis_nombres (cfdi_id, emisor_nombre, receptor_nombre) VALUES (new.id, new.emisor_nombre, new.receptor_nombre);
END;
