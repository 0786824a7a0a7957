#!/usr/bin/env bash
# Device call of issue 13, session 22 (helper sm80): build every $D/cu/*.cu as $D/NAME.so (compute_80 PTX, the
# H200's SASS, as run_s20.sh), time each against cuBLAS (harness: RUNS interleaved runs, L2 flushed) in PASSES
# (SIZE:V kernel order, SIZE:R reversed; square sizes), the WAVE kernels at 4096^3 and 4224x4096x4096 (1056 tiles:
# 4 full waves of 2 CTAs on 132 SMs) in two passes, the EDGE kernels' edge shapes (correctness), the SASS census,
# Nsight Compute's mma.sync metrics, SM activity and the shared-memory wavefronts / bank conflicts of PROF at 4096^3.
#   D=.devcarry/sm80s22 LIMIT=... PASSES=... WAVE=... EDGE=... PROF=... bash .devcarry/sm80s22/run_s22.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80s22} LIMIT=${LIMIT:-300} KRE=${KRE:-'cake_(p?frag|sm80)'}
E=$D/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
so() {
  local c=$1 n
  n=$(basename "$c" .cu)
  "$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -Irunner/harness -Iabi -lineinfo \
    -gencode=arch=compute_80,code=sm_90 -Xptxas -v "$c" -o "$D/$n.so" > "$D/ptxas_$n.txt" 2>&1 || echo "BUILD FAILED $n"
}
export -f so; export NVCC D
ls "$D"/cu/*.cu | xargs -P 16 -I{} bash -c 'so {}'
for f in "$D"/ptxas_*.txt; do echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[0-9]* bytes smem\|[0-9]* bytes spill stores' "$f" | tr '\n' ' ')"; done | tee "$OUT/ptxas.txt"
log "build done, $(left) s left"
V=${V:-$(ls $D/*.so | xargs -n1 basename | sed 's/\.so$//' | sort)}
R=$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ')
rec() {  # rec NAME SIZE_LABEL M N K
  timeout -s KILL 60 $H --kernel $D/$1.so --m $3 --n $4 --k $5 --runs ${RUNS:-50} 2>/dev/null | tail -1 > "$OUT/r.json"
  python3 "$TR" "$OUT/r.json" "$1" $2 >> "$OUT/time.jsonl"
}
gpu_line
for p in ${PASSES:-4096:V 4096:R 4096:V 4096:R}; do
  s=${p%%:*}
  # shellcheck disable=SC2086
  if [ "${p#*:}" = R ]; then L2=$R; else L2=$V; fi
  for v in $L2; do [ "$(left)" -gt 70 ] && rec $v $s $s $s $s; done
  log "pass $p done, $(left) s left"
done
for pass in 1 2; do
  for v in ${WAVE-}; do [ "$(left)" -gt 60 ] && { rec $v 4097 4096 4096 4096; rec $v 4224 4224 4096 4096; }; done
  log "wave pass $pass done, $(left) s left"
done
gpu_line
python3 - "$OUT/time.jsonl" <<'PY'
import json, sys, statistics
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rs:
    by.setdefault((r['kernel'], r['size']), []).append(r)
for (k, s), v in sorted(by.items(), key=lambda x: (x[0][1], -statistics.median([y.get('ratio') or 0 for y in x[1]]))):
    rat = [x.get('ratio') or 0 for x in v]
    km = [x.get('median_ms') for x in v if x.get('median_ms')]
    m, n, kk = {4224: (4224, 4096, 4096), 4097: (4096, 4096, 4096)}.get(s, (s, s, s))
    tf = 2.0 * m * n * kk / (statistics.median(km) * 1e-3) / 1e12 if km else 0
    print(f"{s} {k}: median {statistics.median(rat):.3f} {tf:.0f} TFLOP/s ratios {' '.join(f'{x:.3f}' for x in rat)} "
          f"kernel_ms {' '.join(str(x.get('median_ms')) for x in v)} cublas_ms {' '.join(str(x.get('baseline_ms')) for x in v)} "
          f"correct {' '.join(str(x.get('correct')) for x in v)}")
PY
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
sass_tgz $V
m="$(mma_sync_metrics),sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,gpc__cycles_elapsed.max,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum"
for n in ${PROF-}; do
  [ "$(left)" -gt 25 ] || continue
  timeout -s KILL 40 ncu --metrics "$m" --clock-control none -k regex:"$KRE" -c 1 \
    $H --kernel $D/$n.so --m 4096 --n 4096 --k 4096 --no-time > "$OUT/ncu.txt" 2>&1
  echo "== ncu $n 4096^3"; grep -E 'sm__|smsp__|launch__|gpu__time|gpc__|l1tex__|lts__|dram__|ERR' "$OUT/ncu.txt" | grep -v ' 0$'
done
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT/ncu.txt"
(cd "$OUT" && tar czf raw.tgz time.jsonl sass.tgz 2>/dev/null && rm -f time.jsonl sass.tgz)
