#!/usr/bin/env bash
# A month in one ZIP (issue 32): stamps N sandbox invoices (default 5,000) over HTTP, 16 at a
# time, then times one POST /api/cfdi/zip of the month (BENCH_ZIP_PDF=true adds every PDF) from
# the POST to TERMINADO, and reports the ZIP (files, size, every XML there) and the server's
# memory: VmRSS before the export and its peak during it (sampled every 20 ms), against the
# process's VmHWM (the stamping load included). The export streams, so its peak should not grow
# with N: compare runs of different N. SQLite, release build (BENCH_PROFILE=debug: the debug
# build). Then every XML in the ZIP is compared with its download. Needs curl, python3 and unzip.
# Usage: bench/zip.sh [invoices]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5000}
pdf=${BENCH_ZIP_PDF:-false}
# shellcheck source=comun.sh
source bench/comun.sh
warm_up
printf '%s' "$body" > "$data/factura.json"
auth=(-H "authorization: Bearer $key" -H "x-empresa-id: $empresa")

echo "== stamping $n sandbox invoices, 16 at a time"
inicio=$(date +%s.%N)
seq 1 "$n" | xargs -P 16 -I{} curl -sf -o /dev/null "$base/api/cfdi/timbrar" "${auth[@]}" \
  -H 'content-type: application/json' --data-binary @"$data/factura.json"
fin=$(date +%s.%N)
total=$(curl -sf "$base/api/cfdi?limit=1" "${auth[@]}" | json "['data']['total']")
echo "   $total invoices in the company after $(python3 -c "print(f'{$fin-$inicio:.1f}')") s"

desde=$(TZ=America/Mexico_City date +%Y-%m-01); hasta=$(TZ=America/Mexico_City date +%Y-%m-%d)
rss() { awk '/VmRSS/ {print $2}' "/proc/$server/status"; }
antes=$(rss)
muestras="$data/rss.txt"
( while kill -0 "$server" 2>/dev/null; do rss >> "$muestras"; sleep 0.02; done ) &
muestreo=$!
echo "== POST /api/cfdi/zip $desde..$hasta, incluirPdf $pdf"
inicio=$(date +%s.%N)
job=$(curl -sf "$base/api/cfdi/zip" "${auth[@]}" -H 'content-type: application/json' \
  -d "{\"desde\":\"$desde\",\"hasta\":\"$hasta\",\"incluirPdf\":$pdf}" | json "['data']['jobId']")
while :; do
  estado=$(curl -sf "$base/api/cfdi/zip/$job" "${auth[@]}")
  status=$(printf '%s' "$estado" | json "['data']['status']")
  [ "$status" = TERMINADO ] && break
  if [ "$status" = FALLIDO ]; then echo "$estado"; exit 1; fi
  sleep 0.1
done
fin=$(date +%s.%N)
kill "$muestreo" 2>/dev/null || true
pico=$(sort -n "$muestras" | tail -1)
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$server/status")
url=$(printf '%s' "$estado" | json "['data']['downloadUrl']")
curl -sf "$base$url" -o "$data/export.zip"
xmls=$(unzip -Z1 "$data/export.zip" | grep -c '^EMITIDOS/.*\.xml$' || true)
filas=$(unzip -p "$data/export.zip" resumen.csv | tail -n +2 | wc -l)
echo "   $(printf '%s' "$estado" | json "['data']['cfdis']") CFDI, $(printf '%s' "$estado" | json "['data']['archivos']") files ($xmls XML, $filas summary rows), $(python3 -c "print(f'{$(stat -c %s "$data/export.zip")/1048576:.1f}')") MB in $(python3 -c "print(f'{$fin-$inicio:.2f}')") s"
echo "   server RSS: $((antes / 1024)) MB before the export, peak $((pico / 1024)) MB during it (+$(((pico - antes) / 1024)) MB); VmHWM $((hwm / 1024)) MB (the stamping load included)"

# The ZIP against the downloads: every issued CFDI of the listing (pages of 1,000) has its
# EMITIDOS/<UUID>.xml in the ZIP, byte for byte the same as GET /api/cfdi/{id}/xml (issue 32's
# test at full size; the `it` tests compare a handful).
echo "== comparing every XML in the ZIP with its download"
mkdir -p "$data/zip" && (cd "$data/zip" && unzip -q ../export.zip)
BASE="$base" KEY="$key" EMPRESA="$empresa" DIR="$data/zip" python3 - <<'PY'
import json, os, sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
base, key, empresa, folder = os.environ["BASE"], os.environ["KEY"], os.environ["EMPRESA"], os.environ["DIR"]
headers = {"authorization": f"Bearer {key}", "x-empresa-id": empresa}
def get(path):
    with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers)) as r:
        return r.read()
cfdis, page = [], 1
while True:
    data = json.loads(get(f"/api/cfdi?tipo=EMITIDA&limit=1000&page={page}"))["data"]
    cfdis += data["cfdis"]
    if len(cfdis) >= data["total"] or not data["cfdis"]:
        break
    page += 1
def same(c):
    path = os.path.join(folder, "EMITIDOS", f"{c['uuid']}.xml")
    return os.path.exists(path) and open(path, "rb").read() == get(f"/api/cfdi/{c['id']}/xml")
with ThreadPoolExecutor(8) as pool:
    results = list(pool.map(same, cfdis))
bad = [c["uuid"] for c, ok in zip(cfdis, results) if not ok]
in_zip = len([n for n in os.listdir(os.path.join(folder, "EMITIDOS")) if n.endswith(".xml")])
print(f"   {len(cfdis) - len(bad)} of {len(cfdis)} listed CFDI identical in the ZIP ({in_zip} XML there)")
if bad or in_zip != len(cfdis):
    print("   MISMATCH:", bad[:10]); sys.exit(1)
PY
