-- Listings page most recent first with `id` as the tie-break: the index covers the whole
-- ORDER BY so a page is read in order instead of sorted.
CREATE INDEX clientes_empresa_orden ON clientes (empresa_id, created_at DESC, id DESC);
CREATE INDEX productos_empresa_orden ON productos (empresa_id, created_at DESC, id DESC);
