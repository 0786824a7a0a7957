# FIXED form of tvm_threadsync_shared_dyn_merged_alias_no_sync.cake
# (apache/tvm PR #15478 / #15481): ThreadSync compares every shared.dyn
# access against one common variable, finds that the epilogue buffer C_sh
# reuses the bytes of A_sh, and inserts a __syncthreads() between the last
# reads of A_sh and the first writes of C_sh.  Same model as the broken
# file.
# lower: unsupported (a (2, 32) register fragment sliced into its two rows: the lowering spreads a fragment's rows over the instance's 32 threads)
# expect: pass
@cake.schedule(target="sm_80")
def tvm_threadsync_shared_dyn_merged_alias_no_sync_fixed(lm, A: LM.gmem, C: LM.gmem):
    dyn  = lm.smem(2048)                                                  # extern __shared__ buf_dyn_shmem[]
    a_sh = dyn.view(offset=0, shape=(4, 64), dtype=lm.f32, stages=1)     # A_sh, 1 KiB
    c_sh = dyn.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)     # C_sh, merged over A_sh
    part = lm.regs(shape=(1, 64), dtype=lm.f32)
    a    = lm.regs(shape=(4, 64), dtype=lm.f32)
    r    = lm.regs(shape=(1, 32), dtype=lm.f32)
    out  = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        lm.copy(part, A, coords=(w, 0))
        lm.copy(a_sh[0][w:w + 1, :], part)              # A_sh[w, :] = A[...]
        lm.sync(bar)
        lm.copy(a, a_sh[0])                             # every thread reads A_sh
        lm.binary(r, a[0:1, 0:32], a[1:2, 0:32], op="add")   # the K reduction (registers)
        lm.sync(bar)                                    # the sync the fixed pass inserts
        lm.copy(c_sh[w], r)                             # C_sh[w, :] = ...
        lm.sync(bar)
        if w == 0:
            for i in lm.range(0, 4):
                lm.copy(out, c_sh[i])
                lm.copy(C, out, coords=(i, 0))
