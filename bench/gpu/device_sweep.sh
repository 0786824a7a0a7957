#!/usr/bin/env bash
# Runs on the device machine (the `run` tool), from the repo root, with the
# prebuilt binaries in .devcarry/ (see docs/gpu.md "Reproducing"):
#   [KERNELS="a.so b.so"] [SIZES="4096 8192"] [RUNS=50] [EDGE=1] [SASS=1] bash bench/gpu/device_sweep.sh
# Checks and times each kernel library against cuBLAS (interleaved runs),
# optionally checks edge shapes and SASS, then runs the deadlocking kernels
# under the runner's watchdog.
set -u
D=.devcarry
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader; }
smi
$D/cake_harness >/dev/null 2>&1; rc=$?
if [ $rc -ne 2 ]; then echo "prebuilt harness does not start (rc=$rc): $($D/cake_harness 2>&1 | head -3)"; fi
if [ -n "${SASS:-}" ] && command -v cuobjdump >/dev/null; then
  for so in ${KERNELS:-$D/*.so $D/lowered/*.so}; do
    cuobjdump --dump-sass "$so" > /tmp/k.sass 2>&1
    echo "$(basename "$so"): $(grep -c HGMMA /tmp/k.sass) HGMMA, $(grep -c HMMA /tmp/k.sass) HMMA, $(grep -c UTMALDG /tmp/k.sass) UTMALDG, $(grep -cE 'LDL|STL' /tmp/k.sass) LDL/STL, $(grep -c USETMAXREG /tmp/k.sass) USETMAXREG"
  done
fi
H="timeout -s KILL 120 $D/cake_harness"
printf "%-34s %6s %9s %9s %7s %9s %9s %7s %s\n" kernel size ms min_ms TFLOP/s cublas_ms cb_min TF_cb ratio
for so in ${KERNELS:-$D/sm90_bn256_s4_g16.so $D/sm90_bn256_s4_np.so $D/sm80_gemm.so $D/lowered/*.so}; do
  for s in ${SIZES:-4096 8192}; do
    $H --kernel "$so" --m $s --n $s --k $s --runs ${RUNS:-50} > "$OUT/run.txt" 2>&1; rc=$?
    tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
    python3 - "$OUT/run.txt" "$(basename $so .so)" $s $rc <<'PY'
import json, sys
try:
    j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
    print("%-34s %6s %9.4f %9.4f %7.0f %9.4f %9.4f %7.0f %.3f %s" % (sys.argv[2], sys.argv[3], j["median_ms"], j["min_ms"], j["tflops"], j["baseline_ms"], j["baseline_min_ms"], j["baseline_tflops"], j["ratio"], "correct" if j["correct"] else "WRONG rc=" + sys.argv[4]))
except Exception as e:
    print(sys.argv[2], sys.argv[3], "rc", sys.argv[4], "no result:", open(sys.argv[1]).read()[-300:])
PY
  done
done
smi
if [ -n "${EDGE:-}" ]; then
  for so in ${KERNELS:-$D/sm90_bn256_s4_g16.so $D/sm80_gemm.so $D/lowered/*.so}; do
    for shp in "3000 2056 1000" "128 256 64" "200 264 72" "1 8 8"; do
      set -- $shp
      $H --kernel "$so" --m $1 --n $2 --k $3 --no-time > "$OUT/run.txt" 2>&1; rc=$?
      tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
      echo "   $(basename $so) ${1}x${2}x${3} rc=$rc $(grep -o '"correct": [a-z]*, "rel_error": [^,]*' "$OUT/run.txt")"
    done
  done
fi
# watchdog: kernels that never finish must come back as "hang", leaving nothing running
for dl in $D/deadlock.so $D/dl/*.so; do
  [ -f "$dl" ] || continue
  $D/cake-runner --so "$dl" --harness $D/cake_harness --shape M=4096,N=4096,K=4096 --timeout ${HANG_S:-10} --no-time
done
echo "GPU processes after the hangs: [$(nvidia-smi --query-compute-apps=pid,name --format=csv,noheader)] harnesses left: $(pgrep -c cake_harness || true)"
$D/cake-runner --so $D/lowered/sm90_ws_bn256_persistent.so --harness $D/cake_harness --shape M=4096,N=4096,K=4096 --timeout 60 --runs 20 | python3 -c 'import json,sys; j=json.load(sys.stdin); print("after the hangs:", j["result"], j["median_ms"], "ms")'
