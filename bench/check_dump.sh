#!/usr/bin/env bash
# Dumps what `cake check --format json` says about every corpus schedule, for
# refactorings that must not change it (docs/benchmarks.md): one file per
# corpus file under OUT_DIR with stdout, stderr and the exit status. Compare
# two dumps (before and after) with `diff -r`.
#   bench/check_dump.sh CAKE_BINARY OUT_DIR [CORPUS_DIR] [JOBS]
set -euo pipefail
cake=$1 out=$2 corpus=${3:-corpus} jobs=${4:-2}
mkdir -p "$out"
one() {  # one CAKE OUT FILE
  { "$1" check --format json "$3" 2>&1; echo "exit $?"; } > "$2/${3//\//_}" || true
}
export -f one
find "$corpus" -name '*.cake' | sort | xargs -P "$jobs" -I{} bash -c 'one "$0" "$1" "{}"' "$cake" "$out"
echo "$(find "$corpus" -name '*.cake' | wc -l) files checked into $out"
