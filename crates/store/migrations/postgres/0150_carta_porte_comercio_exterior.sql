-- Carta Porte 3.1 and Comercio Exterior 2.0 (issue 33): customers abroad and products' defaults.
-- A customer abroad (RFC XEXX010101000) gives its country (c_Pais) and foreign tax id on the
-- comprobante's Receptor: ResidenciaFiscal and NumRegIdTrib.
ALTER TABLE clientes ADD COLUMN residencia_fiscal TEXT;
ALTER TABLE clientes ADD COLUMN num_reg_id_trib TEXT;
-- A product's defaults for the complements: its c_FraccionArancelaria (Comercio Exterior's
-- Mercancia, Carta Porte's international Mercancia) and whether it is hazardous material
-- (Carta Porte's MaterialPeligroso: Sí or No).
ALTER TABLE productos ADD COLUMN fraccion_arancelaria TEXT;
ALTER TABLE productos ADD COLUMN material_peligroso TEXT;
