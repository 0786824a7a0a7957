#!/usr/bin/env bash
# Device run: the GEMM mutants of corpus/bugs/ (lowered into .devcarry/bugs/)
# and their fixed versions, each run REPEAT times with fresh inputs under the
# watchdog. A correct kernel here matches cuBLAS bit for bit (rel_error 0),
# so any nonzero rel_error is the race showing up, even under tolerance.
set -u
D=.devcarry
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
for so in $D/bugs/*.so; do
  n=$(basename $so .so)
  shapes="M=4096,N=4096,K=4096"
  case $n in sm80_*) shapes="M=4096,N=4096,K=32 M=4096,N=4096,K=64 M=4096,N=4096,K=4096";; esac
  for shp in $shapes; do
    for i in $(seq ${REPEAT:-3}); do
      $D/cake-runner --so $so --harness $D/cake_harness --shape $shp --timeout 30 --runs 5 --no-baseline > "$OUT/r.json" 2>/dev/null
      cat "$OUT/r.json" >> "$OUT/bugs.jsonl"
      python3 - "$OUT/r.json" "$n" "$shp" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read())
h = j.get("harness") or {}
print("%-40s %-22s %-6s rel_error=%s max_rel=%s nonfinite=%s" % (sys.argv[2], sys.argv[3], j["result"], h.get("rel_error"), h.get("max_rel_error"), h.get("nonfinite")))
PY
    done
  done
done
