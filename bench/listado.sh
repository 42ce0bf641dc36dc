#!/usr/bin/env bash
# Listing benchmark: GET /api/cfdi?limit=1000 (the first page, most recent first, with the total)
# over a company holding 1,000,000 invoices, SQLite. One invoice is stamped through the API;
# the rest are copies of its row made in SQL (new id, UUID, folio and date), which is what the
# listing reads. Needs a release build and python3.
# Usage: bench/listado.sh [rows]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
# shellcheck source=comun.sh
source bench/comun.sh
auth=(-H "authorization: Bearer $key" -H "x-empresa-id: $empresa")
curl -sf "$base/api/cfdi/timbrar" "${auth[@]}" -H 'content-type: application/json' \
  -d '{"formaPago":"01","metodoPago":"PUE","conceptos":[{"claveProdServ":"81112100","claveUnidad":"E48","descripcion":"Servicio","cantidad":1,"precioUnitario":"100"}]}' >/dev/null

echo "== copying the invoice row to $rows rows"
python3 - "$data/timbra.db" "$rows" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=60)
n = int(sys.argv[2]) - 1
cols = [r[1] for r in db.execute("PRAGMA table_info(cfdis)")]
changed = {
    "id": "printf('bench-%08d', n.i)",
    "uuid": "printf('SANDBOX-%08X-0000-4000-8000-%012X', n.i, n.i)",
    "uuid_xml": "printf('%08X-0000-4000-8000-%012X', n.i, n.i)",
    "folio": "CAST(n.i + 1 AS TEXT)",
    "folio_num": "n.i + 1",
    "fecha": "strftime('%Y-%m-%dT%H:%M:%S-06:00', '2025-01-01', printf('+%d seconds', n.i * 30))",
}
select = ", ".join(changed.get(c, "c." + c) for c in cols)
db.execute("PRAGMA journal_mode=WAL")
db.execute(f"""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})
    INSERT INTO cfdis ({", ".join(cols)}) SELECT {select} FROM n, (SELECT * FROM cfdis LIMIT 1) c""")
db.commit()
db.execute("ANALYZE")
print("rows:", db.execute("SELECT COUNT(*) FROM cfdis").fetchone()[0])
PY

time_of() { curl -s -o /dev/null -w '%{time_total}\n' "${auth[@]}" "$1"; }
report() {
  local url=$1 label=$2
  time_of "$url" >/dev/null
  for _ in $(seq 1 30); do time_of "$url"; done | sort -n | awk -v l="$label" \
    '{t[NR]=$1*1000} END {printf "== %s: median %.1f ms, p95 %.1f ms, max %.1f ms (30 requests)\n", l, t[15], t[29], t[30]}'
}
report "$base/api/cfdi?limit=1000" "GET /api/cfdi?limit=1000, page 1"
report "$base/api/cfdi?limit=1000&page=500" "GET /api/cfdi?limit=1000, page 500"
report "$base/api/cfdi?limit=1000&search=XIQB" "GET /api/cfdi?limit=1000&search=<RFC prefix that matches nothing>"
report "$base/api/cfdi?limit=1000&search=ximena" "GET /api/cfdi?limit=1000&search=<name word that matches nothing>"
report "$base/api/cfdi?limit=1000&search=kemper" "GET /api/cfdi?limit=1000&search=<name word of every invoice>"
report "$base/api/cfdi?limit=1000&status=TIMBRADO" "GET /api/cfdi?limit=1000&status=TIMBRADO"
