#!/usr/bin/env bash
# One device call for issue 13 (helper sm80pp): the sm_80 schedules of
# bench/gpu/schedules/sm80/ and the corpus sm_80 GEMM lowered before (base_)
# and after the lowering's interior cp.async path and kept init branch, the
# 128x192 ping-pong schedules beside sm90_pingpong_128 and the cooperative
# GEMMs, all against cuBLAS (interleaved, L2 flushed); then edge shapes, the
# SASS census (HMMA, LDSM, LDGSTS, FSEL, LDL/STL per kernel) and Nsight Compute
# on the fastest sm_80 kernel and the fastest ping-pong at 4096^3.
# Built here by bench/gpu/build_perf.sh (see docs/benchmarks.md "sm_80 path
# and ping-pong 128x192"); run with carry [".devcarry/sm80pp"]:
#   bash .devcarry/sm80pp/device_sm80pp.sh
set -u
D=${D:-.devcarry/sm80pp}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
gpu_line
KERNELS=${KERNELS:-$(ls $D/*.so | sort)}
for s in ${SIZES:-4096 8192}; do
  for so in $KERNELS; do
    timeout -s KILL 60 $H --kernel $so --m $s --n $s --k $s --runs ${RUNS:-30} 2>/dev/null | tail -1 > "$OUT/r.json"
    python3 "$TR" "$OUT/r.json" "$(basename $so .so)" $s >> "$OUT/time.jsonl"
  done
done
# edge shapes (partial tiles, partial raster groups): device_perf.sh's edge step, its tarball kept whole
D=$D OUT=$OUT/edge STEPS=edge EDGE_KERNELS="${EDGE_KERNELS:-$KERNELS}" bash $D/device_perf.sh
for so in $KERNELS; do
  n=$(basename $so .so)
  cuobjdump --dump-sass $so > "$OUT/sass_$n.txt" 2>/dev/null
  echo "sass $n: $(grep -c 'HGMMA' $OUT/sass_$n.txt) HGMMA $(grep -c 'HMMA' $OUT/sass_$n.txt) HMMA $(grep -c 'LDSM' $OUT/sass_$n.txt) LDSM $(grep -c 'LDGSTS' $OUT/sass_$n.txt) LDGSTS $(grep -c 'FSEL' $OUT/sass_$n.txt) FSEL $(grep -c 'LDL\|STL' $OUT/sass_$n.txt) LDL/STL"
done
# Nsight Compute at 4096^3 on NCU_KERNELS (names of .so files without .so), else on the fastest
# sm_80 kernel and the fastest ping-pong (by median ratio), then NCU_EXTRA; only the schedule's kernel (cake_gemm_* /
# cake_sm80_*), not the harness's fill, flush and compare kernels
best() { python3 -c "
import json,sys
rs=[json.loads(l) for l in open('$OUT/time.jsonl')]
rs=[r for r in rs if r['size']==4096 and '$1' in r['kernel'] and r.get('result')=='ok']
print(max(rs,key=lambda r:r.get('ratio') or 0)['kernel'] if rs else '')"; }
if command -v ncu >/dev/null; then
  for n in ${NCU_KERNELS:-$(best sm80) $(best sm90_pingpong)} ${NCU_EXTRA:-}; do
    timeout -s KILL 60 ncu --set full --import-source yes --clock-control none -k regex:'cake_(gemm|sm80)' -c 1 -o "$OUT/ncu_$n" -f \
      $H --kernel $D/$n.so --m 4096 --n 4096 --k 4096 --no-time > "$OUT/ncu_$n.log" 2>&1
    ncu -i "$OUT/ncu_$n.ncu-rep" --csv --page raw > "$OUT/ncu_${n}_raw.csv" 2>/dev/null
    ncu -i "$OUT/ncu_$n.ncu-rep" --csv --page source --print-source sass > "$OUT/ncu_${n}_sass.csv" 2>/dev/null
    rm -f "$OUT/ncu_$n.ncu-rep"
    echo "== ncu $n"; python3 $D/ncu_summary.py "$OUT/ncu_${n}_raw.csv"
    python3 $D/ncu_hotspots.py "$OUT/ncu_${n}_sass.csv" 2>/dev/null | head -40
  done
fi
(cd "$OUT" && rm -f r.json && tar czf sm80pp.tgz --remove-files $(ls | grep -v '^sm80pp.tgz$'))
