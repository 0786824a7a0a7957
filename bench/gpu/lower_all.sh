#!/usr/bin/env bash
# Lower every schedule of every .cake file under the given folders (default corpus/ bench/gpu/schedules/)
# or of the files listed in $LIST (one path a line) into OUTDIR, one .cu per schedule (a schedule that does
# not lower leaves its error text in a .err), to compare a lowering change's generated kernels before and
# after: run it with the old and the new `cake`, then `diff -r`. Verification runs first (cake lower), so
# it takes seconds a file; docs/benchmarks.md "Branch-free guarded element reads" used a list.
# Usage: [LIST=files.txt] bash bench/gpu/lower_all.sh CAKE OUTDIR [DIR...]
set -u
C=$1 O=$2; shift 2
mkdir -p "$O"
if [ -n "${LIST:-}" ]; then files=$(cat "$LIST"); else files=$(find "${@:-corpus bench/gpu/schedules}" -name '*.cake' | sort); fi
for f in $files; do
  for s in $(sed -n 's/^def \([A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
    n=$(echo "${f%.cake}" | tr '/' '_')__$s
    timeout 60 "$C" lower "$f" --schedule "$s" --check-timeout 10 -o "$O/$n.cu" > "$O/$n.err" 2>&1 || true
    [ -s "$O/$n.err" ] || rm -f "$O/$n.err"
  done
done
