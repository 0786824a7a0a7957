#!/usr/bin/env bash
# The .cu timed by helper sm80 (issue 13, session 20), from the repository root.
# cur_NAME: main's lowering (CAKE_MAIN, the steady pass of session 19); sp_NAME: this branch's (CAKE_NEW, the
# serpentine mma.sync order); emulations on cur_fragsp01 / sp_fragsp01 (prefetch_emul.py): l2_ (.L2::128B
# prefetch hint on the 16-byte cp.async), l2b_ (.L2::256B), nz_ (no src-size operand on the interior chunks),
# spl2nz_ / spl2bnz_ (serpentine + hint + no src-size), lb2_ (__launch_bounds__(128, 2)); sp_fragspXY: the other
# copy placements of gen.py's spread form (A after k-step X - 1, B after k-step Y - 1; 0: at the k-block's top),
# written to OUTDIR/sched and lowered by CAKE_NEW (each verified by cake lower first).
# Usage: bash bench/gpu/results/sm80_session20/make_variants.sh CAKE_MAIN CAKE_NEW OUTDIR
set -eu
CM=$1 CN=$2 O=$3 R=bench/gpu/results/sm80_session20
mkdir -p "$O"
for p in "fragsp01:bench/gpu/schedules/sm80/frag/fragsp01_128x128_k64_s3.cake" \
         "fragsp12:bench/gpu/schedules/sm80/frag/fragsp12_128x128_k64_s3.cake" \
         "sm80_cp_async_multistage:corpus/gemm/sm80_cp_async_multistage.cake"; do
  "$CM" lower "${p#*:}" -o "$O/cur_${p%%:*}.cu"
  "$CN" lower "${p#*:}" -o "$O/sp_${p%%:*}.cu"
done
c=$O/cur_fragsp01.cu
python3 $R/prefetch_emul.py $c $O/l2_fragsp01.cu --l2 128
python3 $R/prefetch_emul.py $c $O/l2b_fragsp01.cu --l2 256
python3 $R/prefetch_emul.py $c $O/nz_fragsp01.cu --nz
python3 $R/prefetch_emul.py $O/sp_fragsp01.cu $O/spl2nz_fragsp01.cu --l2 128 --nz
python3 $R/prefetch_emul.py $O/sp_fragsp01.cu $O/spl2bnz_fragsp01.cu --l2 256 --nz
mkdir -p $O/sched
(cd bench/gpu/schedules/sm80/frag && python3 -c "
import gen
for sp in [(-1, -1), (-1, 1), (0, 2), (-1, 2), (1, 2)]:
    n, t = gen.gen(128, 128, 64, 3, True, sp)
    open('$O/sched/' + n + '.cake', 'w').write(t)")
for f in $O/sched/*.cake; do "$CN" lower $f -o $O/sp_$(basename $f _128x128_k64_s3.cake).cu; done
sed 's/__launch_bounds__(128, 1)/__launch_bounds__(128, 2)/' $c > $O/lb2_fragsp01.cu
grep -q '__launch_bounds__(128, 2)' $O/lb2_fragsp01.cu
