#!/usr/bin/env bash
# Device calls for issue 13, session 19 (helper sm80h; call 2 with CRUN, the lowering change against main's): build every .cu of $D/cu as $D/NAME.so on the
# device (compute_80 PTX, the H200's SASS; run_sm80e.sh's flags), then time each against cuBLAS (harness:
# 50 interleaved runs, L2 flushed) in four passes: 4096^3, 8192^3, then both again in reverse order, with
# the SM clock / power sampled every 100 ms during the passes ($OUT/clocks.csv); edge shapes of the new
# variants, the SASS census, Nsight Compute (kernels matching KRE) of PROF (default: the best kernel) at 4096^3;
# nvidia-smi -q (power, performance, clocks) before and after the passes. PROF (default: the best kernel, then base_fragsp12).
#   D=.devcarry/sm80h LIMIT=... bash .devcarry/sm80h/run_sm80h.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80h} LIMIT=${LIMIT:-300} KRE=${KRE:-'cake_frag'}
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
timed() {
  local s=$1 v
  shift
  for v in "$@"; do
    [ "$(left)" -gt 40 ] || { echo "skip timing $v at $s"; continue; }
    timeout -s KILL 60 $H --kernel $D/$v.so --m $s --n $s --k $s --runs ${RUNS:-50} 2>/dev/null | tail -1 > "$OUT/r.json"
    python3 "$TR" "$OUT/r.json" "$v" $s >> "$OUT/time.jsonl"
    echo "$(date +%s.%N) end $v $s" >> "$OUT/marks.txt"
  done
  log "size $s done, $(left) s left"
}
nvidia-smi -q -d POWER,PERFORMANCE,CLOCK > "$OUT/smi_q_before.txt" 2>&1
R=$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ')
gpu_line
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > "$OUT/clocks.csv" 2>&1 &
SMI=$!
# shellcheck disable=SC2086
timed 4096 $V
# shellcheck disable=SC2086
timed 8192 $V
# shellcheck disable=SC2086
timed 8192 $R
# shellcheck disable=SC2086
timed 4096 $R
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
    print(f"{s} {k}: median {statistics.median(ok) if ok else 0:.3f} ratios {' '.join(f'{x:.3f}' if x else 'None' for x in rat)} "
          f"kernel_ms {' '.join(str(x.get('median_ms')) for x in v)} min_ms {' '.join(str(x.get('min_ms')) for x in v)} cublas_ms {' '.join(str(x.get('baseline_ms')) for x in v)} "
          f"correct {' '.join(str(x.get('correct')) for x in v)}")
PY
# shellcheck disable=SC2086
sm80_edges $(echo $V | tr " " "\n" | grep -v "^base_\|^sp_\|^hb_")
sass_tgz $V
B=$(best_kernel "" 4096)
for n in ${PROF-$B base_fragsp12}; do ncu_src_profile "$n" ${NCUS:-40}; done
# `cake run` end to end (model check, lowering, nvcc, harness) of each CRUN entry FILE@ARG@ARG... with the
# carried cake ($D/bin/cake, this branch's lowering) while more than 60 s are left
for c in ${CRUN-}; do
  [ "$(left)" -gt 60 ] || { echo "skip cake run $c"; continue; }
  f=${c%%@*} a=${c#*@}
  echo "== cake run $f $a"
  # shellcheck disable=SC2086
  CAKE_HARNESS="$H" timeout 150 "$D/bin/cake" run "$f" $(echo "$a" | tr '@' ' ') --format json --runs 20 --seed 3 --check-timeout 60 > "$OUT/one.json" 2> "$OUT/one.err"
  echo "rc=$?"; tail -c 700 "$OUT/one.json"; echo; tail -3 "$OUT/one.err"
  python3 -c "import json; d=json.load(open('$OUT/one.json')); print(json.dumps(d))" >> "$OUT/results.jsonl" 2>/dev/null
done
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT"/ncu_*.txt "$OUT/one.json" "$OUT/one.err"
# at most 8 files come back: the timing records into one tarball with the SASS
(cd "$OUT" && tar czf raw.tgz time.jsonl sass.tgz smi_q_before.txt smi_q_after.txt marks.txt 2>/dev/null && rm -f time.jsonl sass.tgz smi_q_before.txt smi_q_after.txt marks.txt)
