#!/usr/bin/env bash
# k-means assignment at the issue-13 target shape (B=32, N=65536, K=1024,
# D=128, bf16) in ONE device call: the cake schedules through `cake run`
# (verify, bind, lower, nvcc, oracle = cuBLAS batched GEMM + argmin, CUPTI
# timing beside the cuBLAS-composed baseline, L2 flushed before every run),
# then the Triton flash-kmeans kernel and PyTorch bmm+argmin
# (bench/gpu/torch_refs.py, L2 flushed by do_bench), then Nsight Compute on
# one launch of the corpus schedule.
#
#   bash bench/gpu/device_kmeans.sh prepare DEST   # here, in the worktree whose build/ has cake
#   (device) bash DEST/device_kmeans.sh DEST        # from the repository root there
#
# cake's build has compile-time paths (CAKE_ABI_DIR and the harness sources,
# runner/harness): `prepare` records the build's root and copies abi/ and
# runner/harness/ beside the binary; the device side recreates them at that
# path when it is missing there.
set -u
if [ "${1:-}" = prepare ]; then
  C=${2:?destination}
  mkdir -p "$C/bin" "$C/lib" "$C/src/runner" "$C/schedules"
  cp build/cli/cake "$C/bin/"
  cp -L /usr/lib/x86_64-linux-gnu/libz3.so.4 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$C/lib/"
  pwd > "$C/src/root"
  cp -r abi "$C/src/"
  cp -r runner/harness "$C/src/runner/"
  cp corpus/kmeans/sm90_assign_streamed_centroids.cake bench/gpu/schedules/kmeans_*.cake "$C/schedules/" 2>/dev/null
  cp bench/gpu/torch_refs.py bench/gpu/device_kmeans.sh "$C/"
  exit 0
fi
C=${1:?carry folder}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
ROOT=$(cat "$C/src/root")
if [ ! -f "$ROOT/runner/harness/cake_harness.cu" ]; then
  mkdir -p "$ROOT/runner" && cp -r "$C/src/abi" "$ROOT/" && cp -r "$C/src/runner/harness" "$ROOT/runner/"
fi
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
SHAPE=${SHAPE:-N=65536,K=1024,D=128,B=32}
R="$OUT/kmeans.jsonl"; : > "$R"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
run() {
  local f=$1; shift
  echo "== cake run $f $*"
  timeout 240 $C/bin/cake run "$f" --workload kmeans-assign --shape "$SHAPE" --format json --seed 3 "$@" \
    > "$OUT/one.json" 2> "$OUT/one.err"
  echo "rc=$?"; tail -c 1200 "$OUT/one.json"; echo; tail -15 "$OUT/one.err"
  python3 -c "import json; d=json.load(open('$OUT/one.json')); d['schedule']='$f'; print(json.dumps(d))" >> "$R" 2>/dev/null
}
for f in $C/schedules/*.cake; do run "$f" --runs ${RUNS:-20}; done
echo "== Triton flash-kmeans and PyTorch (torch_refs.py --only kmeans --first 1)"
timeout 200 python3 $C/torch_refs.py --only kmeans --first 1 --budget 150 | tee "$OUT/torch_refs.jsonl"
if [ "${NCU:-1}" = 1 ] && command -v ncu > /dev/null; then
  echo "== ncu: one launch of the corpus schedule"
  timeout 150 ncu --target-processes all -k regex:cake_kmeans -c 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section LaunchStats --section SchedulerStats \
    $C/bin/cake run $C/schedules/sm90_assign_streamed_centroids.cake --workload kmeans-assign --shape "$SHAPE" --runs 1 \
    --timeout 120 > "$OUT/ncu.txt" 2>&1
  echo "ncu rc=$?"; grep -E "Duration|Throughput|Pipe|Issue|Warp Cycles|Registers|Stall|Eligible|No Eligible|Active Warps" "$OUT/ncu.txt" | head -60
fi
