# BUG (sync.race), a mutant of
# gemm/sm90_cooperative_epilogue_load_warp_order.cake (CUTLASS's sm90
# epilogue load pipeline): a consumer warpgroup releases the C stage
# (load_pipeline.consumer_release) BEFORE it copies its rows of C out of
# shared memory; the epilogue load warp's TMA load of the subtile two
# ahead can land over the bytes being read.
# Fix: gemm/sm90_cooperative_epilogue_load_warp_order.cake.
# lower: unsupported (a register fragment slice at a loop variable, acc[:, 64 * j:64 * j + 64]: the lowering needs constant bounds)
# expect: sync.race
# may-also: data.stale-read proxy.missing-fence
@cake.schedule(target="sm_90a")
def cutlass_sm90_epilogue_c_release_before_read(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, D: LM.tma2d,
                                      M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem(196608)
    smem_a = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_c = pool.view(offset=131072, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_d = pool.view(offset=163840, shape=(64, 64),  dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    src    = lm.regs(shape=(64, 64), dtype=lm.bf16)
    srcf   = lm.regs(shape=(64, 64), dtype=lm.f32)
    out    = lm.regs(shape=(64, 64), dtype=lm.f32)

    mainload  = lm.role(warps=[0])
    epiload   = lm.role(warps=[1])
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)

    pipe    = lm.pipeline(stages=4)
    full    = lm.barrier(prod=[mainload], cons=[consumers], init_count=1, pipeline=pipe)
    empty   = lm.barrier(prod=[consumers], cons=[mainload], init_count=2, pipeline=pipe)
    cpipe   = lm.pipeline(stages=2)
    c_full  = lm.barrier(prod=[epiload], cons=[consumers], init_count=1, pipeline=cpipe)
    c_empty = lm.barrier(prod=[consumers], cons=[epiload], init_count=2, pipeline=cpipe)
    order   = lm.barrier(count=1, prod=[mainload], cons=[epiload], init_count=1)

    k_tiles   = lm.cdiv(K, 64)
    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    my_tiles  = lm.cdiv(max(num_tiles - lm.block_idx(0), 0), lm.grid_dim(0))

    with mainload:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=full)
            if t == 0:
                lm.arrive(order, stage=0)

    with epiload:
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            if t == 0:
                lm.wait(order, stage=0)
            for j in lm.range(0, 2):
                ct = 2 * t + j
                lm.wait(c_empty, iter=ct - 2)
                smem_c.tma_load(C, coords=(m_blk, n_blk + 64 * j), iter=ct, barrier=c_full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
            m_blk = (tile % tiles_m) * 128
            n_blk = (tile // tiles_m) * 128
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            for j in lm.range(0, 2):
                ct = 2 * t + j
                lm.wait(c_full, iter=ct)
                lm.fence_proxy()
                lm.arrive(c_empty, iter=ct)
                lm.copy(src, smem_c[ct][m0:m0 + 64, :])
                lm.copy(srcf, src)
                lm.binary(out, acc[:, 64 * j:64 * j + 64], srcf, op="add")
                d = 2 * lm.instance() + j
                lm.tma_store_wait(pending=1)
                lm.copy(smem_d[d], out)
                lm.fence_proxy()
                smem_d.tma_store(D, coords=(m_blk + m0, n_blk + 64 * j), stage=d)
                lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
