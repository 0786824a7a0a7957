# Fixed form of rocprim_block_histogram_sort_storage_reuse_no_sync.cake
# (ROCm/rocPRIM PR #89, merged): block_histogram_sort::composite() calls
# ::rocprim::syncthreads() right after radix_sort().sort(input,
# storage_.sort) ("Fix race condition that appeared on Vega10 hardware,
# storage LDS is reused below"), so every wave's blocked read of the sorted
# keys is done before any thread initializes start[] / end[] in the union's
# bytes.  Written as the broken form: four wave64s as one-warp instances of
# an sm_80 role, syncthreads a named barrier, 4 items per thread, 256 bins.
# expect: pass
@cake.schedule(target="sm_80")
def rocprim_block_histogram_sort_storage_reuse_no_sync_fixed(lm, In: LM.gmem, Out: LM.gmem):
    pool  = lm.smem(4096)
    xchg  = pool.view(offset=0, shape=(16, 64), dtype=lm.i32)      # radix sort exchange storage
    flag  = pool.view(offset=0, shape=(1, 256), dtype=lm.i32)      # discontinuity storage (union)
    start = pool.view(offset=1024, shape=(1, 256), dtype=lm.i32)   # start[Bins] (union)
    end   = pool.view(offset=2048, shape=(1, 256), dtype=lm.i32)   # end[Bins] (union)
    k0    = lm.regs(shape=(1, 64), dtype=lm.i32)                   # the wave's 256 keys,
    k1    = lm.regs(shape=(1, 64), dtype=lm.i32)                   # one fragment per item
    k2    = lm.regs(shape=(1, 64), dtype=lm.i32)
    k3    = lm.regs(shape=(1, 64), dtype=lm.i32)
    prev  = lm.regs(shape=(1, 64), dtype=lm.i32)
    s     = lm.regs(shape=(1, 64), dtype=lm.i32)
    e     = lm.regs(shape=(1, 64), dtype=lm.i32)
    hist  = lm.regs(shape=(1, 64), dtype=lm.i32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        lm.copy(k0, In, coords=(4 * w, 0))
        lm.copy(k1, In, coords=(4 * w + 1, 0))
        lm.copy(k2, In, coords=(4 * w + 2, 0))
        lm.copy(k3, In, coords=(4 * w + 3, 0))
        # block_radix_sort: the final exchange_keys (ranked scatter, sync, blocked read)
        lm.copy(xchg[0][w:w + 1, :], k0)
        lm.copy(xchg[0][w + 4:w + 5, :], k1)
        lm.copy(xchg[0][w + 8:w + 9, :], k2)
        lm.copy(xchg[0][w + 12:w + 13, :], k3)
        lm.sync(block)
        lm.copy(k0, xchg[0][4 * w:4 * w + 1, :])
        lm.copy(k1, xchg[0][4 * w + 1:4 * w + 2, :])
        lm.copy(k2, xchg[0][4 * w + 2:4 * w + 3, :])
        lm.copy(k3, xchg[0][4 * w + 3:4 * w + 4, :])
        lm.sync(block)                                            # the syncthreads PR #89 adds
        # composite(): start[tid] = end[tid] = tile_size
        lm.fill(s, 1024.0)
        lm.copy(start[0][:, 64 * w:64 * w + 64], s)
        lm.copy(end[0][:, 64 * w:64 * w + 64], s)
        lm.sync(block)
        # block_discontinuity::flag_heads: each thread publishes its last key,
        # reads its predecessor's (thread 0 of a wave reads the wave before's)
        lm.copy(flag[0][:, 64 * w:64 * w + 64], k3)
        lm.sync(block)
        if w > 0:
            lm.copy(prev, flag[0][:, 64 * w - 1:64 * w + 63])
        else:
            lm.copy(prev, flag[0][:, 0:64])                   # (thread 0 has no predecessor)
        lm.sync(block)
        # (thread 0's start[input[0]] = 0, then a sync)
        lm.sync(block)
        # hist[tid] += end[tid] - start[tid]
        lm.copy(s, start[0][:, 64 * w:64 * w + 64])
        lm.copy(e, end[0][:, 64 * w:64 * w + 64])
        lm.binary(hist, e, s, op="sub")
        lm.copy(Out, hist, coords=(0, 64 * w))
