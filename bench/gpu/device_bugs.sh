#!/usr/bin/env bash
# Device run: the GEMM mutants of corpus/bugs/ (lowered into .devcarry/bugs/)
# and their fixed versions, each run REPEAT times with fresh inputs under the
# watchdog. A correct kernel here matches cuBLAS bit for bit (rel_error 0),
# so any nonzero rel_error is the race showing up, even under tolerance.
set -u
D=.devcarry
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
CUPTI=$(dirname "$(find / -name 'libcupti.so.13' -not -path '*/.devcarry/*' -not -path '/proc/*' 2>/dev/null | head -1)" 2>/dev/null)
export LD_LIBRARY_PATH=$D/lib:${CUPTI:-/usr/local/cuda/extras/CUPTI/lib64}:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
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
