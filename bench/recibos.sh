#!/usr/bin/env bash
# Load benchmark of sales tickets (issue 31): POST /api/recibos (no RSA: a ticket is computed
# and stored, not sealed) as a ratio to GET /api/clientes in the same run, 64 connections,
# SQLite; then one global invoice of 10,000 tickets (built, sealed, stored) timed on the server
# started again, with its peak RSS. Needs wrk (apt-get install wrk) and a release build.
# Usage: bench/recibos.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
# shellcheck source=comun.sh
source bench/comun.sh
warm_up

# The load's tickets are dated in the previous month, so the global invoice of this month takes
# only the 10,000 made for it afterwards.
mes_pasado=$(TZ=America/Mexico_City date -d "$(TZ=America/Mexico_City date +%Y-%m-01) -1 day" +%Y-%m-15T12:00:00)
lineas='"conceptos":[{"claveProdServ":"50202306","claveUnidad":"H87","descripcion":"Refresco","cantidad":2,"precioUnitario":"23.20"},{"claveProdServ":"50202306","claveUnidad":"H87","descripcion":"Torta","cantidad":1,"precioUnitario":"57.99"}]'
cat > "$data/recibo.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '{"formaPago":"01","fecha":"$mes_pasado",$lineas}'
LUA
# 5,000 tickets of today per wrk thread (two threads): each stops at its count.
cat > "$data/diez_mil.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '{"formaPago":"01",$lineas}'
local n = 0
response = function(status, headers, body)
  n = n + 1
  if n >= 5000 then wrk.thread:stop() end
end
LUA
echo "== GET /api/clientes, 64 connections, ${seconds}s"
clientes=$(wrk -t2 -c64 -d"${seconds}s" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" "$base/api/clientes" \
  | awk '/Requests\/sec/ {print $2}')
echo "   $clientes req/s"
echo "== POST /api/recibos, 64 connections, ${seconds}s"
recibos=$(wrk -t2 -c64 -d"${seconds}s" -s "$data/recibo.lua" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" "$base/api/recibos" \
  | awk '/Requests\/sec/ {print $2}')
echo "   $recibos tickets/s = $(python3 -c "print(f'{100*$recibos/$clientes:.0f}%')") of GET /api/clientes"

# Exactly 10,000 open tickets this month: the two threads' 5,000 each (a few more in flight
# when they stop are cancelled), or more one by one.
wrk -t2 -c8 -d120s -s "$data/diez_mil.lua" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" "$base/api/recibos" >/dev/null
desde=$(TZ=America/Mexico_City date +%Y-%m-01)
abiertos() { curl -sf "$base/api/recibos?status=ABIERTO&desde=$desde&pageSize=${1:-1}" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa"; }
n=$(abiertos | json "['data']['total']")
while [ "$n" -lt 10000 ]; do
  curl -sf "$base/api/recibos" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' \
    -d "{\"formaPago\":\"01\",$lineas}" >/dev/null
  n=$((n + 1))
done
if [ "$n" -gt 10000 ]; then
  abiertos $((n - 10000)) | python3 -c "import json,sys; [print(r['id']) for r in json.load(sys.stdin)['data']['items']]" \
    | while read -r id; do curl -sf -X POST "$base/api/recibos/$id/cancelar" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" >/dev/null; done
fi
rss_carga=$(awk '/VmHWM/ {print $2/1024 " MB"}' /proc/$server/status)
echo "   server peak RSS after the ticket load: $rss_carga"
# The global invoice on a server that did nothing else: the same data folder, started again,
# so its peak RSS is the global invoice's (the load's page caches and buffers are not in it).
kill $server; wait $server 2>/dev/null || true
TIMBRA_DATA_DIR="$data" TIMBRA_LISTEN="127.0.0.1:$port" TIMBRA_RATE_LIMIT=false TIMBRA_LOG=warn \
  ./target/release/timbra serve &
server=$!
for _ in $(seq 1 50); do curl -sf "$base/llms.txt" >/dev/null && break; sleep 0.2; done
# One invoice first: what any stamp of a new process loads once (the CSD, the sandbox TFD key,
# SAT's catalogs) stays out of the timed part, as in the stamping benches.
curl -sf "$base/api/cfdi/timbrar" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' -d "$body" >/dev/null
mes=$(TZ=America/Mexico_City date +%m); ano=$(TZ=America/Mexico_City date +%Y)
echo "== POST /api/cfdi/global of the open tickets (the server started again)"
inicio=$(date +%s.%N)
recibos_global=$(curl -sf "$base/api/cfdi/global" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' \
  -d "{\"periodicidad\":\"04\",\"meses\":\"$mes\",\"año\":$ano}" | json "['data']['recibos']")
fin=$(date +%s.%N)
rss=$(awk '/VmHWM/ {print $2/1024 " MB"}' /proc/$server/status)
echo "   $recibos_global tickets in $(python3 -c "print(f'{$fin-$inicio:.2f}')") s; server peak RSS $rss"
