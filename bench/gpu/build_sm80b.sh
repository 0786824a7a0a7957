#!/usr/bin/env bash
# Build (here, no GPU needed) what bench/gpu/device_sm80b.sh runs: the sm_80 GEMMs (corpus
# sm80_cp_async_multistage and the fastest bench/gpu/schedules/sm80 schedules) lowered by THIS
# checkout's `cake` (fragments double-buffered across k-steps), and the same schedules as lowered
# before (BASE_CU_DIR=dir holding NAME.cu from the previous lowering; built as base_NAME.so), the
# harness and the libraries the device lacks, into .devcarry/sm80b (DEST=...). ptxas's register and
# spill report of each kernel goes to $D/ptxas.txt.
# Usage: BASE_CU_DIR=/tmp/base bash bench/gpu/build_sm80b.sh [BUILD_DIR]
# (SCHED="a.cake b.cake ..." without .cake, DEST=dir, SCRIPT=the device script copied beside them;
# bench/gpu/device_sm80ks.sh is built this way)
set -eu
B=${1:-build}
D=${DEST:-.devcarry/sm80b}
. "$(dirname "$0")/device_env.sh" "$D"
mkdir -p "$D/lib" "$D/cu"
SCHED=${SCHED:-"corpus/gemm/sm80_cp_async_multistage bench/gpu/schedules/sm80/sm80_128x128_k64_s3 bench/gpu/schedules/sm80/sm80_128x256_k64_s3 bench/gpu/schedules/sm80/sm80_128x128_k32_s4"}
for f in $SCHED; do
  n=$(basename $f)
  "$B/cli/cake" lower $f.cake -o "$D/cu/$n.cu"
  lowered_so "$D/cu/$n.cu" "$D/$n.so" -Xptxas -v > "$D/ptxas_$n.txt" 2>&1
  if [ -n "${BASE_CU_DIR:-}" ]; then
    cp "$BASE_CU_DIR/$n.cu" "$D/cu/base_$n.cu"
    lowered_so "$D/cu/base_$n.cu" "$D/base_$n.so" -Xptxas -v > "$D/ptxas_base_$n.txt" 2>&1
  fi
done
for f in "$D"/ptxas_*.txt; do echo "$(basename $f .txt): $(grep -A3 "for 'sm_90'" $f | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | tr '\n' ' ')"; done > "$D/ptxas.txt"
NVH="$NVCC -std=c++17 -O3 -cudart shared $SM90A -Irunner/harness -Iabi"
$NVH runner/harness/cake_harness.cu -o "$D/cake_harness" -lcublas -lcupti -ldl
cp -L /usr/local/cuda/lib/libcupti.so.13 /usr/lib/x86_64-linux-gnu/libfmt.so.9 /usr/lib/x86_64-linux-gnu/libz3.so.4 "$D/lib/" 2>/dev/null || true
cp bench/gpu/device_env.sh bench/gpu/${SCRIPT:-device_sm80b.sh} bench/gpu/time_record.py "$D/"
cat "$D/ptxas.txt"
