#!/usr/bin/env python3
# Emulation (a .cu edit of the prelude, not a lowering change; issue 13, helper sm80, session 20): the
# 16-byte cp.async of a lowered sm_80 .cu with
#   --l2 128|256  the L2 prefetch hint .L2::128B / .L2::256B (PTX 7.4, sm_80)
#   --nz          the src-size operand left out where the call passes the literal 16 (every interior and
#                 steady-pass chunk): cp.async.cg.shared.global [d], [s], 16 (no zero-fill form)
# Same bytes to the same places; a hint changes no result.
# Usage: python3 prefetch_emul.py IN.cu OUT.cu [--l2 128|256] [--nz]
import re
import sys

a = sys.argv[1:]
s = open(a[0]).read()
old = 'asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");'
if old not in s:
    sys.exit('no 16-byte cp.async in the prelude')
hint = ''
if '--l2' in a:
    hint = '.L2::' + a[a.index('--l2') + 1] + 'B'
full = f'asm volatile("cp.async.cg.shared.global{hint} [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");'
s = s.replace(old, full, 1)
if '--nz' in a:
    fn = ('__device__ __forceinline__ void cake_cp_async16_full(uint32_t dst, const void* src) {\n'
          f'  asm volatile("cp.async.cg.shared.global{hint} [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");\n}}\n')
    at = s.index('__device__ __forceinline__ void cake_cp_async_commit()')
    s = s[:at] + fn + s[at:]
    s, n = re.subn(r'cake_cp_async<16>\((cake_d \+ cake_i \* \d+u), (cake_p \+ cake_i \* \w+_pass), 16\);',
                   r'cake_cp_async16_full(\1, \2);', s)
    print(n, 'interior calls without src-size')
open(a[1], 'w').write(s)
print('cp.async rewritten:', hint or 'no hint', '--nz' in a and 'no src-size for 16' or '')
