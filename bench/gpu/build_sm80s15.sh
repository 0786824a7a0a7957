#!/usr/bin/env bash
# Build (here, no GPU needed) what bench/gpu/device_sm80g.sh runs for issue 13, session 15 (helper sm80b):
# the sm_80 schedules of SCHED lowered by THIS checkout's `cake` (NAME.so) and by BASE_CAKE (base_NAME.so,
# the previous lowering), plus any extra lowered .cu files in EXTRA_CU (built as their basename), two
# nvcc at a time; the harness and the libraries the device lacks, into DEST.
# Usage: BASE_CAKE=/work/main/build/cli/cake DEST=/work/main/.devcarry/sm80b SCHED="a b" bash bench/gpu/build_sm80s15.sh [BUILD_DIR]
set -eu
B=${1:-build}
D=${DEST:-.devcarry/sm80b}
. "$(dirname "$0")/device_env.sh" "$D"
mkdir -p "$D/lib" "$D/cu"
for f in $SCHED; do
  n=$(basename $f)
  "$B/cli/cake" lower $f.cake -o "$D/cu/$n.cu"
  [ -n "${BASE_CAKE:-}" ] && "$BASE_CAKE" lower $f.cake -o "$D/cu/base_$n.cu"
done
for c in ${EXTRA_CU:-}; do cp "$c" "$D/cu/"; done
export -f lowered_so; export NVCC D
ls "$D"/cu/*.cu | xargs -P 2 -I{} bash -c 'n=$(basename {} .cu); lowered_so {} "$D/$n.so" -Xptxas -v > "$D/ptxas_$n.txt" 2>&1'
for f in "$D"/ptxas_*.txt; do echo "$(basename $f .txt): $(grep -A3 "for 'sm_90" $f | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | tr '\n' ' ')"; done > "$D/ptxas.txt"
NVH="$NVCC -std=c++17 -O3 -cudart shared $SM90A -Irunner/harness -Iabi"
$NVH runner/harness/cake_harness.cu -o "$D/cake_harness" -lcublas -lcupti -ldl
cp -L /usr/local/cuda/lib/libcupti.so.13 /usr/lib/x86_64-linux-gnu/libfmt.so.9 /usr/lib/x86_64-linux-gnu/libz3.so.4 "$D/lib/" 2>/dev/null || true
cp bench/gpu/device_env.sh bench/gpu/${SCRIPT:-device_sm80g.sh} bench/gpu/time_record.py bench/gpu/ncu_src_census.py "$D/"
cat "$D/ptxas.txt"
