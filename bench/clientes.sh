#!/usr/bin/env bash
# Load benchmark of the foundation: authenticated GET and POST /api/clientes, 64 connections,
# SQLite, rate limiting off. Needs wrk (apt-get install wrk) and a release build.
# Usage: bench/clientes.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
cargo build --release -p timbra-server >/dev/null
data=$(mktemp -d)
port=18$((RANDOM % 900 + 100))
base="http://127.0.0.1:$port"
TIMBRA_DATA_DIR="$data" TIMBRA_LISTEN="127.0.0.1:$port" TIMBRA_RATE_LIMIT=false TIMBRA_LOG=warn \
  ./target/release/timbra serve &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 50); do curl -sf "$base/llms.txt" >/dev/null && break; sleep 0.2; done

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
curl -sf "$base/api/auth/register" -H 'content-type: application/json' \
  -d '{"name":"Bench","email":"bench@example.com","password":"Secreto1!"}' >/dev/null
key=$(curl -sf "$base/api/api-keys" -H 'content-type: application/json' \
  -d '{"name":"bench","email":"bench@example.com","password":"Secreto1!"}' | json "['data']['key']")
empresa=$(curl -sf "$base/api/empresas" -H "authorization: Bearer $key" -H 'content-type: application/json' \
  -d '{"rfc":"EKU9003173C9","razonSocial":"ESCUELA KEMPER URGATE","regimenFiscal":"601","codigoPostal":"42501"}' | json "['data']['id']")
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
