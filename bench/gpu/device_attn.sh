#!/usr/bin/env bash
# ONE device call for attention (issues 12 and 13): the D=128 FA3-style
# schedules at B=4, H=32, S=8192, D=128 beside PyTorch SDPA (cuDNN, flash),
# the 12 held-out attention cost pairs of round 3 re-measured with the
# lowering that no longer serialises the wgmmas, and Nsight Compute on the
# D=128 kernels. Prepared here (docs/gpu.md, "Attention at D = 128"):
#
#   PLAN=bench/gpu/schedules/attn_d128/plan.tsv bash bench/gpu/cost_build.sh build /work/main/.devcarry/attn
#   device: bash .devcarry/attn/device_attn.sh 300
#   second call: SWEEP=0 NCU_IDS="a128_2 a128_3 r096 r100" bash .devcarry/attn/device_attn.sh 200
#
# Every kernel runs in the harness (oracle check, CUPTI, L2 flushed), SDPA
# through triton.testing.do_bench (L2 flushed). Output under $OUT:
# headline.jsonl, sweep.jsonl, torch_refs.jsonl, ncu_*.csv, log.txt.
set -u
C=$(cd "$(dirname "$0")" && pwd)
LIMIT=${1:-300}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
L="$OUT"/log.txt
gpu_line | tee -a "$L"
"$C"/bin/cake_harness 2>&1 | head -2
harness() {  # harness ROW EXTRA...: one pair of pairs.tsv
  local row=$1; shift
  local stem args
  stem=$(echo "$row" | cut -f7); args=$(echo "$row" | cut -f9)
  # shellcheck disable=SC2086
  "$C"/bin/cake_harness --kernel "$C/so/$stem.so" $args "$@"
}

export C; export -f harness
# 1. the D=128 schedules, 50 timed runs each (the harness alternates kernel and baseline runs)
grep -P "\theadline\t" "$C"/pairs.tsv | while IFS= read -r row; do
  log "headline $(echo "$row" | cut -f3,5)"
  timeout 120 bash -c 'harness "$0" --runs 50 --warmup 5 --seed 7' "$row" \
    | grep '^{' | python3 -c "import json,sys; [print(json.dumps(dict(file='$(echo "$row" | cut -f3)', record=json.loads(l)))) for l in sys.stdin]" \
    >> "$OUT"/headline.jsonl 2>> "$L"
  tail -c 600 "$OUT"/headline.jsonl; echo
done

# 2. SDPA cuDNN and flash at the same shape (the first SDPA job of torch_refs.py)
timeout 120 python3 "$C"/torch_refs.py --budget 60 --only sdpa --first 1 > "$OUT"/torch_refs.jsonl 2>> "$L"
log "torch refs"; cat "$OUT"/torch_refs.jsonl

# 3. the 12 held-out attention pairs of round 3, re-measured (12 runs each, as round 3); SWEEP=0: skipped
if [ "${SWEEP:-1}" != 0 ]; then
  SWEEP_SPLIT=holdout python3 "$C"/cost_sweep.py time "$C" "$OUT"/sweep.jsonl $(( $(date +%s) + $(left) - 100 )) >> "$L" 2>&1
  log "sweep: $(wc -l < "$OUT"/sweep.jsonl) records"
fi

# 4. Nsight Compute, one launch of each pair in NCU_IDS (default: the headline ones): speed of
# light, warp states (what the warps wait on), compute workload, occupancy
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for id in ${NCU_IDS:-$(grep -P "\theadline\t" "$C"/pairs.tsv | cut -f1)}; do
  [ "$(left)" -gt 40 ] || { log "skip ncu $id"; continue; }
  row=$(grep -P "^$id\t" "$C"/pairs.tsv)
  # shellcheck disable=SC2046
  timeout $(( $(left) - 20 )) "$NCU" --clock-control none -k regex:'^cake_.*_kernel$' -c 1 \
    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy \
    --csv --page details --log-file "$OUT"/ncu_$id.csv \
    "$C"/bin/cake_harness --kernel "$C/so/$(echo "$row" | cut -f7).so" $(echo "$row" | cut -f9) --no-time --no-baseline --seed 7 \
    >> "$L" 2>&1
  log "ncu $id $(echo "$row" | cut -f3,5): $(wc -l < "$OUT"/ncu_$id.csv) lines"
done
gpu_line >> "$L"
log "end"
