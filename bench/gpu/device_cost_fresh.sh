#!/usr/bin/env bash
# Fresh held-out (schedule, shape) pairs for the cost model: `cake run` on
# the device (verify, lower, nvcc, oracle, CUPTI timing) for every line of
# PAIRS (file<TAB>workload<TAB>shape), one JSON line per pair in
# $OUT/fresh.jsonl: {"id", "split": "holdout", "file", "workload", "shape",
# "sets": {}, "record"}, the records `cake cost evaluate` reads.
# Carry: .devcarry/smoke (prepared by `bash bench/gpu/device_smoke.sh prepare`).
# GPU-free afterwards:
#   build/cli/cake cost evaluate RESULTS/fresh.jsonl
set -u
C=.devcarry/smoke
PAIRS=${PAIRS:-bench/gpu/schedules/cost_fresh_pairs.tsv}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
R="$OUT/fresh.jsonl"; : > "$R"
n=0
while IFS=$'\t' read -r file workload shape; do
  [ -z "$file" ] || [ "${file#\#}" != "$file" ] && continue
  n=$((n + 1)); id=$(printf 'f%03d' $n)
  t0=$(date +%s.%N)
  timeout 60 $C/bin/cake run "$file" --workload "$workload" --shape "$shape" --format json --runs 12 --seed 7 \
    > "$OUT/one.json" 2> "$OUT/one.err"
  rc=$?
  echo "$id rc=$rc $file $shape $(python3 -c "import time; print(round(time.time()-$t0,1))") s"
  python3 - "$id" "$file" "$workload" "$shape" "$OUT/one.json" >> "$R" <<'PY'
import json, sys
i, f, w, s, p = sys.argv[1:]
try:
    d = json.load(open(p))
except Exception as e:
    d = {"result": "no-json", "error": str(e)}
print(json.dumps({"id": i, "split": "holdout", "file": f, "workload": w, "shape": s, "sets": {}, "record": d}))
PY
done < "$PAIRS"
