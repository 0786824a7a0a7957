#!/usr/bin/env bash
# The .cu of call 2 (helper sm80, issue 13, session 22), from the repository root, with this branch's cake:
# new_fragsp13: fragsp13_128x128_k64_s3 as this branch lowers it (16-byte quad-transposed epilogue, groups of 16);
# v16_fragsp13: the same with groups of 8 (the epilogue change alone);
# new_sm80cam / old_sm80cam: corpus/gemm/sm80_cp_async_multistage lowered by this branch, and with both changes
#   turned off in its .cu (cake_v16 false, groups of 8: the code main's lowering emits);
# new_pfragsp13: the persistent pfragsp13 (no grid raster; the epilogue change);
# esr16_fragsp13: call 1's es_ emulation (shared-memory staged epilogue) with groups of 16.
# sp_fragsp13 and es_fragsp13 are call 1's (main's lowering; make_variants.sh).
# Usage: bash bench/gpu/results/sm80_session22/make_variants2.sh CAKE OUTDIR CALL1_OUTDIR
set -eu
C=$1 O=$2 O1=$3 S=bench/gpu/schedules/sm80/frag H=bench/gpu/results/sm80_session22
mkdir -p "$O"
"$C" lower $S/fragsp13_128x128_k64_s3.cake -o "$O/new_fragsp13.cu"
"$C" lower $S/pfragsp13_128x128_k64_s3.cake -o "$O/new_pfragsp13.cu"
"$C" lower corpus/gemm/sm80_cp_async_multistage.cake -o "$O/new_sm80cam.cu"
to8() {
  sed -e 's/16ull \* gridDim.y;  \/\/ blocks per group/8ull * gridDim.y;  \/\/ blocks per group/' \
      -e 's/cake_blin \/ cake_bgrp \* 16);/cake_blin \/ cake_bgrp * 8);/' \
      -e 's/cake_bx0 < 16u ? gridDim.x - cake_bx0 : 16u;/cake_bx0 < 8u ? gridDim.x - cake_bx0 : 8u;/' "$1"
}
to8 "$O/new_fragsp13.cu" > "$O/v16_fragsp13.cu"
[ "$(grep -c '8ull \* gridDim.y\|cake_bgrp \* 8)\|: 8u;' "$O/v16_fragsp13.cu")" = 3 ]
to8 "$O/new_sm80cam.cu" | sed 's/const bool cake_v16 = cake_inner \&\&/const bool cake_v16 = false \&\& cake_inner \&\&/' > "$O/old_sm80cam.cu"
[ "$(grep -c 'cake_v16 = false' "$O/old_sm80cam.cu")" -ge 1 ] && [ "$(grep -c '8ull \* gridDim.y' "$O/old_sm80cam.cu")" = 1 ]
sed -e 's/8ull \* gridDim.y;  \/\/ blocks per group/16ull * gridDim.y;  \/\/ blocks per group/' \
    -e 's/cake_blin \/ cake_bgrp \* 8);/cake_blin \/ cake_bgrp * 16);/' \
    -e 's/cake_bx0 < 8u ? gridDim.x - cake_bx0 : 8u;/cake_bx0 < 16u ? gridDim.x - cake_bx0 : 16u;/' "$O1/es_fragsp13.cu" > "$O/esr16_fragsp13.cu"
[ "$(grep -c '16ull \* gridDim.y\|cake_bgrp \* 16)\|: 16u;' "$O/esr16_fragsp13.cu")" = 3 ]
cp "$O1/sp_fragsp13.cu" "$O1/es_fragsp13.cu" "$O/"
# new32_fragsp13: new_ with groups of 32 block rows
sed -e 's/16ull \* gridDim.y;  \/\/ blocks per group/32ull * gridDim.y;  \/\/ blocks per group/' \
    -e 's/cake_blin \/ cake_bgrp \* 16);/cake_blin \/ cake_bgrp * 32);/' \
    -e 's/cake_bx0 < 16u ? gridDim.x - cake_bx0 : 16u;/cake_bx0 < 32u ? gridDim.x - cake_bx0 : 32u;/' "$O/new_fragsp13.cu" > "$O/new32_fragsp13.cu"
[ "$(grep -c '32ull \* gridDim.y\|cake_bgrp \* 32)\|: 32u;' "$O/new32_fragsp13.cu")" = 3 ]
