# Shared by the bench scripts (sourced, not run): builds the release binary (BENCH_PROFILE=debug:
# the debug one, whose figures must say so; BENCH_BIN=path: that binary, no build), starts it on a fresh SQLite data folder with rate
# limiting off (stopped and removed on exit), and makes a user, an API key and a sandbox
# company. Sets: data, base, server, key, empresa; defines json and warm_up (sets cliente and
# body).
target_dir=${CARGO_TARGET_DIR:-./target}
if [ -n "${BENCH_BIN:-}" ]; then
  # A binary built already (e.g. the debug one `cargo test -p timbra-server` left): no build.
  timbra=$BENCH_BIN
elif [ "${BENCH_PROFILE:-release}" = debug ]; then
  cargo build -p timbra-server >/dev/null
  timbra="$target_dir/debug/timbra"
else
  cargo build --release -p timbra-server >/dev/null
  timbra="$target_dir/release/timbra"
fi
# BENCH_DATA_PARENT picks the file system of the data folder (default: $TMPDIR or /tmp).
data=$(mktemp -d -p "${BENCH_DATA_PARENT:-${TMPDIR:-/tmp}}")
port=18$((RANDOM % 900 + 100))
base="http://127.0.0.1:$port"
TIMBRA_DATA_DIR="$data" TIMBRA_LISTEN="127.0.0.1:$port" TIMBRA_RATE_LIMIT=false TIMBRA_LOG=warn \
  "$timbra" serve &
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

# The test invoice (factura.sh) and one stamp of it: the company's first stamp generates and
# stores its sandbox CSD and the TFD key, a one-time cost kept out of the timed part (a company
# that has stamped before never pays it again). Sets cliente and body.
# shellcheck source=factura.sh
source bench/factura.sh
warm_up() {
  factura_de_prueba "$base" "$key" "$empresa"
  curl -sf "$base/api/cfdi/timbrar" -H "authorization: Bearer $key" -H "x-empresa-id: $empresa" -H 'content-type: application/json' -d "$body" >/dev/null
}

# RSA-2048 signatures per second on every core (`openssl speed -multi <cores>`, 5 s), the
# stamping benches' physical limit. They take it before and after the load and divide by the
# mean: on a shared 2-vCPU machine it drifted from 6,700 to 8,100 between two runs minutes
# apart, and one reading before the load made the ratio swing with it.
rsa_signs() { openssl speed -multi "$(nproc)" -seconds 5 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print $(NF-1)}'; }
# Prints the ceiling line from two readings ($1 before, $2 after) and sets signs to their mean;
# $3 names what is stamped (invoices, receipts).
ceiling() {
  signs=$(python3 -c "print(round(($1 + $2) / 2, 1))")
  echo "== ceiling: openssl speed -multi $(nproc) rsa2048 = $1 sign/s before, $2 after, mean $signs; / 2 = $(python3 -c "print(round($signs/2))") $3/s"
}
# Prints the ratio of $1 (documents stamped per second) to the ceiling that `ceiling` set in
# signs (two signatures per document).
ratio() { echo "== ratio to the ceiling: $(python3 -c "print(f'{100*($1)/($signs/2):.0f}%')")"; }
