#!/usr/bin/env bash
# Sandbox stamping throughput of three set-ups measured in one run, as ratios to the RSA
# ceiling measured in the same run (`openssl speed -multi <cores> rsa2048` / 2, two signatures
# per invoice): one instance on SQLite, one on PostgreSQL, and two instances on one PostgreSQL
# database with the load split between them (two wrk processes at once, 16 connections each).
# Each set-up gets a fresh database; folios are checked gapless afterwards.
# Then scale-out measured on emulated one-core machines: one instance pinned to core 0 (taskset)
# against two instances pinned to cores 0 and 1, on one PostgreSQL database, each instance
# stamping for companies of its own as the proxy routes them (deploy/Caddyfile): the ratio is
# what one added "machine" gives. wrk and PostgreSQL are not pinned (PostgreSQL is shared), so
# with two instances they compete with them for the two cores: the ratio is a lower bound, and
# the CPU each instance used is printed to show whether it kept its core busy.
# Needs wrk, psql, taskset, a PostgreSQL reachable at $BENCH_PG (default postgres://postgres@127.0.0.1:5432).
# Usage: bench/instancias.sh [seconds]   (TIMBRA_BIN=path to run a binary built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-15}
pg=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
# TIMBRA_BIN: a timbra binary built elsewhere (e.g. copied out of the container image);
# otherwise the release build of this checkout.
bin=${TIMBRA_BIN:-./target/release/timbra}
[[ -n ${TIMBRA_BIN:-} ]] || cargo build --release -p timbra-server >/dev/null
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
# shellcheck source=factura.sh
source bench/factura.sh
pids=()
dirs=()
dbs=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for dir in "${dirs[@]}"; do rm -rf "$dir"; done
  for db in "${dbs[@]}"; do psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

# stop_instances: ends the instances of the previous set-up (they would hold PostgreSQL
# connections and poll for jobs during the next one).
stop_instances() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}

# start <database url or ""> [cpus] -> sets base, pid (and dir, its data folder); with cpus
# (a taskset list such as 0), the process runs on those cores only.
start() {
  local port pin=()
  dir=$(mktemp -d); dirs+=("$dir")
  port=$((18000 + RANDOM % 2000))
  [[ -n ${2:-} ]] && pin=(taskset -c "$2")
  TIMBRA_DATA_DIR="$dir" TIMBRA_LISTEN="127.0.0.1:$port" TIMBRA_RATE_LIMIT=false TIMBRA_LOG=warn \
    TIMBRA_DATABASE_URL="$1" TIMBRA_MASTER_KEY="$master" "${pin[@]}" "$bin" serve >/dev/null 2>&1 &
  pid=$!; pids+=("$pid")
  base="http://127.0.0.1:$port"
  for _ in $(seq 1 600); do curl -sf "$base/healthz" >/dev/null && return; sleep 0.1; done
  echo "timbra on $base did not answer within 60 s" >&2; exit 1
}

# setup <base> [user] -> sets key, empresa, body (a user of its own and its company)
setup() {
  local base=$1 user=${2:-bench}
  curl -sf "$base/api/auth/register" -H 'content-type: application/json' \
    -d "{\"name\":\"Bench\",\"email\":\"$user@example.com\",\"password\":\"Secreto1!\"}" >/dev/null
  key=$(curl -sf "$base/api/api-keys" -H 'content-type: application/json' \
    -d "{\"name\":\"bench\",\"email\":\"$user@example.com\",\"password\":\"Secreto1!\"}" | json "['data']['key']")
  empresa=$(curl -sf "$base/api/empresas" -H "authorization: Bearer $key" -H 'content-type: application/json' \
    -d '{"rfc":"EKU9003173C9","razonSocial":"ESCUELA KEMPER URGATE","regimenFiscal":"601","codigoPostal":"42501"}' | json "['data']['id']")
  factura_de_prueba "$base" "$key" "$empresa"
  lua=$(mktemp); dirs+=("$lua" "$lua.json")
  printf '%s' "$body" > "$lua.json"
  printf 'wrk.method = "POST"\nwrk.headers["content-type"] = "application/json"\nwrk.body = %s\n' "'$body'" > "$lua"
}

# load <connections> <base|base,key,empresa,lua>... : one wrk per target at once; prints
# "rate p99ms" (rates summed, worst p99). A bare base uses the last setup's key and company.
load() {
  local connections=$1; shift
  local outs=() i=0 target b k e l
  for target in "$@"; do
    IFS=, read -r b k e l <<< "$target"
    k=${k:-$key}; e=${e:-$empresa}; l=${l:-$lua}
    curl -sf "$b/api/cfdi/timbrar" -H "authorization: Bearer $k" -H "x-empresa-id: $e" -H 'content-type: application/json' -d "@$l.json" >/dev/null
    outs+=("$(mktemp)")
    wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$l" -H "authorization: Bearer $k" \
      -H "x-empresa-id: $e" "$b/api/cfdi/timbrar" > "${outs[$i]}" &
    i=$((i + 1))
  done
  wait
  python3 - "${outs[@]}" <<'PY'
import re, sys
rate, p99 = 0.0, 0.0
for path in sys.argv[1:]:
    text = open(path).read()
    rate += float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", text).groups()
    p99 = max(p99, float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit])
    if "Non-2xx" in text:
        print("NON-2XX ANSWERS in", path, file=sys.stderr)
print(f"{rate:.0f} {p99:.1f}")
PY
}

# folios <sqlite file | postgres url>: checks 1..N, one XML each
folios() {
  if [[ $1 == postgres* ]]; then
    psql "$1" -tAc "SELECT COUNT(*) = COUNT(DISTINCT folio_num) AND MIN(folio_num) = 1 AND MAX(folio_num) = COUNT(*) \
      AND COUNT(*) = (SELECT COUNT(*) FROM cfdi_xml) FROM cfdis" | sed 's/t/gapless/;s/f/BROKEN/'
  else
    python3 -c "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); r=d.execute('SELECT COUNT(*),COUNT(DISTINCT folio_num),MIN(folio_num),MAX(folio_num) FROM cfdis').fetchone(); x=d.execute('SELECT COUNT(*) FROM cfdi_xml').fetchone()[0]; print('gapless' if r[0]==r[1]==r[3]==x and r[2]==1 else 'BROKEN')" "$1"
  fi
}

master=$(openssl rand -base64 32)
cores=$(nproc)
signs=$(openssl speed -multi "$cores" -seconds 5 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print $(NF-1)}')
ceiling=$(python3 -c "print(round($signs/2))")
echo "== ceiling: openssl speed -multi $cores rsa2048 = $signs sign/s, / 2 = $ceiling invoices/s; load $(cut -d' ' -f1 /proc/loadavg)"
ratio() { python3 -c "print(f'{100*$1/$ceiling:.0f}%')"; }

start ""
setup "$base"
read -r rate p99 < <(load 32 "$base")
echo "== one instance, SQLite:          $rate invoices/s ($(ratio "$rate")), p99 ${p99} ms, folios $(folios "$dir/timbra.db")"

stop_instances
db="bench_$$_a"; dbs+=("$db"); psql "$pg/postgres" -qc "CREATE DATABASE $db" >/dev/null
start "$pg/$db"
setup "$base"
read -r rate p99 < <(load 32 "$base")
echo "== one instance, PostgreSQL:      $rate invoices/s ($(ratio "$rate")), p99 ${p99} ms, folios $(folios "$pg/$db")"

stop_instances
db="bench_$$_b"; dbs+=("$db"); psql "$pg/postgres" -qc "CREATE DATABASE $db" >/dev/null
start "$pg/$db"; base1=$base
start "$pg/$db"; base2=$base
setup "$base1"
read -r rate p99 < <(load 16 "$base1" "$base2")
echo "== two instances, one PostgreSQL: $rate invoices/s ($(ratio "$rate")), p99 ${p99} ms, folios $(folios "$pg/$db")"

# The same two instances, each stamping for a company of its own (tenants spread over the
# instances, as a load balancer does): no folio counter or prediction is shared.
stop_instances
db="bench_$$_c"; dbs+=("$db"); psql "$pg/postgres" -qc "CREATE DATABASE $db" >/dev/null
start "$pg/$db"; base1=$base
start "$pg/$db"; base2=$base
setup "$base1" uno; first="$base1,$key,$empresa,$lua"
setup "$base2" dos; second="$base2,$key,$empresa,$lua"
read -r rate p99 < <(load 16 "$first" "$second")
echo "== two instances, a company each: $rate invoices/s ($(ratio "$rate")), p99 ${p99} ms, folios per company checked by the first set-ups"

# cpu <pid>...: CPU seconds (user + system) the processes used so far.
cpu() {
  local total=0 pid
  for pid in "$@"; do
    total=$(awk -v t="$total" -v hz="$(getconf CLK_TCK)" '{print t + ($14 + $15) / hz}' "/proc/$pid/stat")
  done
  echo "$total"
}

# pinned <label> <cpus>...: one instance per cpu list on one fresh database, a company each,
# loaded at once; prints the rate and each instance's CPU use, sets pinned_rate.
pinned() {
  local label=$1; shift
  local targets=() started=() cpus before after
  stop_instances
  db="bench_$$_p${#dbs[@]}"; dbs+=("$db"); psql "$pg/postgres" -qc "CREATE DATABASE $db" >/dev/null
  for cpus in "$@"; do
    start "$pg/$db" "$cpus"; started+=("$pid")
    setup "$base" "core$cpus"; targets+=("$base,$key,$empresa,$lua")
  done
  before=$(cpu "${started[@]}")
  read -r pinned_rate p99 < <(load 16 "${targets[@]}")
  after=$(cpu "${started[@]}")
  # Invoices per CPU second timbra got: steady across set-ups when instances scale, whatever
  # share of their cores a busy machine left them.
  echo "== $label: $pinned_rate invoices/s ($(ratio "$pinned_rate")), p99 ${p99} ms, timbra used" \
    "$(python3 -c "u = ($after - $before) / $seconds; print(f'{u:.2f} cores, {$pinned_rate / u:.0f} invoices per CPU second')")"
}

if [[ $cores -ge 2 ]]; then
  pinned "one instance on core 0 (one 1-core machine)" 0; one=$pinned_rate
  pinned "two instances on cores 0 and 1 (two machines)" 0 1; two=$pinned_rate
  echo "== scale-out: the second 1-core instance multiplies throughput by $(python3 -c "print(f'{$two / $one:.2f}')")"
fi
