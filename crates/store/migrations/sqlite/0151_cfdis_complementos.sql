-- Carta Porte 3.1 and Comercio Exterior 2.0 (issue 33): the complements an invoice carries
-- (issued or received), by their JSON names, comma-separated (`cartaPorte`,
-- `comercioExterior`; empty for none): what `GET /api/cfdi?complemento=` filters.
ALTER TABLE cfdis ADD COLUMN complementos TEXT NOT NULL DEFAULT '';
