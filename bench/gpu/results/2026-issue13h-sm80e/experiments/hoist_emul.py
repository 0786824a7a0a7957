#!/usr/bin/env python3
"""Emulates hoisting per-thread address parts to the role's start in a lowered sm_80 GEMM .cu
(experiment for call 1 only; usage: hoist_emul.py IN.cu OUT.cu)."""
import re, sys
src = open(sys.argv[1]).read()
hoist = []
# ldmatrix rows
def ld(m):
    pre, row, pitch, sw = m.group(1), m.group(2), m.group(3), m.group(4)
    row = row.replace("cake_a0 + ", "").replace("cake_b0 + ", "")
    row = row.replace("cake_wrow", "(cake_wwarp / 2) * 64").replace("cake_wcol", "(cake_wwarp % 2) * 64")
    hoist.append(f"const uint32_t cake_h_{pre}r = static_cast<uint32_t>({row}) * {pitch}u, cake_h_{pre}sw = ((cake_h_{pre}r >> 3) & {sw}u);")
    return f"const uint32_t cake_{pre}r = cake_h_{pre}r, cake_{pre}sw = cake_h_{pre}sw;"
src, n = re.subn(r"const uint32_t cake_(a|b)r = static_cast<uint32_t>\((.*?)\) \* (\d+)u, cake_\1sw = \(\(cake_\1r >> 3\) & (\d+)u\);[^\n]*", ld, src)
assert n >= 2, n
hoist = sorted(set(hoist))
# copies: the thread's row / column, its swizzled smem offset and global element offset
t = re.search(r"const int cake_rt = cake_inst_thread / (\d+), cake_ct = \(cake_inst_thread % \d+\) \* (\d+);", src)
hoist.append(t.group(0).replace("cake_rt", "cake_h_rt").replace("cake_ct", "cake_h_ct"))
d = re.search(r"const uint32_t cake_d = cake_dst \+ (cake_swz<\d+>\(static_cast<uint32_t>\(\(cake_rt\) \* \d+ \+ \(cake_ct \* 2\)\)\));", src)
hoist.append("const uint32_t cake_h_d = " + d.group(1).replace("cake_rt", "cake_h_rt").replace("cake_ct", "cake_h_ct") + ";")
src = src.replace(d.group(0), "const uint32_t cake_d = cake_dst + cake_h_d;")
for T in "AB":
    hoist.append(f"const long long cake_h_p{T} = cake_h_rt * cake_ext_{T}.s[0] + cake_h_ct;")
    src = src.replace(f"const auto cake_p = cake_src + cake_rt * cake_ext_{T}.s[0] + cake_ct;", f"const auto cake_p = cake_src + cake_h_p{T};")
src = src.replace(t.group(0) + "\n", "")
anchor = "(void)cake_instance; (void)cake_elected; (void)cake_wwarp;\n"
i = src.index(anchor) + len(anchor)
src = src[:i] + "".join("    " + h + "\n" for h in hoist) + src[i:]
open(sys.argv[2], "w").write(src)
