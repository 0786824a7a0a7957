#!/usr/bin/env python3
# Emulation (a .cu edit, not a lowering change; issue 13, helper sm80f, session 18): the mma.sync order of
# every lm.mma of a lowered sm_80 .cu with a 4 x 8 warp tile of m16n8 tiles (64x64) made serpentine: the
# n8 index runs 0..7 on even m16 rows and 7..0 on odd ones (CUTLASS's MmaTensorOp order), so the B
# registers of the last mma of a row are those of the next row's first. The lowering's order is row-major
# (i outer over m16, j inner over n8): consecutive mma.sync already use different accumulators.
# Usage: python3 serpentine_emul.py IN.cu OUT.cu
import re
import sys

s = open(sys.argv[1]).read()
lines, n = s.split('\n'), 0
for k, l in enumerate(lines):
    if 'cake_mma_16816_bf16(acc[' in l and 'j / 2' in l:
        if '(4 x 8 tiles)' not in '\n'.join(lines[max(0, k - 8):k]):
            sys.exit(f'line {k + 1}: not a 4 x 8 warp tile')
        lines[k] = (re.sub(r'\bj\b', 'cake_sj', l)
                    .replace('cake_mma_16816_bf16(', '{ const int cake_sj = (i & 1) ? 7 - j : j; cake_mma_16816_bf16(', 1)
                    .rstrip(';') + '; }')
        n += 1
if not n:
    sys.exit('no mma.sync call rewritten')
open(sys.argv[2], 'w').write('\n'.join(lines))
print(f'{n} mma calls rewritten')
