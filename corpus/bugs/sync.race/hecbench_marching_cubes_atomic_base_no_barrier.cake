# BUG (sync.race): ORNL/HeCBench issue #254 ("Shared memory race conditions
# in marchingCubes-cuda at (generatingTriangles kernel)", 2026-06-15; real
# per the CUDA memory model, racecheck sees it once the compiler stops
# keeping the read in a register: the issue's `volatile` build).
# src/marchingCubes-cuda/main.cu, generatingTriangles (128 threads, four
# warps): after the block-wide scan of the per-warp vertex and triangle
# counts through __shared__ sumsVertices[32] / sumsTriangles[32],
#     __syncthreads();
#     if (warpid != 0) { sumVertices += sumsVertices[warpid - 1]; ... }
#     if (eds == 0) {
#       sumsVertices[31]  = atomicAdd(countedVerticesNum, sumVertices);
#       sumsTriangles[31] = atomicAdd(countedTrianglesNum, sumTriangles);
#     }
#     // (BUG) no __syncthreads() here
#     sumVertices = interOffsetVertices + sumsVertices[31];   // every thread
#     sumTriangles = sumTriangles + sumsTriangles[31] - numTriangles;
# One thread writes the block's global base into sumsVertices[31] and every
# thread of the other warps reads it with no barrier between: they may
# offset their vertices and triangles by whatever the slot held before.
# Another stored version of this kernel has a __syncthreads() right after
# the atomicAdd; the fix restores it.
# Modelled: four one-warp instances (warpid); lane 31 of warp w writes the
# warp's total to word w of the sums slot; __syncthreads() is a named
# barrier over the warps; warp 0 scans words 0..3 in place; thread eds == 0
# (warp 0) stores the global base (the atomicAdd's old value, loaded from
# the counter) into word 31; the vertex and triangle arrays are one slot
# (the pair sumsVertices/sumsTriangles share their indices, so one array
# stands for both); vertexIndices and the triangle loop follow behind the
# next barrier.
# Fix: hecbench_marching_cubes_atomic_base_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def hecbench_generating_triangles(lm, Counts: LM.gmem, Counter: LM.gmem, Tris: LM.gmem):
    pool = lm.smem(640)
    sums = pool.view(offset=0,   shape=(1, 32), dtype=lm.i32)           # sumsVertices[32]
    vidx = pool.view(offset=128, shape=(1, 32), dtype=lm.i32, stages=4) # vertexIndices, one row a warp
    tot  = lm.regs(shape=(1, 1),  dtype=lm.i32)
    pre  = lm.regs(shape=(1, 1),  dtype=lm.i32)
    base = lm.regs(shape=(1, 1),  dtype=lm.i32)
    scan = lm.regs(shape=(1, 4),  dtype=lm.i32)
    row  = lm.regs(shape=(1, 32), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        c = lm.block_idx(0)                                 # the block's cubes
        lm.copy(tot, Counts, coords=(c, w))                 # the warp's shuffle scan total
        lm.copy(sums[0][:, w:w + 1], tot)                   # lane 31: sumsVertices[warpid]
        lm.sync(block)
        if w == 0:
            lm.copy(scan, sums[0][:, 0:4])
            lm.copy(sums[0][:, 0:4], scan)                  # warp 0's scan of the warp sums
        lm.sync(block)
        if w != 0:
            lm.copy(pre, sums[0][:, w - 1:w])               # sumVertices += sumsVertices[warpid - 1]
            lm.binary(tot, tot, pre, op="add")
        if w == 0:
            lm.copy(base, Counter, coords=(c, 0))           # atomicAdd(countedVerticesNum, ...)
            lm.copy(sums[0][:, 31:32], base)                # expect-error: sync.race
        # BUG: no __syncthreads() before every thread reads the base
        lm.copy(base, sums[0][:, 31:32])                    # + sumsVertices[31]
        lm.binary(tot, tot, base, op="add")
        lm.fill(row, 0)
        lm.copy(vidx[w], row)                               # vertexIndices[...] = offset | edges
        lm.sync(block)
        lm.copy(row, vidx[(w + 1) % 4])                     # neighbouring cubes' vertex indices
        lm.copy(Tris, row, coords=(c, 32 * w))
        lm.copy(Tris, tot, coords=(c, 128 + w))
