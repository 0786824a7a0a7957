#!/usr/bin/env bash
# The .cu timed by helper sm80f (issue 13, session 18), from the repository root at main 33b4ef5:
# schedules from bench/gpu/schedules/sm80/frag/gen.py's gen() (not added to the schedule folder: none won),
# lowered by `cake lower` (proved), then edited: __launch_bounds__ occupancy, the row hoist emulation
# (bench/gpu/results/sm80d_session17/row_hoist_emul.py), the serpentine mma order (serpentine_emul.py).
# Usage: bash bench/gpu/results/sm80f_session18/make_variants.sh CAKE OUTDIR
set -eu
CAKE=$1 O=$2 R=bench/gpu/results/sm80f_session18 H=bench/gpu/results/sm80d_session17/row_hoist_emul.py
mkdir -p "$O/cake" "$O/cu"
python3 - "$O/cake" <<'PY'
import sys; sys.path.insert(0, 'bench/gpu/schedules/sm80/frag')
import gen
for a in [(128, 128, 64, 3, True, (0, 1), 8), (64, 128, 64, 3, True, (0, 1)), (128, 64, 64, 3, True, (0, 1)),
          (128, 128, 32, 4, True, (-1, 0))]:
    n, t = gen.gen(*a); open(f'{sys.argv[1]}/{n}.cake', 'w').write(t)
PY
cp bench/gpu/schedules/sm80/frag/fragsp12_128x128_k64_s3.cake "$O/cake/"
for f in "$O"/cake/*.cake; do "$CAKE" lower "$f" -o "$O/cu/$(basename "$f" .cake).cu"; done
c=$O/cu; lb() { sed "s/__launch_bounds__($1, 1)/__launch_bounds__($1, $2)/" "$3"; }
cp $c/fragsp12_128x128_k64_s3.cu $O/base_fragsp12.cu
python3 $H $O/base_fragsp12.cu $O/hb_fragsp12.cu
python3 $R/serpentine_emul.py $O/base_fragsp12.cu $O/sp_fragsp12.cu
python3 $R/serpentine_emul.py $O/hb_fragsp12.cu $O/sphb_fragsp12.cu
cp $c/fragsp12_128x128_k64_s3_w8.cu $O/w8.cu
lb 256 2 $c/fragsp12_128x128_k64_s3_w8.cu > $O/w8lb2.cu
lb 128 3 $c/fragsp12_64x128_k64_s3.cu > $O/t64x128lb3.cu
lb 128 3 $c/fragsp12_128x64_k64_s3.cu > $O/t128x64lb3.cu
lb 128 3 $c/fragsp01_128x128_k32_s4.cu > $O/k32s4lb3.cu
for n in w8lb2 t64x128lb3 t128x64lb3; do python3 $H $O/$n.cu $O/hb$n.cu; done
