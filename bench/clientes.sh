#!/usr/bin/env bash
# Load benchmark of the foundation: authenticated GET and POST /api/clientes, 64 connections,
# SQLite, rate limiting off. Needs wrk (apt-get install wrk) and a release build.
# Usage: bench/clientes.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
# shellcheck source=comun.sh
source bench/comun.sh
# 1,000 customers so the listing reads a realistic table.
for i in $(seq 1 1000); do
  printf '{"rfc":"XAXX010101000","razonSocial":"CLIENTE %04d","regimenFiscal":"616","codigoPostal":"42501","usoCfdi":"S01"}\n' "$i"
done | while read -r body; do
  curl -sf "$base/api/clientes" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' -d "$body" >/dev/null
done

cat > "$data/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '{"rfc":"XAXX010101000","razonSocial":"PUBLICO EN GENERAL","regimenFiscal":"616","codigoPostal":"42501","usoCfdi":"S01"}'
LUA
echo "== GET /api/clientes (page of 20 from 1,000), 64 connections, ${seconds}s"
wrk -t2 -c64 -d"${seconds}s" --latency -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" "$base/api/clientes" \
  | grep -E 'Requests/sec|50%|99%|Non-2xx'
echo "== POST /api/clientes, 64 connections, ${seconds}s"
wrk -t2 -c64 -d"${seconds}s" --latency -s "$data/post.lua" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" "$base/api/clientes" \
  | grep -E 'Requests/sec|50%|99%|Non-2xx'
