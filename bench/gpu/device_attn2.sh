#!/usr/bin/env bash
# ONE device call for attention, second session (issues 12 and 13, helper `attn`):
#  1. SDPA cuDNN / flash at B=4 H=32 S=8192 D=128 (before the cake kernels),
#  2. the D=128 schedules of plan2.tsv (50 timed runs each, harness: oracle,
#     CUPTI, L2 flushed), the library of the previous lowering beside them
#     (base_*.so, if carried) for a same-call before/after,
#  3. SDPA again (after; the spread of the two is the reference's own noise),
#  4. the 12 held-out attention cost pairs re-measured (the lowering changed),
#  5. Nsight Compute --set full with source counters (warp-stall samples per
#     SASS instruction) on the fastest D=128 kernel and on r096 / r100 (the
#     2- and 3-slot D=64 rings), plus cuobjdump -sass of those libraries.
# Prepared here (docs/gpu.md, "Attention at D = 128, second pass"):
#
#   PLAN=bench/gpu/schedules/attn_d128/plan2.tsv bash bench/gpu/cost_build.sh build /work/main/.devcarry/attn2
#   cp bench/gpu/device_attn2.sh bench/gpu/ncu_hotspots.py /work/main/.devcarry/attn2/
#   device (carry .devcarry/attn2): bash .devcarry/attn2/device_attn2.sh 300
#
# Output under $OUT: headline.jsonl, torch_refs_{pre,post}.jsonl, sweep.jsonl,
# ncu_ID_{details,raw,sass}.csv, ncu_ID_hot.txt, sass_STEM.txt, log.txt, and all of
# them in all.tgz. Second call (the ablations of the lowering, the held-out pairs, ncu on the D=64 rings):
#   DIAG=1 HEADLINE_IDS="a128_4 a128_2 a128_8 a128_9 a128_10" NCU_BEST=0 NCU_IDS="r096 r100 a128_2" \
#   SASS_STEMS="fa3_d128_fold fa3_d128_overlap base_fa3_d128_overlap sm90_fa3_fwd fa3_s3" bash .devcarry/attn2/device_attn2.sh 240
set -u
C=$(cd "$(dirname "$0")" && pwd)
LIMIT=${1:-300}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
L="$OUT"/log.txt
gpu_line | tee -a "$L"
row_of() { grep -P "^$1\t" "$C"/pairs.tsv; }
harness_so() {  # harness_so SO ROW EXTRA...
  local so=$1 row=$2; shift 2
  # shellcheck disable=SC2046
  "$C"/bin/cake_harness --kernel "$so" $(echo "$row" | cut -f9) "$@"
}
headline() {  # headline ID SO LABEL
  local row; row=$(row_of "$1")
  log "headline $1 $3"
  timeout 120 "$C"/bin/cake_harness --kernel "$2" $(echo "$row" | cut -f9) --runs 50 --warmup 5 --seed 7 2>>"$L" \
    | grep '^{' | python3 -c "import json,sys; [print(json.dumps(dict(id='$1', file='$3', record=json.loads(l)))) for l in sys.stdin]" \
    >> "$OUT"/headline.jsonl
  tail -1 "$OUT"/headline.jsonl | python3 -c "import json,sys; r=json.loads(sys.stdin.read())['record']; print(r['result'], r.get('correct'), r.get('median_ms'), r.get('rel_error'))" | tee -a "$L"
}
sdpa() { TORCH_REP_MS=${TORCH_REP_MS:-1500} timeout 120 python3 "$C"/torch_refs.py --budget 60 --only sdpa --first 1 > "$OUT/torch_refs_$1.jsonl" 2>> "$L"; log "sdpa $1: $(tail -1 "$OUT/torch_refs_$1.jsonl")"; }

sdpa pre
# HEADLINE_IDS: these rows only (default: every headline row)
for id in ${HEADLINE_IDS:-$(grep -P "\theadline\t" "$C"/pairs.tsv | cut -f1)}; do
  row=$(row_of "$id"); stem=$(echo "$row" | cut -f7)
  [ -f "$C/so/base_$stem.so" ] && headline "$id" "$C/so/base_$stem.so" "base:$(echo "$row" | cut -f3)"
  headline "$id" "$C/so/$stem.so" "$(echo "$row" | cut -f3)"
done
sdpa post

if [ "${SWEEP:-1}" != 0 ]; then
  SWEEP_SPLIT=holdout python3 "$C"/cost_sweep.py time "$C" "$OUT"/sweep.jsonl $(( $(date +%s) + 40 )) >> "$L" 2>&1
  log "sweep: $(wc -l < "$OUT"/sweep.jsonl) records"
fi
# DIAG=1: the diagnostic pairs (split "diag", plan_diag.tsv: the 2-slot ring in the 3-slot footprint,
# the 3-slot ring at the 2-slot depth), then the held-out pairs once more (their run-to-run spread)
if [ -n "${DIAG:-}" ]; then
  SWEEP_SPLIT=diag python3 "$C"/cost_sweep.py time "$C" "$OUT"/sweep_diag.jsonl $(( $(date +%s) + 40 )) >> "$L" 2>&1
  SWEEP_SPLIT=holdout python3 "$C"/cost_sweep.py time "$C" "$OUT"/sweep_repeat.jsonl $(( $(date +%s) + 40 )) >> "$L" 2>&1
  log "diag: $(wc -l < "$OUT"/sweep_diag.jsonl) records, repeat: $(wc -l < "$OUT"/sweep_repeat.jsonl)"
fi

# the fastest D=128 kernel of this lowering (not base_)
# NCU_BEST=0: no ncu on it
BEST=$([ "${NCU_BEST:-1}" = 0 ] || python3 - "$OUT"/headline.jsonl <<'EOF'
import json, sys
best = None
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["file"].startswith("base:") or not r["record"].get("correct") or r["record"].get("median_ms") is None:
        continue
    if best is None or r["record"]["median_ms"] < best[0]:
        best = (r["record"]["median_ms"], r["id"])
print(best[1] if best else "")
EOF
)
log "fastest D=128: $BEST"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for id in $BEST ${NCU_IDS:-r096 r100}; do
  [ "$(left)" -gt 45 ] || { log "skip ncu $id"; continue; }
  row=$(row_of "$id"); stem=$(echo "$row" | cut -f7)
  # shellcheck disable=SC2046
  timeout -s KILL $(( $(left) - 25 )) "$NCU" --set full --import-source yes --clock-control none -k regex:'^cake_.*_kernel$' -c 1 \
    -o "$OUT/ncu_$id" -f "$C"/bin/cake_harness --kernel "$C/so/$stem.so" $(echo "$row" | cut -f9) --no-time --no-baseline --seed 7 \
    > "$OUT/ncu_$id.log" 2>&1
  if [ -s "$OUT/ncu_$id.ncu-rep" ]; then
    "$NCU" -i "$OUT/ncu_$id.ncu-rep" --csv --page details > "$OUT/ncu_${id}_details.csv" 2>/dev/null
    "$NCU" -i "$OUT/ncu_$id.ncu-rep" --csv --page raw > "$OUT/ncu_${id}_raw.csv" 2>/dev/null
    "$NCU" -i "$OUT/ncu_$id.ncu-rep" --csv --page source --print-source sass > "$OUT/ncu_${id}_sass.csv" 2>/dev/null
    python3 "$C"/ncu_hotspots.py "$OUT/ncu_${id}_sass.csv" 40 > "$OUT/ncu_${id}_hot.txt" 2>&1
    rm -f "$OUT/ncu_$id.ncu-rep"
  fi
  log "ncu $id $stem: $(wc -l < "$OUT/ncu_${id}_details.csv" 2>/dev/null) detail lines"
done
OBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for stem in ${SASS_STEMS:-$(for id in $BEST r096 r100; do row_of "$id" | cut -f7; done)}; do
  "$OBJ" -sass "$C/so/$stem.so" > "$OUT/sass_$stem.txt" 2>&1
  [ -f "$C/so/base_$stem.so" ] && "$OBJ" -sass "$C/so/base_$stem.so" > "$OUT/sass_base_$stem.txt" 2>&1
done
gpu_line >> "$L"
log "end"
# the run tool brings back a few files only: everything in one archive
(cd "$OUT" && tar czf all.tgz --exclude all.tgz ./*)
