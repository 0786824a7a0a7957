#!/usr/bin/env bash
# The .cu timed by helper sm80h (issue 13, session 19), from the repository root.
# Call 1 (emulations, main's lowering at ee5f2df = CAKE_MAIN): base_ (main), ss_ (steady_emul.py: the
#   guard-free steady pass), ssg_ (--guards-only: the refill guards true, interior tests kept), sphb_ (sm80f's
#   serpentine + row hoist emulations), sssphb_ (all three), for fragsp12; base_/ss_ of sm80_128x128_k64_s3 and
#   the corpus sm_80 GEMM.
# Call 2 (the lowering change): base_NAME by CAKE_MAIN, NAME by this branch's cake (CAKE_NEW).
# Usage: bash bench/gpu/results/sm80h_session19/make_variants.sh CAKE_MAIN CAKE_NEW OUTDIR
set -eu
CM=$1 CN=$2 O=$3 R=bench/gpu/results
mkdir -p "$O/call1" "$O/call2"
F=bench/gpu/schedules/sm80/frag/fragsp12_128x128_k64_s3.cake
S=bench/gpu/schedules/sm80/sm80_128x128_k64_s3.cake
G=corpus/gemm/sm80_cp_async_multistage.cake
c=$O/call1
"$CM" lower $F -o $c/base_fragsp12.cu
python3 $R/sm80d_session17/row_hoist_emul.py $c/base_fragsp12.cu $c/hb_fragsp12.cu
python3 $R/sm80f_session18/serpentine_emul.py $c/hb_fragsp12.cu $c/sphb_fragsp12.cu
python3 $R/sm80h_session19/steady_emul.py $c/base_fragsp12.cu $c/ss_fragsp12.cu
python3 $R/sm80h_session19/steady_emul.py $c/base_fragsp12.cu $c/ssg_fragsp12.cu --guards-only
python3 $R/sm80h_session19/steady_emul.py $c/sphb_fragsp12.cu $c/sssphb_fragsp12.cu
rm $c/hb_fragsp12.cu
for p in "sm80_128x128_k64_s3:$S" "sm80_cp_async_multistage:$G"; do
  "$CM" lower "${p#*:}" -o "$c/base_${p%%:*}.cu"
  python3 $R/sm80h_session19/steady_emul.py "$c/base_${p%%:*}.cu" "$c/ss_${p%%:*}.cu"
done
c=$O/call2
for p in "fragsp12:$F" "fragsp01:bench/gpu/schedules/sm80/frag/fragsp01_128x128_k64_s3.cake" "sm80_128x128_k64_s3:$S" \
         "sm80_cp_async_multistage:$G"; do
  "$CM" lower "${p#*:}" -o "$c/base_${p%%:*}.cu"
  "$CN" lower "${p#*:}" -o "$c/${p%%:*}.cu"
done
