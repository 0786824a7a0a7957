# Real bug: iree-org/iree PR #16551 ("[Codegen] Add missing barrier to
# GPUVectorAlloc", merged): "We need another barrier before the write to
# share memory to wait for reads of the same memory coming from the previous
# iteration of a loop."  GPUVectorAlloc (compiler/src/iree/compiler/Codegen/
# Common/GPU/GPUVectorAlloc.cpp) promotes the operands of a vector.contract in
# the vector-distribution matmul pipeline to shared memory: each operand read
# from global memory in a layout derived from the workgroup's threads is
# written to a workgroup allocation, synchronized (gpu.barrier, later an
# iree_gpu.value_barrier) and read back in the MFMA layout.  Inside the K
# loop the only barrier sat between the write and the read, so a wave that
# finishes its MFMAs of iteration k writes iteration k + 1's operand rows
# while a slower wave still reads iteration k's rows from the same bytes.
# The fix puts a gpu.barrier at the start of the block that holds the write
# ("Synchronize before the write to shared memory to avoid stepping over
# reads in the previous iteration of a loop"); the fixed form is
# iree_vector_alloc_operand_promotion_loop_no_leading_barrier_fixed.cake.
# Written in CAKE IR as an sm_80 schedule: each wave64 of the 256-thread
# workgroup is a one-warp instance (group=1), gpu.barrier a named barrier;
# the thread-derived write layout gives each wave a row stripe of both
# operand tiles (A 32x32, B 64x32), the MFMA layout (waves 1x4 along N) has
# every wave read all of A and its own 16 rows of B; the K trip count `n_k`
# is a parameter.
# expect: sync.race
@cake.schedule(target="sm_80")
def iree_vector_alloc_operand_promotion_loop_no_leading_barrier(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, n_k: LM.i32):
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
            lm.copy(ra, A, coords=(8 * w, 32 * k))        # transfer_read, derived thread layout
            lm.copy(rb, B, coords=(16 * w, 32 * k))
            lm.copy(sa[0][8 * w:8 * w + 8, :], ra)        # promotion write  # expect-error: sync.race
            lm.copy(sb[0][16 * w:16 * w + 16, :], rb)
            lm.sync(block)                                # barrier after the write
            lm.mma(acc, sa[0], sb[0][16 * w:16 * w + 16, :], init=False)  # MFMA-layout reads  # expect-error: sync.race
        lm.copy(C, acc, coords=(0, 16 * w))
