#!/usr/bin/env bash
# One device call for issue 13 (helper sm80c, session 16): the sm_80 GEMMs lowered with two cp.async
# chunks of a row per thread (NAME.so; a lowering tried and not kept, docs/gpu.md "sm_80: two cp.async
# chunks of a row per thread"; the previous lowering beside it as base_NAME.so, alternated with
# it) against cuBLAS at 4096^3 and 8192^3 (time_base_and_new: the harness interleaves kernel and cuBLAS,
# L2 flushed, RUNS runs); correctness at the sm_80 edge shapes and EXTRA_SHAPES; then `cake run` end to
# end (verify, lower, nvcc here, oracle, timing) with this branch's cake on sm_80 schedules whose copies
# changed (the GEMMs, k-means, row-sum, attention), after the SASS of every kernel and a Nsight Compute
# profile of the PROF names (warp states, source counters).
# (Session 16's call ran `cake run` without CAKE_HARNESS: the carried cake looked for the harness source of
# its build tree, absent on the device, and all five runs ended "no harness"; CAKE_HARNESS is set since,
# not yet run on the device.)
# Built here (docs/benchmarks.md "sm_80: two cp.async chunks of a row per thread"): NAME.cu by this
# branch's `cake lower`, base_NAME.cu by its parent's, each `nvcc ... -gencode=arch=compute_80,code=sm_90`
# (lowered_so's flags), the harness, bin/cake (stripped), lib/ (libz3.so.4, libfmt.so.9, libcupti.so.13)
# and this script with device_env.sh, time_record.py, ncu_src_census.py into .devcarry/sm80c, then
#   tar cJf /work/main/.devcarry/sm80cz/c.tar.xz --exclude=cu .devcarry/sm80c   (10 MB)
# (the device copies the lead's checkout, /work/main: the carry must lie there). Run with carry
# [".devcarry/sm80cz"]:
#   tar xJf .devcarry/sm80cz/c.tar.xz && D=.devcarry/sm80c LIMIT=400 EDGE="..." EXTRA_SHAPES="M N K;..." \
#     PROF="..." bash .devcarry/sm80c/device_sm80c.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80c} LIMIT=${LIMIT:-400} KRE=${KRE:-'cake_(frag|sm80)'}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness" NAMES=${NAMES:-$(carry_kernel_names)}
gpu_line
RUNS=${RUNS:-50} time_base_and_new ${SIZES-4096 8192}
gpu_line
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
log "edges done, $(left) s left"
# shellcheck disable=SC2086
sass_tgz ${SASS-$NAMES}
for n in ${PROF-}; do
  ncu_src_profile "$n" 60
done
R="$OUT/cake_run.jsonl"; : > "$R"
crun() {
  [ "$(left)" -gt 60 ] || { echo "skip cake run $*"; return; }
  echo "== cake run $*"
  CAKE_HARNESS="$H" timeout 120 "$D/bin/cake" run "$@" --format json --runs 20 --seed 3 --check-timeout 60 > "$OUT/one.json" 2> "$OUT/one.err"
  echo "rc=$?"; tail -c 600 "$OUT/one.json"; echo; tail -3 "$OUT/one.err"
  python3 -c "import json; d=json.load(open('$OUT/one.json')); print(json.dumps(d))" >> "$R" 2>/dev/null
}
crun bench/gpu/schedules/sm80/frag/fragsp12_128x128_k64_s3.cake --shape M=4096,N=4096,K=4096
crun corpus/gemm/sm80_cp_async_multistage.cake --shape M=2048,N=2048,K=2048
crun corpus/kmeans/sm80_assign_k128.cake --workload kmeans-assign --shape N=8192,K=128,D=128,B=2
crun corpus/reduction/sm80_row_sum_cp_async.cake --workload row-sum --shape M=4096,N=4000
crun corpus/attention/sm80_flash_attn2_fwd.cake --workload attention-fwd --shape S=64,D=64,B=2,H=4
log "cake run done, $(left) s left"
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT/one.json" "$OUT/one.err" "$OUT"/ncu_*.txt
