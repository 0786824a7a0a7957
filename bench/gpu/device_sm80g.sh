#!/usr/bin/env bash
# One device call for issue 13 (helper sm80, session 14): the sm_80 GEMMs lowered with the accumulator's
# init= zeroing before the k-block loop, the ldmatrix per-thread offsets hoisted to the role's start and the
# interior-tile paired stores (NAME.so), each beside its previous lowering (base_NAME.so, alternated with
# it) against cuBLAS at 4096^3 and 8192^3 (time_base_and_new: the harness interleaves kernel and cuBLAS, L2
# flushed); correctness at the sm_80 edge shapes (EDGE names); SASS of every kernel; for the PROF names an
# Nsight Compute profile with the warp-state and source-counter sections (stall samples and instructions
# executed per SASS instruction, exported as CSV for bench/gpu/ncu_src_census.py), for the MET names the
# tensor-pipe and stall metrics only.
# Built here by:
#   BASE_CU_DIR=/tmp/base SCRIPT=device_sm80g.sh DEST=/work/main/.devcarry/sm80 SCHED="..." bash bench/gpu/build_sm80b.sh build
# run with carry [".devcarry/sm80"]:
#   D=.devcarry/sm80 LIMIT=200 EDGE="..." PROF="..." MET="..." bash .devcarry/sm80/device_sm80g.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80}
LIMIT=${LIMIT:-200}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
KRE=${KRE:-'cake_(frag|sm80)'}
gpu_line
NAMES=${NAMES:-$(carry_kernel_names)}
time_base_and_new ${SIZES-4096 8192}
gpu_line
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
# (EXTRA_SHAPES: more shapes for the EDGE names, device_env.sh)
# shellcheck disable=SC2086
sass_tgz ${SASS-$NAMES}
for n in ${PROF-}; do
  ncu_src_profile "$n" 50
done
# shellcheck disable=SC2086
ncu_mma_profiles "$KRE" ${MET-}
log "all done, $(left) s left"
# at most 8 files come back: run.log (the caller's tee), time.jsonl, results.jsonl, sass.tgz, the source CSVs
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT"/ncu_*.txt
