# BUG (sync.race): tile-ai/tilelang PR #2293 ("[TIR][Transform] Fix
# shared.dyn alias sync analysis", 2026-05-28).  TileLang's shared-memory
# reuse (MergeSharedMemoryAllocations on shared.dyn) places a buffer whose
# last use is over by a later buffer of ANOTHER element type at the same
# base address - a float32 scratch and an fp8 (e4m3) output tile, the
# PR's example.  ThreadSync's same-index fast path treated `f32[i]` and
# `fp8[i]` as the same thread's element and proved them disjoint, but
# fp8 element i is byte i while float32 element i is bytes 4i..4i+3: the
# fp8 store of thread t lands in the float32 element of thread t / 4, a
# thread of another warp for every t >= 32, and no __syncthreads() was
# inserted between the float32 reads and the fp8 writes (a cross-thread
# WAR; the RAW of the other order likewise).  The fix requires equal
# element sizes for the fast path and falls through to the byte-range
# overlap test, which inserts the barrier; the PR's regression test
# checks for a sync before the aliased fp8 write after the float32 read.
# Modelled: the pattern of that test in a 128-thread quantize epilogue
# (four one-warp instances, __syncthreads() a named barrier over them):
# each thread stages one float32 value, the block syncs, each thread reads
# its value back (its scale / amax step), converts it and stores one fp8
# element of the tile merged over the scratch, the block syncs, and the
# tile is written out.  The elementwise compute between the read and the
# store is a conversion copy here.
# Fix: tilelang_shared_dyn_f32_read_fp8_alias_write_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def tilelang_shared_dyn_f32_read_fp8_alias_write(lm, X: LM.gmem, Y: LM.gmem):
    pool    = lm.smem(1024)
    scratch = pool.view(offset=0, shape=(1, 128), dtype=lm.f32)       # float32 buffer, dead after the read
    out8    = pool.view(offset=0, shape=(1, 128), dtype=lm.e4m3)      # fp8 buffer reusing its bytes
    v       = lm.regs(shape=(1, 32), dtype=lm.f32)
    q       = lm.regs(shape=(1, 32), dtype=lm.e4m3)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        lm.copy(v, X, coords=(lm.block_idx(0), 32 * w))
        lm.copy(scratch[0][:, 32 * w:32 * w + 32], v)
        lm.sync(block)
        lm.copy(v, scratch[0][:, 32 * w:32 * w + 32])                 # expect-error: sync.race
        lm.copy(q, v)
        # BUG: no __syncthreads() here (the fast path saw f32[i] vs fp8[i])
        lm.copy(out8[0][:, 32 * w:32 * w + 32], q)                    # expect-error: sync.race
        lm.sync(block)
        lm.copy(q, out8[0][:, 32 * w:32 * w + 32])
        lm.copy(Y, q, coords=(lm.block_idx(0), 32 * w))
