#!/usr/bin/env bash
# The .cu timed by helper sm80 (issue 13, session 21), from the repository root.
# sp_fragsp13: session 20's best (fragsp13_128x128_k64_s3, not persistent: main's lowering, unchanged here);
# p8_fragsp13: the persistent tile loop (bench/gpu/schedules/sm80/frag/pfragsp13_128x128_k64_s3.cake, groups
# of 8 block rows), grid #SMs x CTAs per SM (this branch's lowering); p4_ / p16_: groups of 4 / 16 block rows;
# pnoov_: the tile's epilogue before the next tile's first copies (no overlap; the attribution of p8's);
# p1sm_: p8's .cu with the grid at #SMs (one CTA per SM: what main's lowering launches for it).
# pg_: one ring across tiles (pg_fragsp13.cake; K > 128, no slot unroll or steady pass in its lowering).
# Each variant is verified by `cake check` (bounded) and refused by `cake lower` if it does not verify.
# Usage: bash bench/gpu/results/sm80_session21/make_variants.sh CAKE OUTDIR
set -eu
C=$1 O=$2 S=bench/gpu/schedules/sm80/frag
mkdir -p "$O/sched"
"$C" lower $S/fragsp13_128x128_k64_s3.cake -o "$O/sp_fragsp13.cu"
P=$S/pfragsp13_128x128_k64_s3.cake
"$C" lower $P -o "$O/p8_fragsp13.cu"
for g in 4 16; do
  sed -e "s/(8 \* tiles_n)/($g * tiles_n)/g" -e "s/) \* 8$/) * $g/" -e "s/, 8)$/, $g)/" -e "s/pfragsp13_128x128/pfragsp13g${g}_128x128/" $P > "$O/sched/p$g.cake"
  [ "$(grep -c "($g \* tiles_n)" "$O/sched/p$g.cake")" = 6 ] && [ "$(grep -c ", $g)$" "$O/sched/p$g.cake")" = 2 ] && [ "$(grep -c ") \* $g$" "$O/sched/p$g.cake")" = 2 ]
  "$C" lower "$O/sched/p$g.cake" -o "$O/p${g}_fragsp13.cu"
done
python3 - "$P" "$O/sched/pnoov.cake" <<'PY'
import sys
t = open(sys.argv[1]).read()
epi = "            lm.copy(out, acc)\n            lm.copy(C, out, coords=(m_blk, n_blk))\n"
assert t.endswith(epi)
t = t[:-len(epi)]
w = "            lm.cp_async_wait(pending=0)\n"
assert t.count(w) == 1
t = t.replace(w, w + epi).replace("pfragsp13_128x128", "pfragsp13noov_128x128")
open(sys.argv[2], "w").write(t)
PY
"$C" lower "$O/sched/pnoov.cake" -o "$O/pnoov_fragsp13.cu"
sed 's|^  cake_num_sms \*= cake_ctas_per_sm;|  (void)cake_ctas_per_sm;  // p1sm: one CTA per SM|' "$O/p8_fragsp13.cu" > "$O/p1sm_fragsp13.cu"
grep -q 'p1sm: one CTA per SM' "$O/p1sm_fragsp13.cu"
# pg_: one ring across tiles, the next tile's first k-blocks refilled in the last k-blocks (pg_fragsp13.cake)
"$C" lower bench/gpu/results/sm80_session21/pg_fragsp13.cake -o "$O/pg_fragsp13.cu"
