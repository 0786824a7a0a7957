#!/usr/bin/env python3
# Emulation (a .cu edit, not a lowering change): the interior test's row half and the row's global pointer of
# every stepped cp.async copy whose row coordinate is loop-invariant (`cake_r0 = (cake_bx * 128)` or
# `(cake_by * 128)`, the GEMMs' tile corner) computed once at the role's start, through cake_here, beside
# the hoisted offsets of emitCpAsyncHoists: the column bound becomes `ccl = r0 in range ? cl : 0` (so the
# test is one 64-bit compare of c0) and the pointer `rp = T + r0 * stride + g` (so the copy's pointer is
# rp + c0). Same chunks, same bytes, same test (0 <= r0 && r0 + R <= d && 0 <= c0 && c0 + C <= d1 as
# before: (u64) c0 < ccl exactly when r0 passed and (u64) c0 < cl). docs/gpu.md "sm_80: paired cp.async
# rows" (helper sm80d, session 17).
# Usage: python3 row_hoist_emul.py IN.cu OUT.cu
import re
import sys

s = open(sys.argv[1]).read()
# the hoisted sets: name -> (tensor, row stride); their r0 expression from the copies
hoist = {}
for m in re.finditer(r'const long long (cake_cpt\d+_\d+_2)_g = cake_here\(static_cast<long long>.*? \* (cake_ext_(\w+)\.s\[0\]) \+', s):
    hoist[m.group(1)] = (m.group(3), m.group(2))
r0s = {}
pat = re.compile(r'const long long cake_r0 = (\(cake_b[xy] \* \d+\)), cake_c0 = (.*?), cake_base = 0;\n(\s*)const bool cake_plane = true;\n'
                 r'\s*if \(cake_plane && static_cast<unsigned long long>\(cake_r0\) < static_cast<unsigned long long>\((cake_cpt\d+_\d+_2)_rl\) '
                 r'&& static_cast<unsigned long long>\(cake_c0\) < static_cast<unsigned long long>\(\4_cl\)\) \{\n'
                 r'(\s*)const auto cake_p = (\w+) \+ \(cake_base \+ cake_r0 \* cake_ext_\w+\.s\[0\] \+ \4_g \+ cake_c0\);\n')
for m in pat.finditer(s):
    r0s.setdefault(m.group(4), set()).add(m.group(1))
if not r0s or any(len(v) != 1 for v in r0s.values()):
    sys.exit(f'no copy or a copy set with several row coordinates: {r0s}')


def repl(m):
    n = m.group(4)
    return (f'const long long cake_r0 = {m.group(1)}, cake_c0 = {m.group(2)}, cake_base = 0;\n{m.group(3)}const bool cake_plane = true;\n'
            f'{m.group(3)}if (static_cast<unsigned long long>(cake_c0) < static_cast<unsigned long long>({n}_ccl)) {{\n'
            f'{m.group(5)}const auto cake_p = {n}_rp + cake_c0;\n')


s, k = pat.subn(repl, s)
for n, (t, stride) in hoist.items():
    if n not in r0s:
        continue
    r0 = next(iter(r0s[n]))
    cl = re.search(rf'( *)const long long {n}_cl = .*\n', s)
    add = (f'{cl.group(1)}const long long {n}_ccl = cake_here(static_cast<unsigned long long>(static_cast<long long>{r0}) < '
           f'static_cast<unsigned long long>({n}_rl) ? {n}_cl : 0LL);\n'
           f'{cl.group(1)}const auto {n}_rp = reinterpret_cast<decltype({t})>(cake_here(reinterpret_cast<long long>('
           f'{t} + (static_cast<long long>{r0} * {stride} + {n}_g))));\n')
    s = s[:cl.end()] + add + s[cl.end():]
print(f'{k} copies rewritten, {len(r0s)} hoisted sets', file=sys.stderr)
open(sys.argv[2], 'w').write(s)
