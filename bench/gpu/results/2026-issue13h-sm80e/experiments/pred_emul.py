#!/usr/bin/env python3
"""Experiment (call 1 only): the mainloop refill of a lowered sm_80 GEMM as branch-free predicated
cp.async (guard kn < k_tiles as the predicate, no interior/edge split: valid only where every tile is
interior, i.e. the timed square shapes). Usage: pred_emul.py IN.cu OUT.cu"""
import re, sys
src = open(sys.argv[1]).read()
helper = '''template <int BYTES>
__device__ __forceinline__ void cake_cp_async_p(uint32_t dst, const void* src, bool p) {
  asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %2, 0;\\n@p cp.async.cg.shared.global [%0], [%1], 16;\\n}\\n"
               ::"r"(dst), "l"(src), "r"(static_cast<int>(p)) : "memory");
}
'''
a = src.index("__device__ __forceinline__ void cake_cp_async_commit()")
src = src[:a] + helper + src[a:]
lines = src.split("\n")
out, i = [], 0
loop = False
while i < len(lines):
    l = lines[i]
    if l.strip().startswith("for (int k = 0; k <"):
        loop = True
    m = re.match(r"(\s*)if \(\(\(k \+ (\d+)\) < (.*)\)\) \{$", l) if loop else None
    if m:
        ind = m.group(1)
        out.append(f"{ind}{{ const bool cake_pg = (k + {m.group(2)}) < {m.group(3)};")
        i += 1
        # copy the block until its closing brace at the same indentation, rewriting the copies
        while not (lines[i].startswith(ind + "}") and len(lines[i]) - len(lines[i].lstrip()) == len(ind)):
            s = lines[i]
            if "if (cake_plane && cake_r0 >= 0" in s:
                i += 1; continue
            if s.strip() == "} else {":
                eind = len(s) - len(s.lstrip())
                i += 1
                while not (lines[i].strip() == "}" and len(lines[i]) - len(lines[i].lstrip()) == eind):
                    i += 1
                i += 1; continue
            s = re.sub(r"cake_cp_async<16>\((.*), 16\);", r"cake_cp_async_p<16>(\1, cake_pg);", s)
            out.append(s); i += 1
        out.append(lines[i]); i += 1
        continue
    out.append(l); i += 1
open(sys.argv[2], "w").write("\n".join(out))
