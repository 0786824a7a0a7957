# Fixed form of iree_vector_alloc_operand_promotion_loop_no_leading_barrier
# .cake (iree-org/iree PR #16551, merged): GPUVectorAlloc also places a
# gpu.barrier at the start of the block that holds the promotion write, so
# every wave's MFMA reads of iteration k are done before any wave writes
# iteration k + 1's operand rows.  Written as the broken form: four wave64s as
# one-warp instances of an sm_80 role, gpu.barrier a named barrier, the K
# trip count a parameter.
# expect: pass
@cake.schedule(target="sm_80")
def iree_vector_alloc_operand_promotion_loop_no_leading_barrier_fixed(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, n_k: LM.i32):
    pool = lm.smem(6144)
    sa   = pool.view(offset=0, shape=(32, 32), dtype=lm.f16)
    sb   = pool.view(offset=2048, shape=(64, 32), dtype=lm.f16)
    ra   = lm.regs(shape=(8, 32), dtype=lm.f16)
    rb   = lm.regs(shape=(16, 32), dtype=lm.f16)
    acc  = lm.regs(shape=(32, 16), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        lm.fill(acc, 0.0)
        for k in lm.range(0, n_k):
            lm.sync(block)                                # the block-start barrier #16551 adds
            lm.copy(ra, A, coords=(8 * w, 32 * k))        # transfer_read, derived thread layout
            lm.copy(rb, B, coords=(16 * w, 32 * k))
            lm.copy(sa[0][8 * w:8 * w + 8, :], ra)        # promotion write
            lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
            lm.sync(block)                                # barrier after the write
            lm.mma(acc, sa[0], sb[0][16 * w:16 * w + 16, :], init=False)  # MFMA-layout reads
        lm.copy(C, acc, coords=(0, 16 * w))
