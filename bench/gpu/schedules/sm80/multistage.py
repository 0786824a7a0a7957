"""The sm_80 multistage GEMM that the generators under bench/gpu/schedules/sm80/ vary.

One schedule text: A [M, K] and B [N, K] tiles of BM x KB and BN x KB bf16 in S
swizzled slots, a 128 x ... accumulator in registers, one role of W warps; the
prologue copies k-blocks 0..S-2 (one cp.async group each, empty past the end),
the generator gives the comment and the mainloop (LOOP, at the role's indent + 1
level: `for k in ...` and what follows it), the epilogue waits for every group
and stores the tile. schedule() returns the text of the .cake file.
"""

TEXT = '''{COMMENT}# smem: {S} x ({BM} + {BN}) x {KB} x 2 B = {SMEM} B.
# expect: pass
@cake.schedule(target="sm_80")
def {NAME}(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
        M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem({SMEM})
    smem_a = pool.view(offset=0, shape=({BM}, {KB}), dtype=lm.bf16, stages={S}, swizzle="{SW}")
    smem_b = pool.view(offset={OFFB}, shape=({BN}, {KB}), dtype=lm.bf16, stages={S}, swizzle="{SW}")
    acc    = lm.regs(shape=({BM}, {BN}), dtype=lm.f32)
    out    = lm.regs(shape=({BM}, {BN}), dtype=lm.bf16)

    mainloop = lm.role(warps={WARPS})

    k_tiles = lm.cdiv(K, {KB})
    m_blk = lm.block_idx(0) * {BM}
    n_blk = lm.block_idx(1) * {BN}

    with mainloop:
        for s in lm.range(0, {S1}):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * {KB}), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * {KB}), stage=s)
            lm.cp_async_commit()
{LOOP}
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
'''


def fields(bm, bn, kb, s, w):
    """The numbers the texts of a BM x BN x KB, S-stage, W-warp variant use ({S1} = S - 1 ...)."""
    return dict(BM=bm, BN=bn, KB=kb, S=s, W=w, S1=s - 1, S2=s - 2, SMEM=s * (bm + bn) * kb * 2,
                OFFB=s * bm * kb * 2, SW="64B" if kb == 32 else "128B", WARPS=list(range(w)))


def schedule(name, comment, loop, bm, bn, kb, s, w, **extra):
    """The .cake text: `comment` and `loop` are format strings over fields() and `extra`."""
    f = dict(fields(bm, bn, kb, s, w), NAME=name, **extra)
    return TEXT.format(COMMENT=comment.format(**f), LOOP=loop.format(**f), **f)
