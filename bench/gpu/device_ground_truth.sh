#!/usr/bin/env bash
# GPU ground truth, step 2 of 2 (on the device; step 1 is
# bench/gpu/ground_truth_prepare.sh): compile every lowered corpus bug with
# the device's nvcc (16 in parallel), then run each under the runner's
# watchdog (cake-runner --so: the classification `cake run` uses: ok, wrong,
# hang, crash, cuda_error, ...) with fresh random inputs, 3 timed runs,
# and write one JSON line per run with the prediction next to it.
#   run: bash bench/gpu/device_ground_truth.sh   (reads .devcarry/onesem)
set -u
D=$PWD/.devcarry/onesem
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" "$D/so"
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
start=$(date +%s)
compile() {
  local cu=$1 n; n=$(basename "$cu" .cu)
  lowered_so "$cu" "$D/so/$n.so" 2> "$D/so/$n.log" || echo "compile_error $n"
}
export -f compile lowered_so; export NVCC D
$D/cake-runner --help 2>&1 | head -1; ldd $D/cake-runner | grep "not found"
ls $D/cu/*.cu | xargs -P 16 -I{} bash -c 'compile {}'
echo "compiled $(ls $D/so/*.so 2>/dev/null | wc -l) of $(ls $D/cu/*.cu | wc -l) in $(( $(date +%s) - start )) s with $NVCC"
for l in $(ls $D/so/*.log | head -2); do [ -s "$l" ] && { echo "== $l"; head -5 "$l"; }; done
run_one() {   # name file target shapes rules rc
  local name=$1 file=$2 shapes=$4 rules=$5 rc=$6 shp
  for shp in $shapes; do
    local so=$D/so/$name.so
    local line=""
    if [ $(( $(date +%s) - start )) -gt ${BUDGET_S:-200} ]; then
      line='{"result":"skipped (device budget)"}'
    elif [ -f "$so" ]; then
      line=$($D/cake-runner --so "$so" --harness $D/cake_harness --shape "M=${shp%%,*},N=$(echo $shp | cut -d, -f2),K=${shp##*,}" --timeout ${WATCHDOG:-10} --runs 3 \
             --no-baseline 2>"$D/so/err.$name" | tail -1)
      [ -n "$line" ] || line=$(python3 -c 'import json,sys; print(json.dumps({"result": "runner_failed", "detail": open(sys.argv[1]).read()[-300:]}))' "$D/so/err.$name")
    else
      line='{"result":"compile_error"}'
    fi
    python3 -c '
import json, sys
j = json.loads(sys.argv[1]); j.pop("harness", None)
j.update({"case": sys.argv[2], "file": sys.argv[3], "shape_asked": sys.argv[4], "predicted": sys.argv[5], "check_exit": int(sys.argv[6])})
print(json.dumps(j))' "$line" "$name" "$file" "$shp" "$rules" "$rc"
  done
}
export -f run_one; export start OUT
# three at a time on the one GPU (a hung kernel is killed by the watchdog);
# cases not started before BUDGET_S seconds are recorded as skipped
while IFS=$'\t' read -r name file target shapes rules rc; do
  printf '%s\0%s\0%s\0%s\0%s\0%s\0' "$name" "$file" "$target" "$shapes" "$rules" "$rc"
done < $D/manifest.tsv | xargs -0 -n 6 -P 3 bash -c 'run_one "$@"' _ >> "$OUT/ground_truth.jsonl"
echo "done in $(( $(date +%s) - start )) s: $(wc -l < "$OUT/ground_truth.jsonl") runs"
# one short line per run on stdout too
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    print(j["case"][:70], j["shape_asked"], j.get("result"), "%.3g" % (j.get("rel_error") or -1))' "$OUT/ground_truth.jsonl"
