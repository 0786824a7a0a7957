# Real bug: ROCm/rocPRIM PR #89 ("Fix race condition on shared memory in
# histogram with sort algorithm", merged): new tests failed intermittently on
# Vega10 in block_histogram with block_histogram_algorithm::using_sort
# (rocprim/include/rocprim/block/detail/block_histogram_sort.hpp).  Its
# shared storage is a union of block_radix_sort's storage and the
# histogram's {discontinuity flags; start[Bins]; end[Bins]}.  composite()
# sorts the tile - block_radix_sort with keys only, whose last step
# exchange_keys scatters the ranked keys into the storage, syncs, and has
# every thread read its ItemsPerThread keys back in blocked order - and then
# every thread initializes start[tid] and end[tid] in the same bytes: "there
# is no synchronization after the final write to shared memory in the
# exchange_keys function" (the PR), so a wave that is done reading writes
# start/end over keys a slower wave has not read yet.  The fix is a
# syncthreads() right after the sort ("storage LDS is reused below"); the
# fixed form is rocprim_block_histogram_sort_storage_reuse_no_sync_fixed.cake.
# Written in CAKE IR as an sm_80 schedule, for a 256-thread block (four
# wave64s, each a one-warp instance, group=1), 4 unsigned items per thread
# and 256 bins (a configuration chosen here: the PR names none; tile 1,024
# keys = 4,096 bytes of exchange storage; the
# flags take bytes [0, 1024), start [1024, 2048), end [2048, 3072)):
# syncthreads is a named barrier.  The exchange's ranked scatter is written
# as each wave storing its keys to rows w, w + 4, w + 8, w + 12 of the 16 x
# 64 exchange array (ranks send a wave's keys all over the tile) and the
# blocked read as rows 4w .. 4w + 3; the discontinuity operator's stores
# start[b] = b_index / end[a] = b_index and thread 0's start[input[0]] = 0
# (indices read from the data) are left out: barriers order each of them.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def rocprim_block_histogram_sort_storage_reuse_no_sync(lm, In: LM.gmem, Out: LM.gmem):
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
        lm.copy(k0, xchg[0][4 * w:4 * w + 1, :])          # expect-error: sync.race
        lm.copy(k1, xchg[0][4 * w + 1:4 * w + 2, :])
        lm.copy(k2, xchg[0][4 * w + 2:4 * w + 3, :])
        lm.copy(k3, xchg[0][4 * w + 3:4 * w + 4, :])      # expect-error: sync.race
        # composite(): start[tid] = end[tid] = tile_size
        lm.fill(s, 1024.0)
        lm.copy(start[0][:, 64 * w:64 * w + 64], s)               # expect-error: sync.race
        lm.copy(end[0][:, 64 * w:64 * w + 64], s)                 # expect-error: sync.race
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
