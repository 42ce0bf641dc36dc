#!/usr/bin/env bash
# Smoke test of a running compose stack (deploy/compose.yaml), through the proxy as a client
# would: /readyz of each instance (asked inside its container), sign-up, a key, a sandbox
# company and customer, a stamp, the PDF through its presigned link from the bucket, and the
# XML. Exits non-zero at the first thing that does not work.
#   TIMBRA_MASTER_KEY=$(openssl rand -base64 32) docker compose -p timbra -f deploy/compose.yaml up -d --build
#   deploy/smoke.sh
# Settings: TIMBRA_URL (the proxy, default http://localhost:8080), COMPOSE (the compose
# command, default "docker compose -p timbra -f deploy/compose.yaml"; Debian's v1 is
# "docker-compose -p timbra -f deploy/compose.yaml"), BUCKET_ADDRESS (where the host reaches
# the bucket named in presigned links, default 127.0.0.1:9000, as the compose file publishes it).
set -euo pipefail
cd "$(dirname "$0")/.."
url=${TIMBRA_URL:-http://localhost:8080}
read -r -a compose <<< "${COMPOSE:-docker compose -p timbra -f deploy/compose.yaml}"
bucket_address=${BUCKET_ADDRESS:-127.0.0.1:9000}
email="smoke-$(date +%s)-$RANDOM@example.com"

fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

# Each instance's /readyz from inside its container (the runtime image has bash, not curl):
# database and storage reachable from that instance.
for instance in timbra-1 timbra-2; do
  # (compose checks every variable the file names, even to list containers)
  container=$(TIMBRA_MASTER_KEY=${TIMBRA_MASTER_KEY:-unused} "${compose[@]}" ps -q "$instance")
  [[ -n $container ]] || fail "$instance is not running"
  ready=$(docker exec "$container" bash -c \
    'exec 3<>/dev/tcp/127.0.0.1/8080; printf "GET /readyz HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3; cat <&3') \
    || fail "$instance: cannot ask /readyz"
  head -n1 <<< "$ready" | grep -q ' 200 ' || fail "$instance /readyz: $ready"
  echo "ok: $instance /readyz: $(tail -n1 <<< "$ready")"
done

# The operator endpoints answer through the proxy from a private address (this host).
curl -sf "$url/readyz" >/dev/null || fail "/readyz through the proxy"

curl -sf "$url/api/auth/register" -H 'content-type: application/json' \
  -d "{\"name\":\"Smoke\",\"email\":\"$email\",\"password\":\"Secreto1!\"}" >/dev/null || fail "register"
key=$(curl -sf "$url/api/api-keys" -H 'content-type: application/json' \
  -d "{\"name\":\"smoke\",\"email\":\"$email\",\"password\":\"Secreto1!\"}" | json "['data']['key']") || fail "api key"
auth=(-H "authorization: Bearer $key" -H 'content-type: application/json')
empresa=$(curl -sf "$url/api/empresas" "${auth[@]}" \
  -d '{"rfc":"EKU9003173C9","razonSocial":"ESCUELA KEMPER URGATE","regimenFiscal":"601","codigoPostal":"42501"}' \
  | json "['data']['id']") || fail "company"
auth+=(-H "x-empresa-id: $empresa")
cliente=$(curl -sf "$url/api/clientes" "${auth[@]}" \
  -d '{"rfc":"XIQB891116QE4","razonSocial":"XIMENA QUIROZ BARRAGAN","regimenFiscal":"626","codigoPostal":"42501","usoCfdi":"G03"}' \
  | json "['data']['id']") || fail "customer"
echo "ok: registered $email, company $empresa"

stamped=$(curl -sf "$url/api/cfdi/timbrar" "${auth[@]}" -d "{\"formaPago\":\"03\",\"metodoPago\":\"PUE\",\"clienteId\":\"$cliente\",\
\"conceptos\":[{\"claveProdServ\":\"81112100\",\"claveUnidad\":\"E48\",\"descripcion\":\"Servicio\",\"cantidad\":1,\"precioUnitario\":\"100.00\"}]}") \
  || fail "stamp"
id=$(json "['data']['cfdiId']" <<< "$stamped")
echo "ok: stamped $id, folio $(json "['data']['folio']" <<< "$stamped")"

# The PDF: rendered into the bucket, then its link answers 302 to a URL the bucket presigned.
invoice=$(curl -sf "$url/api/cfdi/$id" "${auth[@]}") || fail "invoice"
curl -sf -o /dev/null "$url/api/cfdi/$id/pdf" "${auth[@]}" || fail "PDF"
link=$(json "['data']['pdfDownloadUrl']" <<< "$invoice")
location=$(curl -s -o /dev/null -w '%{redirect_url}' "$url$link")
[[ $location == *X-Amz-Signature=* ]] || fail "the PDF link is not a presigned URL: '$location'"
endpoint=${location#*://}; endpoint=${endpoint%%/*}
pdf=$(mktemp); trap 'rm -f "$pdf"' EXIT
curl -sf --connect-to "$endpoint:$bucket_address" -o "$pdf" "$location" || fail "the bucket refused $location"
[[ $(head -c4 "$pdf") == %PDF ]] || fail "the bucket's file is not a PDF"
echo "ok: PDF from the bucket through its presigned link ($(wc -c < "$pdf") bytes)"

xml=$(json "['data']['xmlDownloadUrl']" <<< "$invoice")
curl -sf "$url$xml" | grep -q 'cfdi:Comprobante' || fail "XML"
echo "ok: XML"
echo "smoke test passed"
