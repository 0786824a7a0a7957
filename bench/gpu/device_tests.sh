#!/usr/bin/env bash
# Device run: the runner's GPU tests (end to end: lower, nvcc, harness build,
# watchdog) and a repeat of the lowered kernels' timings (run-to-run spread).
set -u
D=.devcarry
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
timeout -s KILL 300 $D/cake_tests_runner --gtest_brief=1 2>&1 | tail -25
echo "processes left: $(pgrep -c cake_harness || true)"
for so in ${KERNELS:-$D/lowered/sm90_ws_bn256.so $D/lowered/sm90_ws_bn256_persistent.so}; do
  for s in 4096 8192; do
    timeout -s KILL 90 $D/cake_harness --kernel "$so" --m $s --n $s --k $s --runs 100 > "$OUT/run.txt" 2>&1
    tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
    echo "== $(basename $so) $s^3: $(grep -E '^gemm' $OUT/run.txt | awk '{print $9" ms "$10" TF"}') | cublas $(grep -E '^cublas' $OUT/run.txt | awk '{print $8" ms"}') | $(grep -o 'ratio(cublas_ms/kernel_ms)=[0-9.]*' $OUT/run.txt) $(grep -o 'correct=[a-zA-Z]*' $OUT/run.txt)"
  done
done
