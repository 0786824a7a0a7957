#!/usr/bin/env bash
# Prepares the cost-model sweep for ONE device call (bench/gpu/device_cost_sweep.sh):
# writes the variants and the plan (cost_plan.py), checks every schedule with
# `cake check` (only verified ones are measured), lowers and compiles one kernel
# library per schedule here (nvcc, sm_90a), binds every (schedule, shape) pair
# to its workload (`cake-runner --dry-run` gives the harness arguments), and
# copies binaries, libraries and scripts into CARRY.
#
#   bash bench/gpu/cost_build.sh BUILD_DIR CARRY_DIR
set -euo pipefail
BUILD=${1:?build dir}
CARRY=${2:?carry dir}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$CARRY"/so "$CARRY"/bin "$CARRY"/lib "$CARRY"/cu
# ROUND=2 / ROUND=3: that round's plan (bench/gpu/cost_plan.py --round N, docs/costmodel.md)
# PLAN=FILE: that plan instead (same columns; e.g. bench/gpu/schedules/attn_d128/plan.tsv, device_attn.sh)
ROUND=${ROUND:-1}
if [ -z "${PLAN:-}" ]; then
  python3 bench/gpu/cost_plan.py --round "$ROUND"
  PLAN=bench/gpu/schedules/cost_variants/plan.tsv
  [ "$ROUND" != 1 ] && PLAN=bench/gpu/schedules/cost_variants/plan$ROUND.tsv
fi
# NVCC_DEFER=1 (round 7): lower here but leave the .cu files whose library is not built yet in CARRY/cu;
# the device compiles them first (device_cost_sweep.sh, phase 0, on its 16 cores): this machine's
# 2 shared cores cannot compile 36 libraries in the session's time
# SO_FROM=DIR: reuse the libraries of an earlier round (lowering unchanged since) instead of compiling them again
[ -n "${SO_FROM:-}" ] && cp -n "$SO_FROM"/*.so "$CARRY"/so/ 2>/dev/null

# --- verify each schedule once
cut -f3 "$PLAN" | sort -u > "$CARRY"/files.txt
# KEEP_CHECKS=1: keep the verdicts of an earlier run of this script into the same CARRY
[ -n "${KEEP_CHECKS:-}" ] && [ -s "$CARRY"/verified.txt ] && cut -d' ' -f1 "$CARRY"/verified.txt | sort -u | cmp -s - "$CARRY"/files.txt \
  || { : > "$CARRY"/verified.txt; KEEP_CHECKS=; }
[ -z "${KEEP_CHECKS:-}" ] && while read -r f; do
  if "$BUILD"/cli/cake check "$f" > "$CARRY"/check.log 2>&1; then echo "$f ok" >> "$CARRY"/verified.txt
  else echo "$f FAIL" >> "$CARRY"/verified.txt; echo "cost_build: $f does not verify:"; tail -3 "$CARRY"/check.log; fi
done < "$CARRY"/files.txt

# --- one library per (file, ABI): GEMM schedules export cake_gemm_launch
: > "$CARRY"/libs.txt
while IFS=$'\t' read -r id split f w shape sets; do
  grep -q "^$f ok$" "$CARRY"/verified.txt || continue
  stem=$(basename "$f" .cake)
  grep -q "^$stem " "$CARRY"/libs.txt && continue
  echo "$stem $f $w" >> "$CARRY"/libs.txt
done < "$PLAN"
build_one() {
  stem=$1 f=$2 w=$3
  "$BUILD"/runner/cake-runner --cake "$f" --workload "$w" --shape "$(grep -P "\t$f\t" "$PLAN" | head -1 | cut -f5)" \
      --emit "$CARRY/cu/$stem.cu" 2>/dev/null || { echo "cost_build: $f does not lower"; return 0; }
  [ -f "$CARRY/so/$stem.so" ] && return 0  # reused (SO_FROM): the .cu only names its kernel
  [ -n "${NVCC_DEFER:-}" ] && return 0     # the device compiles it (device_cost_sweep.sh phase 0)
  "$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -lineinfo -gencode=arch=compute_90a,code=sm_90a \
      "$CARRY/cu/$stem.cu" -o "$CARRY/so/$stem.so" || echo "cost_build: $f does not compile"
}
export -f build_one
export CARRY BUILD NVCC PLAN NVCC_DEFER
xargs -P 2 -L 1 bash -c 'build_one "$0" "$1" "$2"' < "$CARRY"/libs.txt

# --- bind every pair: the harness's problem arguments
: > "$CARRY"/pairs.tsv
while IFS=$'\t' read -r id split f w shape sets; do
  stem=$(basename "$f" .cake)
  [ -f "$CARRY/so/$stem.so" ] || { [ -n "${NVCC_DEFER:-}" ] && [ -f "$CARRY/cu/$stem.cu" ]; } || continue
  setargs=()
  [ -n "$sets" ] && for s in ${sets//,/ }; do setargs+=(--set "$s"); done
  rec=$("$BUILD"/runner/cake-runner --cake "$f" --workload "$w" --shape "$shape" "${setargs[@]}" --so x.so --dry-run || true)
  res=$(echo "$rec" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["result"]); print(r.get("detail",""))')
  if [ "$(echo "$res" | head -1)" != "dry_run" ]; then echo "cost_build: $id $f $shape: $res"; continue; fi
  kernel=$(grep -o '__global__ void __launch_bounds__([0-9, ]*) [A-Za-z0-9_]*' "$CARRY/cu/$stem.cu" | awk '{print $NF}' | head -1)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$split" "$f" "$w" "$shape" "$sets" "$stem" "$kernel" \
    "$(echo "$res" | tail -1)" >> "$CARRY"/pairs.tsv
done < "$PLAN"

# --- binaries, the harness, libraries the device lacks, scripts
cp "$BUILD"/cli/cake "$BUILD"/runner/cake-runner "$CARRY"/bin/
[ -n "${NVCC_DEFER:-}" ] && [ -x "$CARRY"/bin/cake_harness ] || \
"$NVCC" -std=c++17 -O2 -cudart shared -gencode=arch=compute_90,code=sm_90 -Irunner/harness -Iabi \
    runner/harness/cake_harness.cu -o "$CARRY"/bin/cake_harness -lcublas -lcupti -ldl \
    -L/usr/local/cuda/extras/CUPTI/lib64
cp -L /usr/lib/x86_64-linux-gnu/libz3.so.4 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$CARRY"/lib/ 2>/dev/null || true
cp bench/gpu/device_cost_sweep.sh bench/gpu/device_attn.sh bench/gpu/device_env.sh bench/gpu/cost_sweep.py bench/gpu/torch_refs.py "$CARRY"/
# deferred: keep the .cu of every library not built here (the device compiles them)
if [ -n "${NVCC_DEFER:-}" ]; then
  for cu in "$CARRY"/cu/*.cu; do [ -f "$CARRY/so/$(basename "$cu" .cu).so" ] && rm -f "$cu"; done
else
  rm -rf "$CARRY"/cu
fi
echo "cost_build: $(wc -l < "$CARRY"/pairs.tsv) pairs, $(ls "$CARRY"/so | wc -l) libraries ($(ls "$CARRY"/cu 2>/dev/null | wc -l) left to the device) in $CARRY ($(du -sh "$CARRY" | cut -f1))"
