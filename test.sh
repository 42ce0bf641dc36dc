#!/usr/bin/env bash
# The test command: `cargo test --workspace --locked` (extra arguments are passed on; naming
# packages with -p runs only those), then a summary of every check that did not run, in the
# last lines: which prerequisite was missing (SAT's files, a tool, PostgreSQL, the browser), how
# to get it, and the tests concerned.
# Tests report skips through timbra-testkit into the file named by TIMBRA_SKIP_LOG; the test
# runner itself hides what passing tests print. The exit status is cargo's.
set -uo pipefail
cd "$(dirname "$0")"

TIMBRA_SKIP_LOG=$(mktemp "${TMPDIR:-/tmp}/timbra-skips.XXXXXX")
export TIMBRA_SKIP_LOG
trap 'rm -f "$TIMBRA_SKIP_LOG"' EXIT

# The whole workspace, unless packages are named (`./test.sh -p timbra-cfdi`).
scope=--workspace
for arg in "$@"; do
  [ "$arg" = "--" ] && break
  case "$arg" in -p | -p* | --package | --package=*) scope= ;; esac
done
cargo test $scope --locked "$@"
status=$?

# One line per skip: reason, heading, fix, test, what (tab-separated). A test that skipped the
# same thing twice (once per backend, say) counts once.
echo
if [ ! -s "$TIMBRA_SKIP_LOG" ]; then
  echo "Skipped checks: 0"
else
  sort -u -t$'\t' -k2,2 -k4,4 "$TIMBRA_SKIP_LOG" | awk -F'\t' '
    { key = $2 "\t" $3
      if (!(key in count)) { order[++groups] = key }
      count[key]++; tests[key] = tests[key] "    " $4 "\n"
      if (!($4 in seen)) { seen[$4] = 1; distinct++ } }
    END {
      print "Tests that skipped checks, by what they need:"
      for (i = 1; i <= groups; i++) { split(order[i], part, "\t"); printf "  %s:\n%s", part[1], tests[order[i]] }
      printf "Skipped checks: %d test%s did not check everything\n", distinct, distinct == 1 ? "" : "s"
      for (i = 1; i <= groups; i++) { split(order[i], part, "\t"); printf "  %d %s: %s\n", count[order[i]], part[1], part[2] }
    }'
fi
exit "$status"
