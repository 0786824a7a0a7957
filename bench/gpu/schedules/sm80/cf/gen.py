#!/usr/bin/env python3
"""Writes sm_80 multistage GEMMs with the refill elsewhere in the k-block (issue 13, helper sm80e).

CUTLASS's sm80 multistage mainloop issues the refill copies of a k-block while
that k-block's MMAs run. The schedules of bench/gpu/schedules/sm80 issue the
refill after the k-block's lm.mma, so each warp's copy instructions (and the
global latency they start) come after its MMAs. sm80cf_*: the refill of the slot
read one k-block earlier comes right after cp_async_wait (which syncs the
instance, so every warp's reads of that slot are done), before the lm.mma of
the current slot: the copies are in flight for S - 1 whole k-blocks.
sm80mid_*: the refill goes between k-step slices of the k-block's MMAs instead
(CUTLASS spreads its copies over the k-steps). Measured in docs/benchmarks.md
("sm_80: predicated copies, hoisted addresses, refill placement").
Usage: python3 gen.py (writes the .cake files beside it).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from multistage import schedule  # noqa: E402

COMMENT = '''# sm_80 multistage GEMM, refill {WHERE} (issue 13, helper sm80e; written
# by gen.py, do not edit by hand). Tile {BM}x{BN}x{KB}, {S} stages, {W} warps in one
# instance.
#  * prologue: k-blocks 0..{S2}, one cp.async group each (empty past the end).
#  * iteration k: cp_async_wait(pending={S2}) retires k-block k (groups committed:
#    {S1} + k) and syncs the instance, which also orders every warp's reads of slot
#    (k - 1) % {S} (k-block k - 1) before its refill with k-block k + {S1}. {DETAIL}
'''

LOOP_HEAD = '''        for k in lm.range(0, k_tiles):
            lm.cp_async_wait(pending={S2})
            kn = k + {S1}
'''
COPY_A = '''            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * {KB}), iter=kn)
'''
COPY_B = '''            if kn < k_tiles:
                smem_b.cp_async(B, coords=(n_blk, kn * {KB}), iter=kn)
'''
COPY_AB = COPY_A + '''                smem_b.cp_async(B, coords=(n_blk, kn * {KB}), iter=kn)
'''
COMMIT = '''            lm.cp_async_commit()
'''


def mma(lo, hi, first):
    cols = "" if lo is None else f"[:, {lo}:{hi}]"
    return f"            lm.mma(acc, smem_a[k]{cols}, smem_b[k]{cols}{', init=(k == 0)' if first else ''})\n"


def loops(kb):
    """The mainloop of each refill placement: (name prefix, WHERE, DETAIL, loop)."""
    h = kb // 2
    return {
        "cf": ("before the MMAs", "Then the\n#    copies, commit, and the MMAs of slot k, which no copy in flight touches.",
               LOOP_HEAD + COPY_AB + COMMIT + mma(None, None, True)),
        "mid": ("between k-step slices", f"The MMAs of\n#    slot k run as two k-step slices, [0:{h}] and [{h}:{kb}], with the refill between them.",
                LOOP_HEAD + mma(0, h, True) + COPY_AB + COMMIT + mma(h, kb, False)),
        "mid_a_b": ("between k-step slices", "The MMAs of\n#    slot k run as k-step slices [0:16], [16:32], [32:KB]: copy A after the first, B after the second.",
                    LOOP_HEAD + mma(0, 16, True) + COPY_A + mma(16, 32, False) + COPY_B + COMMIT + mma(32, kb, False)),
    }


VARIANTS = [  # (placement, BM, BN, KB, S, warps)
    ("cf", 128, 128, 64, 3, 4),
    ("cf", 128, 128, 32, 4, 4),
    ("cf", 128, 256, 64, 3, 8),
    ("cf", 256, 128, 64, 3, 8),
    ("cf", 128, 256, 32, 4, 8),
    ("cf", 256, 128, 32, 4, 8),
    ("mid", 128, 128, 64, 3, 4),
    ("mid_a_b", 128, 128, 64, 3, 4),
    ("mid", 128, 256, 64, 3, 8),
    ("mid", 256, 128, 64, 3, 8),
]


def main():
    for kind, bm, bn, kb, s, w in VARIANTS:
        where, detail, loop = loops(kb)[kind]
        prefix, suffix = ("sm80cf", "") if kind == "cf" else ("sm80mid", "_a_b" if kind == "mid_a_b" else "")
        name = f"{prefix}_{bm}x{bn}_k{kb}_s{s}{suffix}"
        text = schedule(name, COMMENT, loop.rstrip("\n"), bm, bn, kb, s, w, WHERE=where, DETAIL=detail)
        with open(os.path.join(HERE, name + ".cake"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
