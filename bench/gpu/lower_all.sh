#!/usr/bin/env bash
# Lower every schedule of every .cake file under the given folders (default corpus/ bench/gpu/schedules/
# examples/) into OUTDIR, one .cu per schedule (a schedule that does not lower leaves its error text), to
# compare a lowering change's generated kernels before and after (diff -r OUTDIR_before OUTDIR_after).
# Usage: bash bench/gpu/lower_all.sh CAKE OUTDIR [DIR...]
set -u
C=$1 O=$2; shift 2
mkdir -p "$O"
for f in $(find "${@:-corpus bench/gpu/schedules examples}" -name '*.cake' 2>/dev/null | sort); do
  for s in $(sed -n 's/^def \([A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
    n=$(echo "${f%.cake}" | tr '/' '_')__$s
    timeout 60 "$C" lower "$f" --schedule "$s" --check-timeout 20 -o "$O/$n.cu" > "$O/$n.err" 2>&1 || true
    [ -s "$O/$n.err" ] || rm -f "$O/$n.err"
  done
done
