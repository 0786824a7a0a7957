#!/usr/bin/env bash
# One device call for issue 13 (helper sm80d, session 17): the sm_80 GEMMs with paired cp.async rows (NAME.so,
# this branch's lowering: two 16-byte chunks of a row per thread, the rows of a quarter-warp chosen so that
# its stores are conflict-free; docs/gpu.md "sm_80: paired cp.async rows"), main's lowering beside each as
# base_NAME.so, and the emulations of bench/gpu/results/sm80d_session17/ (PREFIX_NAME.so: tc_ = two chunks a
# row in natural row order, session 16's tried mapping; hp_ / hb_ = paired / main's lowering with the
# interior test's row half and the row pointer hoisted, row_hoist_emul.py), all against cuBLAS (the harness
# interleaves kernel and cuBLAS, L2 flushed, RUNS runs) at 4096^3, 8192^3 and 4096^3 again in reverse order;
# correctness at the sm_80 edge shapes and EXTRA_SHAPES for EDGE; the SASS (cuobjdump) of every .so; a
# Nsight Compute profile (warp states, source counters) of the kernel with the best median ratio at 4096^3
# and of each PROF name; then, while time is left, `cake run` end to end of each CRUN schedule.
# Built here by bench/gpu/build_sm80d.sh (docs/benchmarks.md "sm_80: paired cp.async rows"), carried as
# .devcarry/sm80d/c.tar.xz. Run with carry [".devcarry/sm80d"]:
#   tar xJf .devcarry/sm80d/c.tar.xz && D=sm80d LIMIT=... bash sm80d/device_sm80d.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-sm80d} LIMIT=${LIMIT:-400} KRE=${KRE:-'cake_(frag|sm80)'}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
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
gpu_line
# shellcheck disable=SC2086
timed 4096 $V
# shellcheck disable=SC2086
timed 8192 $V
# shellcheck disable=SC2086
timed 4096 $(echo $V | tr ' ' '\n' | tac)
gpu_line
python3 - "$OUT/time.jsonl" <<'PY'
import json, sys, statistics
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rs:
    by.setdefault((r['kernel'], r['size']), []).append(r.get('ratio'))
for (k, s), v in sorted(by.items(), key=lambda x: (x[0][1], x[0][0])):
    print(f"{s} {k}: ratio {' '.join(f'{x:.3f}' if x else 'None' for x in v)}")
PY
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
# shellcheck disable=SC2086
sass_tgz $V
B=$(best_kernel "" 4096)
for n in $(echo $B ${PROF-} | tr ' ' '\n' | awk '!s[$0]++'); do
  ncu_src_profile "$n" 45
done
R="$OUT/cake_run.jsonl"; : > "$R"
for c in ${CRUN-}; do
  [ "$(left)" -gt 90 ] || { echo "skip cake run $c"; continue; }
  f=${c%%@*} a=${c#*@}
  echo "== cake run $f $a"
  # shellcheck disable=SC2086
  CAKE_HARNESS="$H" timeout 120 "$D/bin/cake" run "$f" $(echo "$a" | tr '@' ' ') --format json --runs 20 --seed 3 --check-timeout 30 > "$OUT/one.json" 2> "$OUT/one.err"
  echo "rc=$?"; tail -c 600 "$OUT/one.json"; echo; tail -3 "$OUT/one.err"
  python3 -c "import json; d=json.load(open('$OUT/one.json')); print(json.dumps(d))" >> "$R" 2>/dev/null
done
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT/one.json" "$OUT/one.err" "$OUT"/ncu_*.txt
