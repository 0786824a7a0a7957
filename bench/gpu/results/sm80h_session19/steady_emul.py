#!/usr/bin/env python3
"""Emulation (helper sm80h, issue 13, session 19): a guard-free steady state for the slot-unrolled k-block loop
of a lowered sm_80 GEMM (.cu from `cake lower`, optionally after row_hoist_emul.py / serpentine_emul.py).

The lowering emits `for (; kb + U <= KT; kb += U) { U copies of the body }` where each copy guards its refill
with `if ((k + D) < KT)` (D = stages - 1), the next k-block's fragment load with `if ((k + 1) < KT)`, and each
stepped cp.async with the interior test (`(u64) r0 < rl && (u64) c0 < cl`, or `(u64) c0 < ccl` after the row
hoist). This script puts before that loop a second copy of it that runs while kb + U + D <= KT and every copy
it issues is interior (a predicate computed once: the rows of both operands inside, and the largest column
c0 = (KT - 1) * BK of the steady state inside), with every one of those tests replaced by `true`: in that loop
each of them holds, so the iterations, their operations and their order are those of the verified loop; the
original loop then runs the iterations left. Branch-free copies let ptxas interleave the address arithmetic
and LDGSTS with the HMMAs.
With --guards-only (a third argument) only the `k + c < KT` guards become `true` (no predicate: the loop
bound alone makes them hold); the interior tests, and so their branches, stay.
Usage: steady_emul.py IN.cu OUT.cu [--guards-only]"""
import re, sys

guards_only = len(sys.argv) > 3 and sys.argv[3] == '--guards-only'

src = open(sys.argv[1]).read().split('\n')
head = next(i for i, l in enumerate(src) if re.match(r'\s*for \(; cake_kb_k \+ (\d+) <= (.*); cake_kb_k \+= \d+\) \{$', l))
m = re.match(r'(\s*)for \(; cake_kb_k \+ (\d+) <= (.*); cake_kb_k \+= (\d+)\) \{$', src[head])
ind, U, KT = m.group(1), int(m.group(2)), m.group(3)
depth, end = 0, None
for i in range(head, len(src)):
    depth += src[i].count('{') - src[i].count('}')
    if depth == 0:
        end = i
        break
body = src[head:end + 1]
guards = set(re.findall(r'if \(\(\(k \+ (\d+)\) < ' + re.escape(KT) + r'\)\) \{', '\n'.join(body)))
D = max(int(g) for g in guards)
out, n_guard, n_int = [], 0, 0
for l in body:
    g = re.match(r'(\s*)if \(\(\(k \+ \d+\) < ' + re.escape(KT) + r'\)\) \{(.*)$', l)
    t = re.match(r'(\s*)if \((cake_plane && )?static_cast<unsigned long long>\(cake_r0\) < .*cake_c0\) < static_cast<unsigned long long>\(cake_cpt\w+_cl\)\) \{$', l) or \
        re.match(r'(\s*)if \(static_cast<unsigned long long>\(cake_c0\) < static_cast<unsigned long long>\(cake_cpt\w+_ccl\)\) \{$', l)
    if g:
        out.append(f'{g.group(1)}if (true) {{  // steady state: k + {D} < KT{g.group(2)}'); n_guard += 1
    elif t and not guards_only:
        out.append(f'{t.group(1)}if (true) {{  // steady state: every copy interior'); n_int += 1
    else:
        out.append(l)
out[0] = f'{ind}if ({"true" if guards_only else "cake_ss"}) for (; cake_kb_k + {U + D} <= {KT}; cake_kb_k += {U}) {{'
# the steady-state predicate: every copy's rows inside and the largest column inside
text = '\n'.join(src)
pred = []
for v in sorted(set(re.findall(r'(cake_cpt\w+?)_cl = ', text))):
    bk = re.search(v + r'_cl = cake_here\(cake_ext_\w+\.d\[1\] - (\d+) \+ 1', text).group(1)
    colmax = f'static_cast<unsigned long long>(static_cast<long long>({KT} - 1) * {bk})'
    if v + '_ccl' in text:
        pred.append(f'{colmax} < static_cast<unsigned long long>({v}_ccl)')
    else:
        # the copy's row origin: the r0 of the copies that use this hoist
        r0 = re.search(r'cake_r0 = \(([^;]*?)\), cake_c0 = [^;]*;\n[^\n]*\n[^\n]*' + v + '_rl', text).group(1)
        pred.append(f'static_cast<unsigned long long>(static_cast<long long>({r0})) < static_cast<unsigned long long>({v}_rl)')
        pred.append(f'{colmax} < static_cast<unsigned long long>({v}_cl)')
decl = f'{ind[:-2]}const bool cake_ss = ' + ' && '.join(pred) + ';  // steady_emul.py: every steady-state copy interior'
kb = next(i for i in range(head - 1, -1, -1) if 'int cake_kb_k = 0;' in src[i])
res = src[:kb] + ([] if guards_only else [decl]) + src[kb:head] + out + src[head:]
open(sys.argv[2], 'w').write('\n'.join(res))
print(f'{sys.argv[2]}: U={U} D={D}, {n_guard} guards and {n_int} interior tests -> true in the steady loop; {len(pred)} predicate terms')
