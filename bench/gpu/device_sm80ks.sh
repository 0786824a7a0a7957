#!/usr/bin/env bash
# One device call for issue 13 (helper sm80): the k-step-sliced sm_80 GEMMs
# (bench/gpu/schedules/sm80/kslice/, wait + sync before the last k-step of each
# k-block) against the corpus sm_80 GEMM and the fastest earlier sm_80 schedule,
# each against cuBLAS (the harness interleaves kernel and cuBLAS, L2 flushed), at
# 4096^3 and 8192^3; correctness at edge shapes (partial tiles); the SASS of every
# kernel (gzipped, for the per-k-block census here); Nsight Compute's tensor-pipe
# and stall metrics on the corpus kernel and the fastest sliced one at 4096^3.
# Built here by:
#   SCRIPT=device_sm80ks.sh DEST=/work/main/.devcarry/sm80 SCHED="..." bash bench/gpu/build_sm80b.sh build
# run with carry [".devcarry/sm80"]:  LIMIT=200 bash .devcarry/sm80/device_sm80ks.sh
# (SASS="names", NCU="names", EDGE="names" and SIZES="4096 8192" narrow those steps, an empty one
# skips it; steps past the timing stop when LIMIT runs short). Profile only, e.g.:
#   LIMIT=60 SIZES= EDGE= SASS= NCU="sm80_128x128_k64_s3 sm80_cp_async_multistage" bash .devcarry/sm80/device_sm80ks.sh
set -u
D=${D:-.devcarry/sm80}
LIMIT=${LIMIT:-200}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
gpu_line
# NAME.so, and base_NAME.so where built from an earlier lowering (BASE_CU_DIR of build_sm80b.sh), timed
# in alternation
NAMES=$(carry_kernel_names)
time_base_and_new ${SIZES-4096 8192}
gpu_line
# shellcheck disable=SC2086
sm80_edges ${EDGE-$NAMES}
# shellcheck disable=SC2086
sass_tgz ${SASS-$NAMES}
# the fastest sliced kernel at 4096^3 (median ratio), profiled beside the corpus kernel
BEST=$(best_kernel sm80ks_ 4096)
echo "best sliced at 4096^3: $BEST"
# shellcheck disable=SC2086
ncu_mma_profiles 'cake_(gemm|sm80)' ${NCU:-$BEST sm80_cp_async_multistage}
log "all done, $(left) s left"
rm -f "$OUT/r.json"
