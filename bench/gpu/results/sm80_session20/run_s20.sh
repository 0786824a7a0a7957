#!/usr/bin/env bash
# Device call for issue 13, session 20 (helper sm80): build every .cu of $D/cu as $D/NAME.so (compute_80 PTX,
# the H200's SASS; run_sm80h.sh's flags), time each against cuBLAS (harness: 50 interleaved runs, L2 flushed)
# in four passes (4096^3, 8192^3, then both in reverse order), with the SM clock / power sampled every 100 ms;
# the wave test: TAIL kernels at 4096^3 and 4224x4096x4096 (33 x 32 = 1056 tiles of 128x128, exactly 4 waves of
# 2 CTAs on 132 SMs; 4096^3 has 1024 = 3.88 waves), 8192^3 and 8448x8192x8192 (4224 = 16 waves), two passes;
# the edge shapes of EDGE kernels, the SASS census, Nsight Compute's mma.sync metrics of PROF at both wave shapes.
#   D=.devcarry/s20 LIMIT=... [PASSES=...] [KRE=...] bash .devcarry/s20/run_s20.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/s20} LIMIT=${LIMIT:-400} KRE=${KRE:-'cake_(frag|sm80)'}
E=$D/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
log "build start"
so() {
  local c=$1 n
  n=$(basename "$c" .cu)
  "$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -Irunner/harness -Iabi -lineinfo \
    -gencode=arch=compute_80,code=sm_90 -Xptxas -v "$c" -o "$D/$n.so" > "$D/ptxas_$n.txt" 2>&1 || echo "BUILD FAILED $n"
}
export -f so; export NVCC D
ls "$D"/cu/*.cu | xargs -P 16 -I{} bash -c 'so {}'
for f in "$D"/ptxas_*.txt; do echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores\|[0-9]* bytes spill loads' "$f" | tr '\n' ' ')"; done | tee "$OUT/ptxas.txt"
log "build done, $(left) s left"
V=${V:-$(ls $D/*.so | xargs -n1 basename | sed 's/\.so$//' | sort)}
rec() {  # rec NAME SIZE_LABEL M N K
  timeout -s KILL 60 $H --kernel $D/$1.so --m $3 --n $4 --k $5 --runs ${RUNS:-50} 2>/dev/null | tail -1 > "$OUT/r.json"
  python3 "$TR" "$OUT/r.json" "$1" $2 >> "$OUT/time.jsonl"
  echo "$(date +%s.%N) end $1 $2" >> "$OUT/marks.txt"
}
timed() {
  local s=$1 v
  shift
  for v in "$@"; do
    [ "$(left)" -gt 60 ] || { echo "skip timing $v at $s"; continue; }
    rec "$v" $s $s $s $s
  done
  log "size $s done, $(left) s left"
}
nvidia-smi -q -d POWER,PERFORMANCE,CLOCK > "$OUT/smi_q_before.txt" 2>&1
R=$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ')
gpu_line
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > "$OUT/clocks.csv" 2>&1 &
SMI=$!
# PASSES: SIZE:V (kernel order) or SIZE:R (reversed), in turn (session 21's call 1:
# "4096:V 8192:V 4096:R 8192:R 4096:V 4096:R")
for p in ${PASSES:-4096:V 8192:V 8192:R 4096:R}; do
  # shellcheck disable=SC2086
  if [ "${p#*:}" = R ]; then timed "${p%%:*}" $R; else timed "${p%%:*}" $V; fi
done
# the wave test (size label 4224 = 4224x4096x4096, 8448 = 8448x8192x8192) and the K scaling at M = N = 4096
# (label 2048 = 4096x4096x2048, 8191 = 4096x4096x8192; 4097 and 8193 the square sizes of these passes): a CTA's fixed cost (prologue, epilogue) against its k-blocks
for pass in 1 2; do
  for v in ${TAIL-}; do
    [ "$(left)" -gt 60 ] || continue
    rec "$v" 4097 4096 4096 4096; rec "$v" 4224 4224 4096 4096; rec "$v" 2048 4096 4096 2048; rec "$v" 8191 4096 4096 8192
  done
  for v in ${TAIL-}; do
    [ "$(left)" -gt 60 ] || continue
    rec "$v" 8193 8192 8192 8192; rec "$v" 8448 8448 8192 8192
  done
  log "wave pass $pass done, $(left) s left"
done
kill $SMI
nvidia-smi -q -d POWER,PERFORMANCE,CLOCK > "$OUT/smi_q_after.txt" 2>&1
gpu_line
python3 - "$OUT/time.jsonl" <<'PY'
import json, sys, statistics
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rs:
    by.setdefault((r['kernel'], r['size']), []).append(r)
for (k, s), v in sorted(by.items(), key=lambda x: (x[0][1], x[0][0])):
    rat = [x.get('ratio') for x in v]
    ok = [x for x in rat if x]
    km = [x.get('median_ms') for x in v if x.get('median_ms')]
    m, n, kk = {4224: (4224, 4096, 4096), 8448: (8448, 8192, 8192), 2048: (4096, 4096, 2048), 8191: (4096, 4096, 8192), 4097: (4096, 4096, 4096), 8193: (8192, 8192, 8192)}.get(s, (s, s, s))
    tf = 2.0 * m * n * kk / (statistics.median(km) * 1e-3) / 1e12 if km else 0
    print(f"{s} {k}: median {statistics.median(ok) if ok else 0:.3f} kernel {tf:.0f} TFLOP/s ratios {' '.join(f'{x:.3f}' if x else 'None' for x in rat)} "
          f"kernel_ms {' '.join(str(x.get('median_ms')) for x in v)} min_ms {' '.join(str(x.get('min_ms')) for x in v)} cublas_ms {' '.join(str(x.get('baseline_ms')) for x in v)} "
          f"correct {' '.join(str(x.get('correct')) for x in v)}")
PY
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
sass_tgz $V
m=$(mma_sync_metrics)
for n in ${PROF-}; do
  for shp in "4096 4096 4096" "4224 4096 4096"; do
    [ "$(left)" -gt 30 ] || continue
    set -- $shp
    timeout -s KILL 40 ncu --metrics "$m,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,gpc__cycles_elapsed.max" --clock-control none -k regex:"$KRE" -c 1 \
      $H --kernel $D/$n.so --m $1 --n $2 --k $3 --no-time > "$OUT/ncu.txt" 2>&1
    echo "== ncu $n $1x$2x$3"; grep -E 'sm__|smsp__|launch__|gpu__time|gpc__' "$OUT/ncu.txt" | grep -v ' 0$'
  done
done
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT/ncu.txt"
gzip -f "$OUT/clocks.csv"
(cd "$OUT" && tar czf raw.tgz time.jsonl sass.tgz smi_q_before.txt smi_q_after.txt marks.txt 2>/dev/null && rm -f time.jsonl sass.tgz smi_q_before.txt smi_q_after.txt marks.txt)
