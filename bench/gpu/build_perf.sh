#!/usr/bin/env bash
# Build (here, no GPU needed) what bench/gpu/device_perf.sh runs on the device:
# the corpus GEMMs and the bench schedules lowered by THIS checkout's `cake`,
# optionally the same corpus GEMMs as lowered before (BASE_CU_DIR=dir holding
# NAME.cu, e.g. from `git stash; cake lower ...`; built as base_NAME.so), the hand-written template, the harness and the libraries
# the device lacks, into .devcarry/perf (DEST=...).
# Usage: bash bench/gpu/build_perf.sh [BUILD_DIR]   (default: build; HAND=0 skips the template)
set -eu
B=${1:-build}
D=${DEST:-.devcarry/perf}
. "$(dirname "$0")/device_env.sh" "$D"  # NVCC, SM90A, lowered_so
mkdir -p "$D/lib" "$D/cu"
CORPUS=${CORPUS-"sm90_ws_4stage sm90_persistent_ws sm90_pingpong sm90_basic_one_consumer sm80_cp_async_multistage sm80_ws_named_barriers"}
BENCH=${BENCH-"sm90_pingpong_128 sm90_small_m sm90_small_m16 sm90_ws_bn256_tma"}
for n in $CORPUS; do "$B/cli/cake" lower corpus/gemm/$n.cake -o "$D/cu/$n.cu"; lowered_so "$D/cu/$n.cu" "$D/$n.so" & done; wait
# BENCH names are paths under bench/gpu/schedules/ without .cake (decode/sm90_decode_bn32_s16_w2);
# each is `cake check`ed first (the report goes to $D/check.txt; a schedule with errors is not built).
# A file of several schedules (a split-K pair) gives one library per schedule, named after it.
for n in $BENCH; do
  b=$(basename $n); f=bench/gpu/schedules/$n.cake
  "$B/cli/cake" check $f >> "$D/check.txt" 2>&1 || { echo "cake check failed: $n"; continue; }
  defs=$(sed -n 's/^def \([A-Za-z0-9_]*\)(.*/\1/p' $f)
  if [ $(echo "$defs" | wc -l) -gt 1 ]; then
    for s in $defs; do  # a schedule shared by several files (one reduce kernel) is built once
      case " ${built:-} " in *" $s "*) continue;; esac; built="${built:-} $s"
      "$B/cli/cake" lower $f --schedule $s -o "$D/cu/$s.cu"; lowered_so "$D/cu/$s.cu" "$D/$s.so" &
    done
  else
    "$B/cli/cake" lower $f -o "$D/cu/$b.cu"; lowered_so "$D/cu/$b.cu" "$D/$b.so" &
  fi
done; wait
if [ -n "${BASE_CU_DIR:-}" ]; then
  for n in $CORPUS; do cp "$BASE_CU_DIR/$n.cu" "$D/cu/base_$n.cu"; lowered_so "$D/cu/base_$n.cu" "$D/base_$n.so" & done; wait
fi
NVH="$NVCC -std=c++17 -O3 -cudart shared $SM90A -Irunner/harness -Iabi"
[ "${HAND:-1}" = 0 ] || $NVH -shared -Xcompiler -fPIC -lineinfo bench/gpu/kernels/sm90_ws_gemm.cu -o "$D/hand_sm90_ws_bn256_persistent.so"
$NVH runner/harness/cake_harness.cu -o "$D/cake_harness" -lcublas -lcupti -ldl
cp -L /usr/local/cuda/lib/libcupti.so.13 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$D/lib/"
ls -la "$D"
