# FIXED: timemachine_target_atom_energies_per_thread_chunk_bound.cake
# as proteneer/timemachine PR #1218 fixes it:
#     // All threads in the threadblock must loop to allow for __syncthreads() and the row accumulation.
#     while (atom_j_idx - threadIdx.x < N) {
#         // Zero out the energy buffer
#         block_energy_buffer[threadIdx.x] = 0;
#         if (atom_j_idx < N && ...) { ... block_energy_buffer[threadIdx.x] = energy ... }
# The bound is the block's first atom of the chunk, so every warp runs
# every chunk of every row and reaches each __syncthreads(); a thread past
# N only stores a zero.
# expect: pass
@cake.schedule(target="sm_80")
def timemachine_target_atom_energies_fixed(lm, Coords: LM.gmem, Out: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    lm.assume(N <= 4096)
    pool = lm.smem(512)
    buf  = pool.view(offset=0, shape=(1, 128), dtype=lm.i32)    # block_energy_buffer[THREADS_PER_BLOCK]
    e    = lm.regs(shape=(1, 32), dtype=lm.i32)                   # this warp's pair energies (0 past N)
    hi   = lm.regs(shape=(1, 32), dtype=lm.i32)
    half = lm.regs(shape=(1, 64), dtype=lm.i32)
    tot  = lm.regs(shape=(1, 1), dtype=lm.i32)
    acc  = lm.regs(shape=(1, 1), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w  = lm.instance()
        bx = lm.block_idx(0)
        S  = 128 * lm.grid_dim(0)                           # gridDim.x * blockDim.x
        j0 = 128 * bx + 32 * w                              # this warp's first atom_j_idx
        row = lm.block_idx(1)                               # row_idx (one target atom per block row)
        for c in lm.range(0, lm.cdiv(N - 128 * bx, S)):     # the fix: while (atom_j_idx - threadIdx.x < N)
            lm.copy(e, Coords, coords=(row, j0 + c * S))
            lm.copy(buf[0][0:1, 32 * w:32 * w + 32], e)     # block_energy_buffer[threadIdx.x] = u (or 0)
            lm.sync(block)
            if w < 2:                                       # tid < 64: += shared_data[tid + 64]
                lm.copy(e, buf[0][0:1, 32 * w:32 * w + 32])
                lm.copy(hi, buf[0][0:1, 64 + 32 * w:96 + 32 * w])
                lm.binary(e, e, hi, op="add")
                lm.copy(buf[0][0:1, 32 * w:32 * w + 32], e)
            lm.sync(block)
            if w == 0:                                      # energy_warp_reduce, then thread 0
                lm.copy(half, buf[0][0:1, 0:64])
                lm.reduce(tot, half, op="sum", axis=1)
                lm.copy(buf[0][0:1, 0:1], tot)
                lm.copy(acc, Out, coords=(row, bx))
                lm.binary(acc, acc, tot, op="add")
                lm.copy(Out, acc, coords=(row, bx))         # output_energies[row_idx * gridDim.x + blockIdx.x] +=
            lm.sync(block)
