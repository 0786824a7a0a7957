#!/usr/bin/env bash
# Device call 2 of issue 13, session 21 (helper sm80): the confirmation of call 1 (sp_fragsp13 against the
# persistent p8_fragsp13 and p16_fragsp13; 4096^3 four passes, 8192^3 two, alternating kernel order) and
# Nsight Compute's L2 / DRAM / per-SM CTA counts of sp_ and p8_ at 4096^3 and 4224x4096x4096 (why the
# persistent loop is slower with the same k-block SASS). Builds $D/cu/*.cu as run_s20.sh does.
#   D=.devcarry/sm80s21b LIMIT=... bash .devcarry/sm80s21b/run_s21b.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80s21b} LIMIT=${LIMIT:-240}
E=$D/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
for c in "$D"/cu/*.cu; do
  n=$(basename "$c" .cu)
  "$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -Irunner/harness -Iabi -lineinfo \
    -gencode=arch=compute_80,code=sm_90 -Xptxas -v "$c" -o "$D/$n.so" > "$D/ptxas_$n.txt" 2>&1 &
done
wait
for f in "$D"/ptxas_*.txt; do echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' "$f" | tr '\n' ' ')"; done
log "build done"
V="sp_fragsp13 p8_fragsp13 p16_fragsp13"
R="p16_fragsp13 p8_fragsp13 sp_fragsp13"
rec() {  # rec NAME SIZE_LABEL M N K
  timeout -s KILL 60 $H --kernel $D/$1.so --m $3 --n $4 --k $5 --runs 50 2>/dev/null | tail -1 > "$OUT/r.json"
  python3 "$TR" "$OUT/r.json" "$1" $2 >> "$OUT/time.jsonl"
}
gpu_line
for p in "4096 $V" "4096 $R" "8192 $V" "4096 $V" "8192 $R" "4096 $R"; do
  set -- $p; s=$1; shift
  for v in "$@"; do [ "$(left)" -gt 50 ] && rec $v $s $s $s $s; done
  log "pass $s done, $(left) s left"
done
gpu_line
python3 - "$OUT/time.jsonl" <<'PY'
import json, sys, statistics
by = {}
for l in open(sys.argv[1]):
    if l.strip():
        r = json.loads(l); by.setdefault((r['size'], r['kernel']), []).append(r)
for (s, k), v in sorted(by.items()):
    rat = [x.get('ratio') or 0 for x in v]
    print(f"{s} {k}: median {statistics.median(rat):.3f} ratios {' '.join(f'{x:.3f}' for x in rat)} kernel_ms {' '.join(str(x.get('median_ms')) for x in v)} cublas_ms {' '.join(str(x.get('baseline_ms')) for x in v)} correct {' '.join(str(x.get('correct')) for x in v)}")
PY
m=gpc__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,sm__ctas_launched.min,sm__ctas_launched.max,sm__ctas_launched.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
for n in sp_fragsp13 p8_fragsp13; do
  for shp in "4096 4096 4096" "4224 4096 4096"; do
    [ "$(left)" -gt 25 ] || continue
    set -- $shp
    timeout -s KILL 40 ncu --metrics "$m" --clock-control none -k regex:'cake_p?frag' -c 1 \
      $H --kernel $D/$n.so --m $1 --n $2 --k $3 --no-time > "$OUT/ncu.txt" 2>&1
    echo "== ncu $n $1x$2x$3"; grep -E 'sm__|lts__|dram__|gpc__' "$OUT/ncu.txt"
  done
done
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/ncu.txt"
