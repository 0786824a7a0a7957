# Compare two folders of lowered .cu (bench/gpu/lower_all.sh with the old and the new cake), run from the
# repository root: identical, differing only by the cake_ldg_or0 prelude helper, or changed in the body; a
# body change must be exactly the old guarded reads `(in) ? cake_f32(x[i]) : float(0)` turned into
# cake_ldg_or0 calls (docs/benchmarks.md "Branch-free guarded element reads"). Usage: python3 lowered_diff.py OLD NEW
import os, sys, difflib
b, a = sys.argv[1], sys.argv[2]
pre = open('lowering/prelude.cpp').read()
i = pre.index('// One element of global memory if `in`'); j = pre.index('template <typename T>\n__device__ __forceinline__ void cake_stg_pair')
helper = pre[i:j]
same = prelude_only = 0; body = []; errs = []; missing = 0
for f in sorted(os.listdir(b)):
    if not os.path.exists(os.path.join(a, f)): missing += 1; continue
    x = open(os.path.join(b, f)).read(); y = open(os.path.join(a, f)).read()
    if f.endswith('.err'):
        if x != y: errs.append(f)
        continue
    if x == y: same += 1
    elif x == y.replace(helper, '', 1): prelude_only += 1
    else: body.append(f)
print(f"compared {same + prelude_only + len(body)} lowered schedules: identical {same}, only the prelude helper added {prelude_only}, body changed {len(body)}; error texts differing {len(errs)}; not yet lowered on the new side {missing}")
for f in body: print("  body changed:", f)
for f in errs: print("  error differs:", f)
import re
pat = re.compile(r'\(\((cake_s\d+_plane[^?]*?)\) \? (cake_f32|cake_i32)\((\w+)\[(.*?)\]\) : (?:float|int)\(0\)\)')
anchor = 'template <typename T>\n__device__ __forceinline__ void cake_stg_pair'
ok = 0; bad = []
for f in body:
    x = open(os.path.join(b, f)).read().replace(anchor, helper + anchor, 1)
    x = pat.sub(lambda m: f'{m.group(2)}(cake_ldg_or0({m.group(3)} + ({m.group(4)}), {m.group(1)}))', x)
    if x == open(os.path.join(a, f)).read(): ok += 1
    else: bad.append(f)
print(f"body changed only at guarded global reads (old `in ? x[i] : 0` -> cake_ldg_or0): {ok} of {len(body)}; other: {bad}")
