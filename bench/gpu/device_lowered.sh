#!/usr/bin/env bash
# Device run for lowered kernels (see docs/gpu.md "Reproducing"): checks and
# times .devcarry/lowered/*.so against cuBLAS, edge shapes, and one
# end-to-end `cake run` (lower + nvcc on the device + harness + watchdog).
set -u
D=.devcarry
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
gpu_line
H="timeout -s KILL 90 $D/cake_harness"
for so in ${KERNELS:-$D/lowered/*.so}; do
  for s in ${SIZES:-4096 8192}; do
    $H --kernel "$so" --m $s --n $s --k $s --runs ${RUNS:-50} > "$OUT/run.txt" 2>&1; rc=$?
    tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
    echo "== $(basename $so) $s^3 rc=$rc"; grep -E "^(gemm|cublas|correct)" "$OUT/run.txt"; [ $rc -gt 1 ] && tail -3 "$OUT/run.txt"
  done
  edge_shapes "$so" "3000 2056 1000" "128 256 64" "200 264 72"
done
if [ -n "${E2E:-}" ]; then
  echo "== end to end: cake-runner --cake $E2E"
  CAKE_HARNESS=$D/cake_harness $D/cake-runner --cake "$E2E" --shape M=4096,N=4096,K=4096 --timeout 120 --work-dir /tmp/e2e
fi
if command -v cuobjdump >/dev/null && [ -n "${SASS:-}" ]; then
  cuobjdump --dump-sass "$SASS" > "$OUT/lowered.sass" 2>&1
  echo "$(basename $SASS): $(grep -c HGMMA $OUT/lowered.sass) HGMMA, $(grep -c UTMALDG $OUT/lowered.sass) UTMALDG, $(grep -cE 'LDL|STL' $OUT/lowered.sass) LDL/STL, $(grep -c USETMAXREG $OUT/lowered.sass) USETMAXREG, $(grep -c 'BAR.SYNC' $OUT/lowered.sass) BAR.SYNC"
fi
