#!/usr/bin/env bash
# Load benchmark of sandbox stamping of a Carta Porte 3.1 traslado with 20 goods over HTTP:
# POST /api/cfdi/timbrar, 32 connections, SQLite, rate limiting off (issue 33). Each stamp
# builds the complement from the body (IdCCP, totals), checks the Carta Porte rules, writes
# and seals the CFDI (two RSA-2048 signatures: CSD and sandbox TFD) and stores it. The ceiling
# is `openssl speed -multi <cores> rsa2048` / 2, read before and after the load (comun.sh).
# Usage: bench/carta_porte.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
# shellcheck source=comun.sh
source bench/comun.sh

body=$(python3 - <<'PY'
import datetime, json
salida = (datetime.datetime.now() + datetime.timedelta(days=1)).replace(minute=0, second=0, microsecond=0)
llegada = salida + datetime.timedelta(hours=6)
fmt = lambda t: t.strftime("%Y-%m-%dT%H:%M:%S")
mercancia = [{"bienesTransp": "24112700", "descripcion": f"Cajas de cartón lote {i + 1}", "cantidad": "10",
              "claveUnidad": "XBX", "pesoEnKg": "75.5", "materialPeligroso": "No"} for i in range(20)]
print(json.dumps({"tipoComprobante": "T",
  "conceptos": [{"claveProdServ": "24112700", "claveUnidad": "XBX", "descripcion": "Cajas de cartón", "cantidad": 200,
                 "precioUnitario": 0, "objetoImpuesto": "01"}],
  "complementos": {"cartaPorte": {"transpInternac": "No",
    "ubicaciones": [
      {"tipoUbicacion": "Origen", "idUbicacion": "OR000001", "rfcRemitenteDestinatario": "EKU9003173C9",
       "fechaHoraSalidaLlegada": fmt(salida), "domicilio": {"estado": "HID", "pais": "MEX", "codigoPostal": "42501"}},
      {"tipoUbicacion": "Destino", "idUbicacion": "DE000001", "rfcRemitenteDestinatario": "XIA190128J61",
       "fechaHoraSalidaLlegada": fmt(llegada), "distanciaRecorrida": "250",
       "domicilio": {"estado": "QUE", "pais": "MEX", "codigoPostal": "76343"}}],
    "mercancias": {"unidadPeso": "KGM", "mercancia": mercancia,
      "autotransporte": {"permSCT": "TPAF01", "numPermisoSCT": "0X2XTXZ0X5X0X3X2X1X0",
        "identificacionVehicular": {"configVehicular": "C2", "pesoBrutoVehicular": "12", "placaVM": "501AAA", "anioModeloVM": 2020},
        "seguros": {"aseguraRespCivil": "SEGUROS SA", "polizaRespCivil": "123456"}}},
    "figuraTransporte": [{"tipoFigura": "01", "rfcFigura": "VAAM130719H60", "numLicencia": "a234567890", "nombreFigura": "OPERADOR"}]}}}))
PY
)
# The first stamp generates the company's sandbox CSD and TFD key, kept out of the timed part.
first=$(curl -s "$base/api/cfdi/timbrar" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' -d "$body")
echo "$first" | grep -q '"success":true' || { echo "warm-up stamp failed: $first"; exit 1; }

cat > "$data/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = [[$body]]
LUA
signs_before=$(rsa_signs)
echo "== POST /api/cfdi/timbrar (sandbox, Carta Porte 3.1 with 20 goods), 32 connections, ${seconds}s"
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
rows, cp = db.execute("SELECT COUNT(*), SUM(complementos = 'cartaPorte') FROM cfdis").fetchone()
print(f"== stored: {rows} invoices, {cp} with cartaPorte:", "OK" if rows == cp else "BROKEN")
PY
