# BUG (sync.deadlock): proteneer/timemachine PR #1218 ("Fix Water Sampling
# Bug", 2023-12-12).  k_compute_nonbonded_target_atom_energies (the
# per-target-atom energies of NonbondedMolEnergyPotential, one block row
# blockIdx.y per target atom, THREADS_PER_BLOCK threads along the atoms j)
# walked the atoms with a per-thread bound and block-wide barriers inside:
#     int atom_j_idx = blockIdx.x * blockDim.x + threadIdx.x;
#     // Zero out the energy buffer
#     block_energy_buffer[threadIdx.x] = 0;
#     while (atom_j_idx < N) {
#         ... block_energy_buffer[threadIdx.x] = energy of (i, j) ...
#         __syncthreads();
#         block_energy_reduce<THREADS_PER_BLOCK>(block_energy_buffer, threadIdx.x);
#         if (threadIdx.x == 0) output_energies[row_idx * gridDim.x + blockIdx.x] += block_energy_buffer[0];
#         __syncthreads();
#         atom_j_idx += gridDim.x * blockDim.x;
#     }
# "I had somehow convinced myself that __syncthreads() handled exited
# threads. It DOES NOT ... This issue only showed up for larger system
# sizes."  On the last chunk of a row the threads past N leave the loop
# while the others still wait in its __syncthreads().  The PR's diff as
# stored shows the loop head (the buffer zeroed once, before
# `while (atom_j_idx < N)`); the loop body is the one of the later text
# (timemachine/cpp/src/kernels/k_nonbonded.cuh), block_energy_reduce
# included: for 128 threads one `tid < 64` halving step and its
# __syncthreads(), then warp 0's warp-synchronous reduction.
# Written in CAKE IR: THREADS_PER_BLOCK = 128 = four one-warp instances,
# __syncthreads() a named barrier over them; a warp runs a chunk when its
# first thread does (lanes leaving inside a warp that goes on are below the
# IR's granularity); the energies as one fragment per warp read from the
# coordinates (the pair energy abstracted); block_energy_buffer (__int128)
# as a 1x128 i32 view; output_energies (global, zeroed by the host) read,
# added to and written by warp 0.  One target atom per block row
# (row_idx = blockIdx.y), as the later launch dimGrid(BLOCK_SIZE,
# num_target_atoms) gives; the kernel's `row_idx += gridDim.y` loop around
# the chunk loop is left out (with it, a warp that leaves a row early runs
# into the next row's barriers; the fixed form is then only *checked*: a
# symbolic loop inside another loop is not proved).
# Fix: timemachine_target_atom_energies_per_thread_chunk_bound_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def timemachine_target_atom_energies(lm, Coords: LM.gmem, Out: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    lm.assume(N <= 4096)
    pool = lm.smem(512)
    buf  = pool.view(offset=0, shape=(1, 128), dtype=lm.i32)    # block_energy_buffer[THREADS_PER_BLOCK]
    e    = lm.regs(shape=(1, 32), dtype=lm.i32)                   # this warp's pair energies
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
        for c in lm.range(0, lm.cdiv(N - j0, S)):           # BUG: while (atom_j_idx < N), per thread
            lm.copy(e, Coords, coords=(row, j0 + c * S))
            lm.copy(buf[0][0:1, 32 * w:32 * w + 32], e)     # block_energy_buffer[threadIdx.x] = u
            lm.sync(block)                                                   # expect-error: sync.deadlock
            if w < 2:                                       # tid < 64: += shared_data[tid + 64]
                lm.copy(e, buf[0][0:1, 32 * w:32 * w + 32])
                lm.copy(hi, buf[0][0:1, 64 + 32 * w:96 + 32 * w])
                lm.binary(e, e, hi, op="add")
                lm.copy(buf[0][0:1, 32 * w:32 * w + 32], e)
            lm.sync(block)                                                   # expect-error: sync.deadlock
            if w == 0:                                      # energy_warp_reduce, then thread 0
                lm.copy(half, buf[0][0:1, 0:64])
                lm.reduce(tot, half, op="sum", axis=1)
                lm.copy(buf[0][0:1, 0:1], tot)
                lm.copy(acc, Out, coords=(row, bx))
                lm.binary(acc, acc, tot, op="add")
                lm.copy(Out, acc, coords=(row, bx))         # output_energies[row_idx * gridDim.x + blockIdx.x] +=
            lm.sync(block)                                                   # expect-error: sync.deadlock
