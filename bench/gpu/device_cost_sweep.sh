#!/usr/bin/env bash
# ONE device call for the cost model and the workload contracts (issue 12).
# Prepared here by `bash bench/gpu/cost_build.sh build .devcarry/cost` (run from
# the checkout the device receives), then, with `.devcarry/cost` carried:
#
#   bash .devcarry/cost/device_cost_sweep.sh 420     # seconds this script may use
#   bash .devcarry/cost2/device_cost_sweep.sh 430 sweep-only   # round 2: phases 1, 2 and 5
#
# Phases, each stopping at its share of the time:
#   0. libraries cost_build.sh left as .cu (NVCC_DEFER=1, round 7): nvcc here, all cores; its time comes
#      off LIMIT before the shares below are set;
#   1. sanity: the binaries start (else stop at once);
#   2. the sweep: every (schedule, shape) pair of pairs.tsv in the harness, timed
#      (CUPTI, L2 flushed, 12 runs) with its oracle and baseline -> $OUT/sweep.jsonl;
#   3. `cake run --workload ...` on corpus schedules (lowered and compiled here) -> $OUT/headline.jsonl;
#   4. PyTorch SDPA (cuDNN, flash) and the Triton k-means assignment -> $OUT/torch_refs.jsonl;
#   5. Nsight Compute speed of light of the holdout pairs -> $OUT/ncu.csv + $OUT/ncu_pids.tsv.
# Logs of every phase: $OUT/log.txt (six files come back in all).
set -u
C=$(cd "$(dirname "$0")" && pwd)
LIMIT=${1:-420}
MODE=${2:-all}
SWEEP_PCT=36
[ "$MODE" = sweep-only ] && SWEEP_PCT=45
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
export CAKE_HARNESS=$C/bin/cake_harness

# 0. deferred libraries
if ls "$C"/cu/*.cu > /dev/null 2>&1; then
  echo "[0s] nvcc: $(ls "$C"/cu/*.cu | wc -l) libraries on $(nproc) cores" >> "$OUT"/log.txt
  ls "$C"/cu/*.cu | xargs -P "$(nproc)" -I{} sh -c 'f={}; s=$(basename "$f" .cu); \
    ${NVCC:-/usr/local/cuda/bin/nvcc} -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -lineinfo \
      -gencode=arch=compute_90a,code=sm_90a "$f" -o "'"$C"'/so/$s.so" 2>&1 | grep -v "^$" | head -5' >> "$OUT"/log.txt 2>&1
  echo "[$(( $(date +%s) - T0 ))s] nvcc done: $(ls "$C"/so/*.so | wc -l) libraries" >> "$OUT"/log.txt
  LIMIT=$(( LIMIT - ($(date +%s) - T0) )); T0=$(date +%s)
fi
at() { echo $((T0 + $1)); }

# 1. sanity
L="$OUT"/log.txt
gpu_line | tee -a "$L"
"$C"/bin/cake --version || { log "cake does not start"; ldd "$C"/bin/cake | grep "not found"; exit 1; }
"$C"/bin/cake_harness 2>&1 | head -2
python3 "$C"/cost_sweep.py time "$C" /dev/null 0 >/dev/null || { log "cost_sweep.py fails"; exit 1; }

# 2. the sweep
log "sweep: $(wc -l < "$C"/pairs.tsv) pairs"
python3 "$C"/cost_sweep.py time "$C" "$OUT"/sweep.jsonl "$(at $((LIMIT * SWEEP_PCT / 100)))" >> "$L" 2>&1
log "sweep done: $(wc -l < "$OUT"/sweep.jsonl) records"
tail -3 "$L"

# 3. cake run --workload on corpus schedules (each compiles here with nvcc)
H="$OUT"/headline.jsonl
hl() {
  [ "$MODE" = sweep-only ] && return
  [ $(date +%s) -lt "$(at $((LIMIT * 50 / 100)))" ] || { log "skip cake run $*"; return; }
  echo "# cake run $*" >> "$L"
  timeout 90 "$C"/bin/cake run "$@" --format json --runs 30 --seed 11 >> "$H" 2>> "$L"
  echo "exit $?" >> "$L"
}
hl corpus/kmeans/sm90_assign_k256_ws.cake --workload kmeans-assign --shape N=65536,K=256,D=128,B=8
hl corpus/attention/sm90_fa3_fwd.cake --workload attention-fwd --shape S=4096,D=64,B=1,H=16
hl corpus/attention/sm90_fa3_fwd.cake --workload attention-fwd --shape S=4096,D=64,B=1,H=16,causal=1
hl corpus/kmeans/sm90_assign_k256_ws.cake --workload kmeans-assign --shape N=65536,K=200,D=128,B=8
hl corpus/kmeans/sm90_assign_resident_centroids.cake --workload kmeans-assign --shape N=65536,K=128,D=128,B=8
hl corpus/reduction/sm90_row_max_two_wg.cake --workload row-max --shape M=16384,N=8192
hl corpus/reduction/sm80_row_sum_cp_async.cake --workload row-sum --shape M=16384,N=8192
hl corpus/gemm/sm90_ws_4stage.cake --workload gemm --shape M=4096,N=4096,K=4096
log "cake run done"
cat "$H" | cut -c1-300

# 4. PyTorch / Triton references
TB=$(( LIMIT * 63 / 100 - ($(date +%s) - T0) ))
[ "$TB" -gt 20 ] && [ "$MODE" != sweep-only ] && timeout $((TB + 30)) python3 "$C"/torch_refs.py --budget "$TB" > "$OUT"/torch_refs.jsonl 2>> "$L"
log "torch refs done"; cat "$OUT"/torch_refs.jsonl | cut -c1-300

# 5. ncu speed of light on the holdout pairs
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
left=$(( LIMIT - 15 - ($(date +%s) - T0) ))
if [ "$left" -gt 20 ]; then
  timeout $((left + 10)) "$NCU" --clock-control none --target-processes all --kernel-name-base function \
    -k regex:'^cake_.*_kernel$' \
    --metrics sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed \
    --csv --log-file "$OUT"/ncu.csv \
    python3 "$C"/cost_sweep.py ncu "$C" "$OUT"/ncu_pids.tsv "$(at $((LIMIT - 25)))" >> "$L" 2>&1
  log "ncu done: $(wc -l < "$OUT"/ncu_pids.tsv) pairs"
fi
gpu_line >> "$L"
log "end"
