#!/usr/bin/env bash
# Runs on the device machine (the `run` tool), from the repo root, with the
# prebuilt binaries in .devcarry/ (see docs/gpu.md "Reproducing"):
#   bash bench/gpu/device_sweep.sh [quick]
# Checks and times every .devcarry/*.so kernel library against cuBLAS, then
# runs the deadlock kernel under the watchdog.
set -u
D=.devcarry
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
CUPTI=$(dirname "$(find / -name 'libcupti.so.13' -not -path '*/.devcarry/*' -not -path '/proc/*' 2>/dev/null | head -1)" 2>/dev/null)
export LD_LIBRARY_PATH=$D/lib:${CUPTI:-/usr/local/cuda/extras/CUPTI/lib64}:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
echo "cupti (image): ${CUPTI:-none}"
$D/cake_harness >/dev/null 2>&1; rc=$?
if [ $rc -ne 2 ]; then echo "prebuilt harness does not start (rc=$rc): $($D/cake_harness 2>&1 | head -3)"; fi
if command -v cuobjdump >/dev/null; then
  for so in $D/sm90_*.so; do
    cuobjdump --dump-sass "$so" > "$OUT/$(basename "$so" .so).sass" 2>&1
    echo "$(basename "$so"): $(grep -c HGMMA "$OUT/$(basename "$so" .so).sass") HGMMA, $(grep -c UTMALDG "$OUT/$(basename "$so" .so).sass") UTMALDG, $(grep -cE 'LDL|STL' "$OUT/$(basename "$so" .so).sass") LDL/STL, setmaxnreg: $(grep -c USETMAXREG "$OUT/$(basename "$so" .so).sass")"
  done
  ls $OUT/*.sass | tail -n +2 | xargs rm -f
fi
H="timeout -s KILL 90 $D/cake_harness"
SIZES=${SIZES:-"4096 8192"}
for so in ${KERNELS:-$D/sm90_*.so $D/sm80_gemm.so}; do
  for s in $SIZES; do
    $H --kernel "$so" --m $s --n $s --k $s --runs ${RUNS:-50} > "$OUT/run.txt" 2>&1; rc=$?
    tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
    echo "== $(basename $so) $s^3 rc=$rc"; grep -E "^(sm|cublas|correct)" "$OUT/run.txt" | grep -v '^kernel'
  done
done
# odd shapes (edges): correctness only
for so in ${EDGE_KERNELS:-$D/sm90_bn256_s4_g16.so $D/sm80_gemm.so}; do
  for shp in "3000 2056 1000" "128 256 64" "1 8 8"; do
    set -- $shp
    $H --kernel "$so" --m $1 --n $2 --k $3 --no-time > "$OUT/run.txt" 2>&1; rc=$?
    tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
    echo "== $(basename $so) ${1}x${2}x${3} rc=$rc $(grep -o '"correct": [a-z]*, "rel_error": [^,]*' "$OUT/run.txt")"
  done
done
# watchdog: a kernel that never finishes must come back as "hang", leaving nothing running
if [ -x $D/cake-runner ]; then
  $D/cake-runner --so $D/deadlock.so --harness $D/cake_harness --shape M=128,N=128,K=64 --timeout ${HANG_S:-10} --no-time
  echo "processes on the GPU after the hang:"; nvidia-smi --query-compute-apps=pid,name --format=csv,noheader; pgrep -a cake_harness || echo "(no cake_harness left)"
  $D/cake-runner --so $D/sm90_bn256_s4_g16.so --harness $D/cake_harness --shape M=4096,N=4096,K=4096 --timeout 60 --runs 20
fi
