#!/usr/bin/env bash
# Load benchmark of sales tickets (issue 31): POST /api/recibos (no RSA: a ticket is computed
# and stored, not sealed) as a ratio to GET /api/clientes in the same run, 64 connections,
# SQLite; then one global invoice of 10,000 tickets (built, sealed, stored) timed, with the
# server's peak RSS. Needs wrk (apt-get install wrk) and a release build.
# Usage: bench/recibos.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
# shellcheck source=comun.sh
source bench/comun.sh
warm_up

cat > "$data/recibo.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '{"formaPago":"01","conceptos":[{"claveProdServ":"50202306","claveUnidad":"H87","descripcion":"Refresco","cantidad":2,"precioUnitario":"23.20"},{"claveProdServ":"50202306","claveUnidad":"H87","descripcion":"Torta","cantidad":1,"precioUnitario":"57.99"}]}'
LUA
echo "== GET /api/clientes, 64 connections, ${seconds}s"
clientes=$(wrk -t2 -c64 -d"${seconds}s" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" "$base/api/clientes" \
  | awk '/Requests\/sec/ {print $2}')
echo "   $clientes req/s"
echo "== POST /api/recibos, 64 connections, ${seconds}s"
recibos=$(wrk -t2 -c64 -d"${seconds}s" -s "$data/recibo.lua" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" "$base/api/recibos" \
  | awk '/Requests\/sec/ {print $2}')
echo "   $recibos tickets/s = $(python3 -c "print(f'{100*$recibos/$clientes:.0f}%')") of GET /api/clientes"

# Exactly 10,000 open tickets: cancel what the load made beyond the first 10,000, or add more.
abiertos=$(curl -sf "$base/api/recibos?status=ABIERTO&pageSize=1" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" | json "['data']['total']")
while [ "$abiertos" -lt 10000 ]; do
  curl -sf "$base/api/recibos" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' \
    -d '{"formaPago":"01","conceptos":[{"claveProdServ":"50202306","claveUnidad":"H87","descripcion":"Venta","cantidad":1,"precioUnitario":"116"}]}' >/dev/null
  abiertos=$((abiertos + 1))
done
if [ "$abiertos" -gt 10000 ]; then
  sobran=$((abiertos - 10000))
  curl -sf "$base/api/recibos?status=ABIERTO&pageSize=$((sobran < 1000 ? sobran : 1000))" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" \
    | python3 -c "import json,sys; [print(r['id']) for r in json.load(sys.stdin)['data']['items']]" \
    | while read -r id; do curl -sf -X POST "$base/api/recibos/$id/cancelar" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" >/dev/null; done
fi
mes=$(TZ=America/Mexico_City date +%m); ano=$(TZ=America/Mexico_City date +%Y)
echo "== POST /api/cfdi/global of the open tickets"
inicio=$(date +%s.%N)
recibos_global=$(curl -sf "$base/api/cfdi/global" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' \
  -d "{\"periodicidad\":\"04\",\"meses\":\"$mes\",\"año\":$ano}" | json "['data']['recibos']")
fin=$(date +%s.%N)
rss=$(awk '/VmHWM/ {print $2/1024 " MB"}' /proc/$server/status)
echo "   $recibos_global tickets in $(python3 -c "print(f'{$fin-$inicio:.2f}')") s; server peak RSS $rss"
