# BROKEN twin of corpus/reduction/sm80_mamba_selective_scan_fwd.cake (Mamba's
# selective_scan_fwd_kernel, state-spaces/mamba
# csrc/selective_scan/selective_scan_fwd_kernel.cuh, through
# cub::BlockScan<BLOCK_SCAN_WARP_SCANS>::InclusiveScan with a prefix
# callback): a hand-rolled scan that keeps only the first barrier.  Warp 0
# runs the callback and stores block_prefix after the aggregates' barrier;
# the other warps read block_prefix with nothing ordering them after that
# store (CUB's second CTA_SYNC is what does): they may read the previous
# state's (or chunk's) prefix, and warp 0's store races with their reads.
# Fixed form: corpus/reduction/sm80_mamba_selective_scan_fwd.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def selective_scan_fwd(lm, U: LM.gmem, DT: LM.gmem, BV: LM.gmem, CV: LM.gmem, OUT: LM.gmem, X: LM.gmem,
                       seqlen: LM.i32):
    lm.assume(seqlen >= 1)
    pool   = lm.smem(16512)
    io     = pool.view(offset=0,    shape=(1, 512), dtype=lm.f32, stages=4)   # smem_load / smem_store: warp w's part
    io_b   = pool.view(offset=0,     shape=(1, 512), dtype=lm.f32, stages=4)  # smem_load_weight (B)
    io_c   = pool.view(offset=8192,  shape=(1, 512), dtype=lm.f32, stages=4)  # smem_load_weight1 (C)
    agg    = pool.view(offset=16384, shape=(1, 2),   dtype=lm.f32, stages=4)  # warp_aggregates[w] (float2)
    bpre   = pool.view(offset=16416, shape=(1, 2),   dtype=lm.f32, stages=1)  # temp_storage.block_prefix
    rp     = pool.view(offset=16448, shape=(1, 2),   dtype=lm.f32, stages=8)  # smem_running_prefix, 2 chunks x 4 states
    u      = lm.regs(shape=(1, 512), dtype=lm.f32)
    dt     = lm.regs(shape=(1, 512), dtype=lm.f32)
    bw     = lm.regs(shape=(1, 512), dtype=lm.f32)
    cw     = lm.regs(shape=(1, 512), dtype=lm.f32)
    outv   = lm.regs(shape=(1, 512), dtype=lm.f32)
    data   = lm.regs(shape=(1, 2),   dtype=lm.f32)
    oth    = lm.regs(shape=(1, 2),   dtype=lm.f32)
    prefix = lm.regs(shape=(1, 2),   dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    n_chunks = lm.cdiv(seqlen, 2048)
    b  = lm.block_idx(0)
    ch = lm.block_idx(1)

    with warps:
        w = lm.instance()
        for c in lm.range(0, n_chunks):
            lm.sync(block)
            lm.copy(u, U, coords=(b, ch, c * 2048 + 512 * w))
            lm.copy(io[w], u)                        # BlockLoad: striped -> smem
            lm.copy(u, io[w])                        #            smem -> blocked
            lm.sync(block)
            lm.copy(dt, DT, coords=(b, ch, c * 2048 + 512 * w))
            lm.copy(io[w], dt)
            lm.copy(dt, io[w])
            lm.binary(dt, dt, u, op="mul")           # delta * u
            lm.fill(outv, 0.0)
            lm.sync(block)
            for st in lm.range(0, 4):
                lm.copy(bw, BV, coords=(b, st, c * 2048 + 512 * w))
                lm.copy(io_b[w], bw)
                lm.copy(bw, io_b[w])
                lm.copy(cw, CV, coords=(b, st, c * 2048 + 512 * w))
                lm.copy(io_c[w], cw)
                lm.copy(cw, io_c[w])
                if c > 0:
                    lm.copy(prefix, rp[4 * (c - 1) + st])   # lane 0 of every warp
                else:
                    lm.fill(prefix, 0.0)
                lm.reduce(data, dt[:, 0:2], op="sum", axis=0)
                lm.copy(agg[w], data)                # last lane: warp aggregate
                lm.sync(block)                       # CTA_SYNC 1
                for i in lm.range(0, 4):
                    lm.copy(oth, agg[i])
                    lm.binary(data, data, oth, op="add")
                if w == 0:
                    lm.binary(prefix, prefix, data, op="add")   # block_prefix_callback_op
                    lm.copy(bpre[0], prefix)         # expect-error: sync.race
                lm.copy(oth, bpre[0])                # expect-error: sync.race
                lm.binary(outv[:, 0:2], outv[:, 0:2], oth, op="add")
                if w == 0:
                    lm.copy(rp[4 * c + st], prefix)  # thread 0: smem_running_prefix[state]
                    lm.copy(X, prefix, coords=(b, ch, c, st))
            lm.sync(block)
            lm.copy(io[w], outv)                     # BlockStore: blocked -> smem
            lm.copy(outv, io[w])                     #             smem -> striped
            lm.copy(OUT, outv, coords=(b, ch, c * 2048 + 512 * w))
