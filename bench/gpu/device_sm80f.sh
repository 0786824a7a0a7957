#!/usr/bin/env bash
# One device call for issue 13 (helper sm80, session 13): the sm_80 GEMMs whose mma operands are register
# fragments (bench/gpu/schedules/sm80/frag/: lm.copy slot -> fragment lowered as ldmatrix.x4, fragments
# of k-step s+1 loaded before the MMAs of k-step s, the next k-block's first fragments after the k-block's
# wait/sync) against the current lowering of sm80_128x128_k64_s3 and the corpus sm_80 GEMM, each against
# cuBLAS (the harness interleaves kernel and cuBLAS, L2 flushed), at 4096^3 and 8192^3; correctness at the
# sm_80 edge shapes; SASS of every kernel; Nsight Compute's tensor-pipe and stall metrics on the fastest
# fragment kernel and sm80_128x128_k64_s3 at 4096^3.
# Built here by:
#   SCRIPT=device_sm80f.sh DEST=/work/main/.devcarry/sm80 SCHED="..." bash bench/gpu/build_sm80b.sh build
# run with carry [".devcarry/sm80"]:  LIMIT=230 bash .devcarry/sm80/device_sm80f.sh
# (SASS=, NCU=, EDGE=, SIZES= narrow the steps as in device_sm80ks.sh)
set -u
D=${D:-.devcarry/sm80}
LIMIT=${LIMIT:-230}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
gpu_line
NAMES=$(carry_kernel_names)
time_base_and_new ${SIZES-4096 8192}
gpu_line
FRAGS=$(echo "$NAMES" | grep '^frag' | tr '\n' ' ')
# shellcheck disable=SC2086
sm80_edges ${EDGE-$FRAGS}
# shellcheck disable=SC2086
sass_tgz ${SASS-$NAMES}
BEST=$(best_kernel frag 4096)
echo "best fragment kernel at 4096^3: $BEST"
# shellcheck disable=SC2086
ncu_mma_profiles 'cake_(frag|sm80)' ${NCU-$BEST sm80_128x128_k64_s3}
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/run.txt"
