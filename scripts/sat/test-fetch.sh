#!/usr/bin/env bash
# Tests scripts/fetch-sat.sh without SAT's network: builds a mirror of every URL it fetches
# from an existing folder of SAT's files (SAT_DIR, e.g. ../shared/sat), serves it with
# python3 -m http.server, runs the script into a temporary folder with TIMBRA_SAT_MIRROR, and
# checks the result: xmllint validates a sample against the wrapper schema, xsltproc with the
# fetched stylesheets computes the expected cadena, and the folder equals SAT_DIR file for file.
# Run by the server's tests (`fetch_sat::fetch_sat_builds_the_folder_the_tests_read_from_a_mirror_of_sats_urls`).
set -euo pipefail
sat=$(cd "${1:?usage: $0 SAT_DIR}" && pwd)
scripts=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  rm -rf "$work"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT

# The mirror: each URL's host and path (decoded, as http.server maps them) holds SAT_DIR's file.
# SAT's files there already have their locations rewritten; the script's rewriting is idempotent.
mkdir -p "$work/mirror"
"$scripts/fetch-sat.sh" --list | python3 -c '
import os, shutil, sys, urllib.parse, zipfile
sat, mirror = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    url, file = line.split()
    target = os.path.join(mirror, urllib.parse.unquote(url.split("://", 1)[1]))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if file.endswith("RFC-PAC-SC.zip"):
        # SAT zip: the 2023 CSD and FIEL of EKU9003173C9 under names unlike ours.
        with zipfile.ZipFile(target, "w") as z:
            for serial, name in (("30001000000500003416", "CSD_EKU9003173C9"), ("30001000000500003415", "FIEL_EKU9003173C9")):
                for ext in ("cer", "key"):
                    z.write(os.path.join(sat, "certs", serial + "." + ext), "RFC-PAC-SC/Personas Morales/EKU9003173C9/" + name + "." + ext)
    else:
        shutil.copyfile(os.path.join(sat, file), target)
' "$sat" "$work/mirror"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$work/mirror" "$port" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 50); do
  curl -fs -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 0.1
done

out="$work/out"
TIMBRA_SAT_MIRROR="http://127.0.0.1:$port" bash ${TRACE:+-x} "$scripts/fetch-sat.sh" "$out" >"$work/fetch.log" 2>&1 || {
  cat "$work/fetch.log" >&2
  exit 1
}
grep -q '30001000000500003416.cer: from SAT.s RFC-PAC-SC.zip' "$work/fetch.log" || {
  echo "the CSD did not come from SAT's zip:" >&2
  cat "$work/fetch.log" >&2
  exit 1
}
if grep -q 'differ from the copies' "$work/fetch.log"; then
  cat "$work/fetch.log" >&2
  exit 1
fi

sample="$out/samples/P_EKU9003173C9_pagos20.xml"
xmllint --nonet --noout --schema "$out/xsd/cfdv40-with-complements.xsd" "$sample" 2>"$work/xmllint.log" || {
  cat "$work/xmllint.log" >&2
  exit 1
}
xsltproc --nonet "$out/xslt/cadenaoriginal_4_0.xslt" "$sample" 2>/dev/null >"$work/cadena.txt"
cmp "$work/cadena.txt" "$sat/samples/expected/P_EKU9003173C9_pagos20.cadena.txt"

# File for file what the tests read from SAT_DIR (its README is not needed).
# Everything but the shared folder's own annotations (fetch-sat.sh's ANNOTATIONS).
diff -r -x README.md -x certs.csv -x manifest.csv -x '*_generated*' -x check_cfdi.sh "$sat" "$out"
echo "fetch-sat.sh: mirror fetch ok ($(find "$out" -type f | wc -l) files)"
