#!/usr/bin/env python3
"""Writes the k-step-sliced sm_80 multistage GEMMs (issue 13, helper sm80).

CUTLASS's sm80 MmaMultistage waits for the next k-block and syncs *before the
last k-step* of a k-block, so the tensor pipe still has that k-block's earlier
MMAs queued while the warps sit in cp.async.wait + bar.sync, and the refill
copies issue under them. In cake this is one lm.mma over the first k-steps of
the slot (a column slice `smem_a[k][:, 0:J]`), the wait (which syncs the
instance), the refill of the slot read one k-block ago, then the lm.mma over
the last k-step(s). Usage: python3 gen.py (writes the .cake files beside it).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from multistage import schedule  # noqa: E402

COMMENT = '''# sm_80 multistage GEMM with the wait + sync before the last k-step(s) of each
# k-block (issue 13, helper sm80; written by gen.py, do not edit by hand).
# Tile {BM}x{BN}x{KB}, {S} stages, {W} warps in one instance; each k-block is
# two lm.mma over column slices (k-step ranges) of the slot: [0:{J}] then [{J}:{KB}].
#  * prologue: k-blocks 0..{S2}, one cp.async group each (empty past the end).
#  * before the loop: cp_async_wait(pending={S2m1}) retires k-block 0 (+ sync).
#  * iteration k: MMAs over k-steps [0:{J}] of slot k; cp_async_wait(pending={P})
#    retires k-block k + 1 (groups committed: {S1} + k) and syncs the instance,
#    which orders every warp's reads of slot (k - 1) % {S} (k-block k - 1, read in
#    the previous iteration) before its refill with k-block k + {S1}; commit; then
#    the MMAs over k-steps [{J}:{KB}] of slot k, which no copy in flight touches.
'''

# the mainloop (after the prologue of multistage.py)
LOOP = '''        lm.cp_async_wait(pending={S2m1})
        for k in lm.range(0, k_tiles):
            lm.mma(acc, smem_a[k][:, 0:{J}], smem_b[k][:, 0:{J}], init=(k == 0))
            lm.cp_async_wait(pending={P})
            kn = k + {S1}
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * {KB}), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * {KB}), iter=kn)
            lm.cp_async_commit()
            lm.mma(acc, smem_a[k][:, {J}:{KB}], smem_b[k][:, {J}:{KB}])
'''

VARIANTS = [  # BM, BN, KB, S, J, warps
    (128, 128, 32, 4, 16, 4),
    (128, 128, 32, 5, 16, 4),
    (128, 128, 64, 3, 48, 4),
    (128, 128, 64, 3, 32, 4),
    (128, 256, 32, 4, 16, 8),
    (128, 256, 64, 3, 48, 8),
]

for bm, bn, kb, s, j, w in VARIANTS:
    name = f"sm80ks_{bm}x{bn}_k{kb}_s{s}_j{j}"
    txt = schedule(name, COMMENT, LOOP.rstrip("\n"), bm, bn, kb, s, w, J=j, S2m1=s - 2, P=s - 3)
    with open(os.path.join(HERE, name + ".cake"), "w") as f:
        f.write(txt)
    print(name)
