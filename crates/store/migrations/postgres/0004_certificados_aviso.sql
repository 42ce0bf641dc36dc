-- The day certificado.por_expirar was announced for this CSD (NULL: not yet).
ALTER TABLE certificados ADD COLUMN aviso_por_expirar_at TIMESTAMPTZ;
