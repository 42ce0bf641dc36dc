#!/usr/bin/env bash
# Load benchmark of sandbox stamping over HTTP: POST /api/cfdi/timbrar, 32 connections, SQLite,
# rate limiting off. Each invoice is built, sealed with the company's CSD (RSA-SHA256),
# stamped with the sandbox TFD key (a second signature), and stored (row + deflated XML) in one
# transaction with its folio. Afterwards the folios are checked: every row has its own and
# they run 1..N with no gap. Needs wrk and a release build.
#
# The ceiling is measured in the same run: `openssl speed -multi <cores> rsa2048` signatures
# per second over 2 (two signatures per invoice), before and after the load (their mean,
# `ceiling` in comun.sh); the script prints the ratio to it.
# Usage: bench/timbrar.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
# shellcheck source=comun.sh
source bench/comun.sh
warm_up

cat > "$data/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '$body'
LUA
signs_before=$(rsa_signs)
echo "== POST /api/cfdi/timbrar (sandbox, 2 conceptos), 32 connections, ${seconds}s"
out=$(wrk -t2 -c32 -d"${seconds}s" --latency -s "$data/post.lua" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" \
  "$base/api/cfdi/timbrar")
ceiling "$signs_before" "$(rsa_signs)" invoices
echo "$out" | grep -E 'requests in|Requests/sec|50%|99%|Non-2xx'
rate=$(echo "$out" | awk '/^Requests\/sec/ {print $2}')
ratio "$rate"
echo "== server peak RSS: $(grep VmHWM /proc/$server/status | awk '{print $2/1024 " MB"}')"
python3 - "$data/timbra.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows, distinct, lo, hi = db.execute("SELECT COUNT(*), COUNT(DISTINCT folio_num), MIN(folio_num), MAX(folio_num) FROM cfdis").fetchone()
xml = db.execute("SELECT COUNT(*) FROM cfdi_xml").fetchone()[0]
print(f"== folios: {rows} invoices, {distinct} distinct, {lo}..{hi}, {xml} XML:", "OK" if rows == distinct == hi - lo + 1 == xml and lo == 1 else "BROKEN")
PY
