#!/usr/bin/env bash
# Build (here, no GPU needed) what bench/gpu/device_sm80d.sh runs for issue 13, session 17 (helper sm80d): every
# lowered .cu of $D/cu (NAME.cu by this branch's cake, base_NAME.cu by main's, emulations beside them) as
# $D/NAME.so for the H200's SASS only (-gencode=arch=compute_80,code=sm_90, lowered_so's other flags), two
# nvcc at a time, with ptxas's register lines in $D/ptxas.txt; the harness (unless $D/cake_harness exists), the
# libraries the device lacks, this checkout's cake (stripped) and the scripts.
# Usage: D=/tmp/sm80d/carry bash bench/gpu/build_sm80d.sh [BUILD_DIR]
set -eu
B=${1:-build}
D=${D:?}
. "$(dirname "$0")/device_env.sh" "$D"
mkdir -p "$D/lib" "$D/bin"
so() {
  local c=$1 n
  n=$(basename "$c" .cu)
  [ -f "$D/$n.so" ] && [ "$D/$n.so" -nt "$c" ] && return 0
  nice "$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -Irunner/harness -Iabi -lineinfo \
    -gencode=arch=compute_80,code=sm_90 -Xptxas -v "$c" -o "$D/$n.so" > "$D/ptxas_$n.txt" 2>&1
}
export -f so; export NVCC D
ls "$D"/cu/*.cu | xargs -P 2 -I{} bash -c 'so {}'
for f in "$D"/ptxas_*.txt; do echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' "$f" | tr '\n' ' ')"; done > "$D/ptxas.txt"
[ -x "$D/cake_harness" ] || $NVCC -std=c++17 -O3 -cudart shared $SM90A -Irunner/harness -Iabi runner/harness/cake_harness.cu -o "$D/cake_harness" -lcublas -lcupti -ldl
cp -L /usr/local/cuda/lib/libcupti.so.13 /usr/lib/x86_64-linux-gnu/libfmt.so.9 /usr/lib/x86_64-linux-gnu/libz3.so.4 "$D/lib/" 2>/dev/null || true
strip -o "$D/bin/cake" "$B/cli/cake"
cp bench/gpu/device_env.sh bench/gpu/device_sm80d.sh bench/gpu/time_record.py bench/gpu/ncu_src_census.py "$D/"
cat "$D/ptxas.txt"
