#!/usr/bin/env bash
# A platform's month of retentions over HTTP, SQLite, sandbox: one POST /api/retenciones/lote
# with N bodies (default 10,000: one seller each, CveRetenc 26 with the Servicios de Plataformas
# Tecnológicas complement, ISR and IVA withheld) is stamped as a durable batch job: each
# retention sealed with the company's CSD and stamped with the sandbox TFD key (two RSA-2048
# signatures), 250 per transaction. The time is from the POST to the job's TERMINADO, read by
# polling GET /api/retenciones/lote/{jobId} every 100 ms. Afterwards the FolioInt counters are
# checked (R1..RN, one XML each).
#
# The ceiling is measured in the same run: `openssl speed -multi <cores> rsa2048` signatures
# per second over 2 (two signatures per retention); the script prints the ratio to it.
# Usage: bench/retenciones.sh [retentions]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
# shellcheck source=comun.sh
source bench/comun.sh
auth=(-H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json')
python3 - "$n" > "$data/lote.json" <<'PY'
import json, sys
n = int(sys.argv[1])
def cuerpo(k):
    precio = 1000 + k % 500
    iva = round(precio * 0.16, 2)
    return {
        "cveRetenc": "26",
        "receptor": {"nacionalidad": "Nacional", "rfcR": "XIQB891116QE4",
                     "nomDenRazSocR": f"VENDEDOR {k}", "domicilioFiscalR": "01030"},
        "periodo": {"mesIni": "10", "mesFin": "10", "ejercicio": "2026"},
        "totales": {"montoTotOperacion": f"{precio}.00", "montoTotGrav": f"{precio}.00", "montoTotExent": "0.00"},
        "impRetenidos": [
            {"baseRet": f"{precio}.00", "impuestoRet": "001", "montoRet": f"{precio * 0.021:.2f}", "tipoPagoRet": "01"},
            {"baseRet": f"{precio}.00", "impuestoRet": "002", "montoRet": f"{iva / 2:.2f}", "tipoPagoRet": "01"}],
        "complementos": {"plataformasTecnologicas": {"periodicidad": "04", "servicios": [
            {"formaPagoServ": "03", "tipoDeServ": "03", "subTipServ": "04", "fechaServ": "2026-10-05",
             "precioServSinIVA": f"{precio}.00",
             "impuestosTrasladadosdelServicio": {"impuesto": "02", "tasaCuota": "0.160000"},
             "comisionDelServicio": {"importe": f"{precio * 0.15:.2f}"}}]}},
    }
print(json.dumps({"retenciones": [cuerpo(k) for k in range(n)]}))
PY
warm_up
echo "== body: $(du -h "$data/lote.json" | cut -f1)"
signs_before=$(rsa_signs)
inicio=$(date +%s.%N)
job=$(curl -sf "$base/api/retenciones/lote" "${auth[@]}" --data-binary "@$data/lote.json" | json "['data']['jobId']")
while :; do
  curl -sf "$base/api/retenciones/lote/$job" "${auth[@]}" -o "$data/estado.json"
  [ "$(json "['data']['status']" < "$data/estado.json")" = TERMINADO ] && break
  sleep 0.1
done
secs=$(python3 -c "import time; print(round(time.time() - $inicio, 3))")
ceiling "$signs_before" "$(rsa_signs)" retentions
timbradas=$(json "['data']['timbradas']" < "$data/estado.json")
errores=$(json "['data']['errores'].__len__()" < "$data/estado.json")
echo "== POST /api/retenciones/lote: $timbradas of $n stamped ($errores errors) in $secs s = $(python3 -c "print(round($timbradas/$secs))") retentions/s"
ratio "$timbradas/$secs"
echo "== server peak RSS: $(grep VmHWM /proc/$server/status | awk '{print $2/1024 " MB"}')"
python3 - "$data/timbra.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows, distinct, lo, hi = db.execute("SELECT COUNT(*), COUNT(DISTINCT folio_num), MIN(folio_num), MAX(folio_num) FROM cfdis WHERE tipo_comprobante = 'RET'").fetchone()
xml = db.execute("SELECT COUNT(*) FROM cfdi_xml x JOIN cfdis c ON c.id = x.cfdi_id WHERE c.tipo_comprobante = 'RET'").fetchone()[0]
print(f"== folios: {rows} retentions, {distinct} distinct, {lo}..{hi}, {xml} XML:", "OK" if rows == distinct == hi - lo + 1 == xml and lo == 1 else "BROKEN")
PY
