#!/usr/bin/env bash
# SAT catalogs (issue 29): the forms' search over c_ClaveProdServ (52,000 codes) answered over
# HTTP at 32 connections, by words ("cafe", accent-insensitive, ranked) and by code prefix
# ("811"); the target is p99 < 5 ms. Then the time to hold the shipped edition in memory (what
# every process does once at start; target < 10 s) and its peak RSS.
# Usage: bench/catalogos.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
# shellcheck source=comun.sh
source bench/comun.sh

for q in cafe 811 "servicios%20de%20contabilidad"; do
  url="$base/api/catalogos/productos-servicios?q=$q&pageSize=20"
  curl -sf "$url" -H "authorization: Bearer $key" | grep -q '"success":true'
  echo "== GET /api/catalogos/productos-servicios?q=$q, 32 connections, ${seconds}s"
  wrk -t2 -c32 -d"${seconds}s" --latency -H "authorization: Bearer $key" "$url" \
    | grep -E 'Requests/sec|^ +(50|99)%|Non-2xx' || true
done

echo "== holding the shipped edition in memory (release)"
cargo run --release -q -p timbra-services --example catalogos_memoria
