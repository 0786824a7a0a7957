#!/usr/bin/env python3
# Emulation (not a lowering change; not timed): the tried two-chunks-a-row cp.async mapping
# (two_chunks_a_row.patch) with the rows of each quarter-warp paired 4 apart, so that the 8 chunks of a
# quarter-warp fall in 8 different 16-byte bank groups under the 128B swizzle (cp_async_bank_phases.py:
# 4 shared wavefronts per warp instruction, as with one chunk a row per thread). Thread t of the instance:
# row 8 * (t / 32) + (t % 32) / 8 + 4 * ((t % 8) / 4), column chunks t % 4 and t % 4 + 4 (the same 32 rows a
# pass, each (row, chunk) once). Rewrites the per-thread row of every hoisted stepped copy with 4 threads a
# row in a .cu lowered by the patched cake.
# Usage: python3 pair_rows_emul.py IN.cu OUT.cu
import re
import sys

s = open(sys.argv[1]).read()
paired = '((cake_inst_thread / 32) * 8 + (cake_inst_thread % 32) / 8 + 4 * ((cake_inst_thread % 8) / 4))'
n = 0
out = []
for line in s.splitlines(keepends=True):
    if re.search(r'const (long long|uint32_t) cake_cpt\d+_\d+_\d+_(g|s|s1) = ', line) and 'cake_inst_thread % 4' in line:
        line, k = re.subn(r'\(cake_inst_thread / 4\)', paired, line)
        n += k
    out.append(line)
if n == 0:
    sys.exit('no stepped copy with 4 threads a row found')
print(f'{n} row expressions rewritten', file=sys.stderr)
open(sys.argv[2], 'w').write(''.join(out))
