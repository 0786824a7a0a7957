# BUG (sync.race): apache/tvm PR #15478, cherry-picked as PR #15481
# ("[BugFix][TIR] ThreadSync with shared.dyn awareness", 2023-08-04).
# TIR's ThreadSync pass inserts __syncthreads() where two accesses to one
# shared buffer conflict across threads, comparing buffers by their data
# variable.  Every `shared.dyn` allocation ends up in the one dynamic
# shared-memory array (MergeSharedMemoryAllocations packs them, reusing the
# bytes of buffers whose live ranges ended: a GEMM's operand tiles and the
# epilogue's write-back tile, PR #9341), but when ThreadSync ran each
# shared.dyn buffer still had its own data variable, so a write to the
# epilogue buffer C_sh was not compared with the reads of the operand
# buffer A_sh whose bytes it reuses: no barrier between the last reads of
# A_sh and the first writes of C_sh.  The fix redirects every shared.dyn
# access to one common variable, so the conflict is found and the sync is
# inserted.
# Modelled (the kind of kernel the pass miscompiled, not one from the PR):
# 128 threads = four one-warp instances; each stores its quarter of the
# operand tile A_sh, __syncthreads(), reads the whole tile (the reduction
# over K, in registers), then stores its result row into C_sh, which the
# merge placed at the same offset; __syncthreads() and warp 0 writes C_sh
# out.  Both buffers are views of one pool at offset 0 (the merged
# allocation); __syncthreads() a named barrier over the block.
# Fix: tvm_threadsync_shared_dyn_merged_alias_no_sync_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def tvm_threadsync_shared_dyn_merged_alias_no_sync(lm, A: LM.gmem, C: LM.gmem):
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
        lm.copy(a, a_sh[0])                             # every thread reads A_sh   # expect-error: sync.race
        lm.binary(r, a[0:1, 0:32], a[1:2, 0:32], op="add")   # the K reduction (registers)
        # BUG: ThreadSync saw C_sh and A_sh as different buffers: no sync here
        lm.copy(c_sh[w], r)                             # C_sh[w, :] = ...          # expect-error: sync.race
        lm.sync(bar)
        if w == 0:
            for i in lm.range(0, 4):
                lm.copy(out, c_sh[i])
                lm.copy(C, out, coords=(i, 0))
