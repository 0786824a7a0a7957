# Mamba selective scan forward (state-spaces/mamba,
# csrc/selective_scan/selective_scan_fwd_kernel.cuh,
# selective_scan_fwd_kernel; kNThreads = 128 = 4 warps, kNItems = 16,
# kNRows = 1, variable B and C, real weights, not kDirectIO).  One CTA per
# (batch, channel); the sequence runs in chunks of kChunkSize = 2048.  Per
# chunk, at warp granularity:
#  * __syncthreads; u and delta come in through cub::BlockLoad with
#    BLOCK_LOAD_WARP_TRANSPOSE over one shared union (smem_load): each warp
#    stores its striped 512 elements into its own part and reads them back
#    blocked (warp-private: __syncwarp inside the warp), with the kernel's
#    __syncthreads between the two loads;
#  * __syncthreads, then for each state (dstate = 4 here; runtime in the
#    kernel): B and C through BlockLoadWeight into two temp storages of the
#    same union (smem_load_weight, smem_load_weight1), warp-private again;
#    lane 0 of every warp reads smem_running_prefix[state] (chunk > 0), then
#    cub::BlockScan<BLOCK_SCAN_WARP_SCANS>::InclusiveScan with the prefix
#    callback: the last lane of each warp stores warp_aggregates[w],
#    CTA_SYNC, every warp reads the aggregates, warp 0 runs the callback and
#    stores temp_storage.block_prefix, CTA_SYNC, every warp reads it.  The
#    scan storage is reused for the next state with no barrier of its own:
#    the next scan's aggregate stores come after this scan's second barrier,
#    its block_prefix store after the next scan's first one.  After the scan
#    thread 0 stores smem_running_prefix[state] ("There's a syncthreads in
#    the scan op, so we don't need to sync here"): the other warps read that
#    entry before the scan's first barrier, and the next chunk reads it
#    after later scans' barriers;
#  * __syncthreads; the output goes out through BlockStore
#    (BLOCK_STORE_WARP_TRANSPOSE) over the same union, warp-private.
# smem_running_prefix is named by chunk and state (rp[4 * c + st], written at
# chunk c, read at chunk c + 1: rp[4 * (c - 1) + st], a ring of two chunks).
# Bug twins: corpus/bugs/sync.race/mamba_selective_scan_block_prefix_one_barrier.cake
# (the scan's second barrier dropped: block_prefix read before warp 0 stores
# it), corpus/bugs/sync.race/mamba_selective_scan_aggregates_before_barrier.cake
# (the aggregates read before the first barrier).
# lower: unsupported (a column slice of a register fragment as a reduce operand: the scan's float2 element taken from the warp's items)
# expect: pass
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
                    lm.copy(bpre[0], prefix)
                lm.sync(block)                       # CTA_SYNC 2
                lm.copy(oth, bpre[0])
                lm.binary(outv[:, 0:2], outv[:, 0:2], oth, op="add")
                if w == 0:
                    lm.copy(rp[4 * c + st], prefix)  # thread 0: smem_running_prefix[state]
                    lm.copy(X, prefix, coords=(b, ch, c, st))
            lm.sync(block)
            lm.copy(io[w], outv)                     # BlockStore: blocked -> smem
            lm.copy(outv, io[w])                     #             smem -> striped
            lm.copy(OUT, outv, coords=(b, ch, c * 2048 + 512 * w))
