#!/usr/bin/env bash
# One device call for issue 13, session 18 (helper sm80e): build every lowered .cu of $D/cu as $D/NAME.so
# on the device (16 cores; the flags of build_sm80d.sh's so(): compute_80 PTX, the H200's SASS), then
# bench/gpu/device_sm80d.sh's sweep, here with four timing passes (4096^3, 8192^3, then both again in
# reverse order), the edge shapes of EDGE, the SASS and Nsight Compute of the best kernel and PROF.
# Carried as /work/main/.devcarry/sm80e (the device copies /work/main's checkout, not the worktree):
#   D=.devcarry/sm80e LIMIT=... EDGE=... PROF=... bash .devcarry/sm80e/run_sm80e.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80e} LIMIT=${LIMIT:-380} KRE=${KRE:-'cake_(frag|sm80)'}
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
for f in "$D"/ptxas_*.txt; do echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' "$f" | tr '\n' ' ')"; done | tee "$OUT/ptxas.txt"
log "build done, $(left) s left"
V=${V:-$(ls $D/*.so | xargs -n1 basename | sed 's/\.so$//' | sort)}
timed() {  # timed SIZE NAME...: each once, in the order given
  local s=$1 v
  shift
  for v in "$@"; do
    [ "$(left)" -gt 30 ] || { echo "skip timing $v at $s"; continue; }
    timeout -s KILL 60 $H --kernel $D/$v.so --m $s --n $s --k $s --runs ${RUNS:-50} 2>/dev/null | tail -1 > "$OUT/r.json"
    python3 "$TR" "$OUT/r.json" "$v" $s >> "$OUT/time.jsonl"
  done
  log "size $s done, $(left) s left"
}
R=$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ')
gpu_line
# shellcheck disable=SC2086
timed 4096 $V
# shellcheck disable=SC2086
timed 8192 $V
# shellcheck disable=SC2086
timed 8192 $R
# shellcheck disable=SC2086
timed 4096 $R
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
          f"kernel_ms {' '.join(str(x.get('median_ms')) for x in v)} cublas_ms {' '.join(str(x.get('baseline_ms')) for x in v)} "
          f"correct {' '.join(str(x.get('correct')) for x in v)}")
PY
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
# shellcheck disable=SC2086
sass_tgz $V
B=$(best_kernel "" 4096)
for n in $(echo $B ${PROF-} | tr ' ' '\n' | awk '!s[$0]++'); do
  ncu_src_profile "$n" 45
done
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT"/ncu_*.txt
