# FIXED form of pytorch_embedding_bwd_feature_indices_batch_reload.cake
# (pytorch/pytorch PR #187687, "fix: aten embed bwd thread sync before
# proceeding to next batch"): a __syncthreads() after the last chunk of a
# batch, so no warp loads the next batch into indices_batch while another
# warp still reads the current one.  Same model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def pytorch_embedding_bwd_feature_indices_batch_reload_fixed(lm, Indices: LM.gmem, Grad: LM.gmem,
                                                             GradWeight: LM.gmem, n_batches: LM.i32):
    lm.assume(n_batches >= 1)
    pool  = lm.smem(1024)
    smem  = pool.view(offset=0,   shape=(1, 32), dtype=lm.f32, stages=4)   # my_s rows
    ibat  = pool.view(offset=512, shape=(1, 32), dtype=lm.i32, stages=4)   # indices_batch
    idx   = lm.regs(shape=(1, 32), dtype=lm.i32)
    peer  = lm.regs(shape=(1, 32), dtype=lm.i32)
    g     = lm.regs(shape=(1, 32), dtype=lm.f32)
    other = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()                                # threadIdx.y
        for b in lm.range(0, n_batches):
            lm.copy(idx, Indices, coords=(b, 32 * w))
            lm.copy(ibat[w], idx)                        # indices_batch[tid] = ...
            for c in lm.range(0, 4):
                lm.sync(bar)
                lm.copy(peer, ibat[c])              # dst_row = indices_batch[src_row - batch_start]
                lm.copy(g, Grad, coords=(128 * b + 32 * c + w, 0))
                lm.copy(smem[w], g)                      # my_s[threadIdx.x] = grad[...]
                lm.sync(bar)
                lm.copy(peer, ibat[c])              # the match test
                if w == 0:                               # the group's leader
                    for p in lm.range(1, 4):
                        lm.copy(other, smem[p])
                        lm.binary(g, g, other, op="add")
                    lm.copy(GradWeight, g, coords=(128 * b + 32 * c, 0))
            lm.sync(bar)                                 # the fix
