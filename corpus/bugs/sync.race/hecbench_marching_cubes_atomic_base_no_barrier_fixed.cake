# FIXED form of hecbench_marching_cubes_atomic_base_no_barrier.cake
# (ORNL/HeCBench issue #254): a __syncthreads() between thread eds == 0's
# store of the block's global base into sumsVertices[31] (and
# sumsTriangles[31]) and every thread's read of it, as another stored
# version of generatingTriangles has.
# expect: pass
@cake.schedule(target="sm_80")
def hecbench_generating_triangles_fixed(lm, Counts: LM.gmem, Counter: LM.gmem, Tris: LM.gmem):
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
            lm.copy(sums[0][:, 31:32], base)
        lm.sync(block)                                      # the fix
        lm.copy(base, sums[0][:, 31:32])                    # + sumsVertices[31]
        lm.binary(tot, tot, base, op="add")
        lm.fill(row, 0)
        lm.copy(vidx[w], row)                               # vertexIndices[...] = offset | edges
        lm.sync(block)
        lm.copy(row, vidx[(w + 1) % 4])                     # neighbouring cubes' vertex indices
        lm.copy(Tris, row, coords=(c, 32 * w))
        lm.copy(Tris, tot, coords=(c, 128 + w))
