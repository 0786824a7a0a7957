#!/usr/bin/env bash
# The .cu timed by helper sm80 (issue 13, session 22), from the repository root.
# sp_fragsp13 / sp2_fragsp13: fragsp13_128x128_k64_s3 as lowered (the best sm_80 schedule), twice under two names
#   (the same kernel timed as two: the noise floor of one call);
# dlN_fragsp13: sp_ with the second CTA of each SM's first pair sleeping N ns before its prologue (stagger_emul.py);
# p8_fragsp13: the persistent tile loop (pfragsp13, session 21); pdlN_fragsp13: p8_ with the same stagger;
# r16_fragsp13: sp_ with groups of 16 block rows in the CTA order (the lowering's emitRaster has 8).
# Usage: bash bench/gpu/results/sm80_session22/make_variants.sh CAKE OUTDIR
set -eu
C=$1 O=$2 S=bench/gpu/schedules/sm80/frag H=bench/gpu/results/sm80_session22
mkdir -p "$O"
"$C" lower $S/fragsp13_128x128_k64_s3.cake -o "$O/sp_fragsp13.cu"
cp "$O/sp_fragsp13.cu" "$O/sp2_fragsp13.cu"
"$C" lower $S/pfragsp13_128x128_k64_s3.cake -o "$O/p8_fragsp13.cu"
for d in 300 600 1200; do python3 $H/stagger_emul.py "$O/sp_fragsp13.cu" "$O/dl${d}_fragsp13.cu" $d 264; done
for d in 600; do python3 $H/stagger_emul.py "$O/p8_fragsp13.cu" "$O/pdl${d}_fragsp13.cu" $d 0; done
sed -e 's/8ull \* gridDim.y;  \/\/ blocks per group/16ull * gridDim.y;  \/\/ blocks per group/' \
    -e 's/cake_blin \/ cake_bgrp \* 8);/cake_blin \/ cake_bgrp * 16);/' \
    -e 's/cake_bx0 < 8u ? gridDim.x - cake_bx0 : 8u;/cake_bx0 < 16u ? gridDim.x - cake_bx0 : 16u;/' "$O/sp_fragsp13.cu" > "$O/r16_fragsp13.cu"
[ "$(grep -c '16ull \* gridDim.y\|cake_bgrp \* 16)\|: 16u;' "$O/r16_fragsp13.cu")" = 3 ]
# es_fragsp13: sp_ with the interior tile's store through shared memory, 16-byte st.global (epilogue_emul.py);
# esdl600_fragsp13: both emulations
python3 $H/epilogue_emul.py "$O/sp_fragsp13.cu" "$O/es_fragsp13.cu"
python3 $H/stagger_emul.py "$O/es_fragsp13.cu" "$O/esdl600_fragsp13.cu" 600 264
