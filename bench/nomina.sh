#!/usr/bin/env bash
# Payroll stamping benchmark over HTTP, SQLite, sandbox: a QUINCENAL period of N employees
# (default 1,000; every fifth with approved overtime, every seventh with an absence) is
# calculated, then stamped by one POST /api/nomina/periodos/{id}/timbrar: N CFDI tipo N with
# Nómina 1.2, each sealed with the company's CSD and stamped with the sandbox TFD key (two
# RSA-2048 signatures), written with its receipt update and event. Afterwards the folios are
# checked (1..N, one XML each). One invoice is stamped first (`warm_up` in comun.sh), so the
# company's one-time sandbox CSD generation is not timed.
#
# The ceiling is measured in the same run: `openssl speed -multi <cores> rsa2048` signatures
# per second over 2 (two signatures per receipt); the script prints the ratio to it.
# Usage: [BENCH_PERIODO=AGUINALDO] bench/nomina.sh [employees]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
# shellcheck source=comun.sh
source bench/comun.sh
auth=(-H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json')
curl -sf -X PATCH "$base/api/empresas/$empresa" "${auth[@]}" -d '{"registroPatronal":"B5510768108"}' >/dev/null
# Employees with valid RFC, CURP and NSS check digits, generated here.
python3 - "$n" > "$data/empleados.jsonl" <<'PY'
import json, sys
D = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ"
C = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"
def rfc(s):
    r = sum(D.index(c) * (13 - i) for i, c in enumerate(s)) % 11
    return s + ("0" if r == 0 else "A" if r == 1 else str(11 - r))
def curp(s):
    d = 10 - sum(C.index(c) * (18 - i) for i, c in enumerate(s)) % 10
    return s + ("0" if d == 10 else str(d))
def nss(s):
    t = sum((int(c) * (2 if i % 2 else 1)) // 10 + (int(c) * (2 if i % 2 else 1)) % 10 for i, c in enumerate(s))
    return s + str((10 - t % 10) % 10)
L = "BCDFGHJKLMNPQRSTVWXZ"
for k in range(int(sys.argv[1])):
    letras = "G" + "A" + L[k % 20] + L[(k // 20) % 20]
    fecha = f"{80 + k % 20:02d}{1 + k % 12:02d}{1 + k % 28:02d}"
    print(json.dumps({
        "numEmpleado": f"B{k:05d}", "nombre": f"EMPLEADO {k} DE PRUEBA", "rfc": rfc(letras + fecha + "A1"),
        "curp": curp(letras + fecha + "HDFRRN" + "0"), "nss": nss(f"{10000000 + k:010d}"), "codigoPostal": "86000",
        "fechaInicioRelLaboral": "2020-01-01", "salarioDiario": f"{300 + k % 900}.50", "salarioDiarioIntegrado": f"{315 + k % 900}.75",
        "periodicidad": "QUINCENAL", "tipoContrato": "01", "tipoJornada": "01", "tipoRegimen": "02", "riesgoPuesto": 1,
        "claveEntFed": "TAB"}))
PY
while read -r body; do
  id=$(curl -sf "$base/api/nomina/empleados" "${auth[@]}" -d "$body" | json "['data']['id']")
  echo "$id" >> "$data/ids"
done < "$data/empleados.jsonl"
k=0
while read -r id; do
  if (( k % 5 == 0 )); then
    curl -sf "$base/api/nomina/incidencias" "${auth[@]}" -d "{\"empleadoId\":\"$id\",\"tipo\":\"HORAS_EXTRA\",\"fecha\":\"2026-11-05\",\"horas\":6}" \
      | json "['data']['id']" >> "$data/incidencias"
  elif (( k % 7 == 0 )); then
    curl -sf "$base/api/nomina/incidencias" "${auth[@]}" -d "{\"empleadoId\":\"$id\",\"tipo\":\"FALTA\",\"fecha\":\"2026-11-06\",\"dias\":1}" \
      | json "['data']['id']" >> "$data/incidencias"
  fi
  k=$((k + 1))
done < "$data/ids"
while read -r id; do
  curl -sf -X PATCH "$base/api/nomina/incidencias/$id" "${auth[@]}" -d '{"status":"APROBADA"}' >/dev/null
done < "$data/incidencias"
# BENCH_PERIODO=AGUINALDO stamps December's aguinaldo (an EXTRAORDINARIA period, TipoNomina E)
# of the same employees instead of the quincena (issue 35).
if [ "${BENCH_PERIODO:-}" = AGUINALDO ]; then
  cuerpo='{"tipo":"EXTRAORDINARIA","concepto":"AGUINALDO","fechaPago":"2026-12-15"}'
else
  cuerpo='{"fechaInicio":"2026-11-01","fechaFin":"2026-11-15","fechaPago":"2026-11-15","periodicidad":"QUINCENAL","diasPagados":15}'
fi
periodo=$(curl -sf "$base/api/nomina/periodos" "${auth[@]}" -d "$cuerpo" | json "['data']['id']")
warm_up
curl -sf -X POST "$base/api/nomina/periodos/$periodo" "${auth[@]}" -o "$data/calculo.json" -w '== calculate (HTTP): %{time_total} s\n'
signs_before=$(rsa_signs)
secs=$(curl -sf -X POST "$base/api/nomina/periodos/$periodo/timbrar" "${auth[@]}" -o "$data/timbrado.json" -w '%{time_total}')
ceiling "$signs_before" "$(rsa_signs)" receipts
timbrados=$(json "['data']['timbrados']" < "$data/timbrado.json")
echo "== POST /api/nomina/periodos/{id}/timbrar: $timbrados of $n receipts in $secs s = $(python3 -c "print(round($timbrados/$secs))") receipts/s"
ratio "$timbrados/$secs"
echo "== server peak RSS: $(grep VmHWM /proc/$server/status | awk '{print $2/1024 " MB"}')"
python3 - "$data/timbra.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows, distinct, lo, hi = db.execute("SELECT COUNT(*), COUNT(DISTINCT folio_num), MIN(folio_num), MAX(folio_num) FROM cfdis WHERE serie = 'N'").fetchone()
xml = db.execute("SELECT COUNT(*) FROM cfdi_xml x JOIN cfdis c ON c.id = x.cfdi_id WHERE c.serie = 'N'").fetchone()[0]
print(f"== folios: {rows} receipts, {distinct} distinct, {lo}..{hi}, {xml} XML:", "OK" if rows == distinct == hi - lo + 1 == xml and lo == 1 else "BROKEN")
PY
