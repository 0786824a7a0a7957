# BUG (sync.race): the third __syncthreads of the chunk is dropped, so
# thread 127 writes its last elements for the next chunk while thread 0
# may still be reading the previous chunk's value from the same entry.
# Fixed form: corpus/conv/sm80_causal_conv1d_fwd_halo_exchange.cake.
# Mamba's causal depthwise conv1d forward (Dao-AILab/causal-conv1d,
# csrc/causal_conv1d_fwd.cu, causal_conv1d_fwd_kernel, kIsVecLoad path):
# one CTA per (batch, channel), 128 threads = 4 warps, each thread owns
# kNElts consecutive positions of a 1024-position chunk and needs the LAST
# elements of the thread before it (the halo of the width-4 filter).  The
# halo goes through smem_exchange[128] (one 16-byte vector per thread;
# here one (1, 128) f32 row per warp, lane l = columns 4l .. 4l + 3):
#  * before the chunk loop thread 0 writes the initial state into entry
#    127 (the "previous chunk's last thread");
#  * per chunk: __syncthreads; every thread but 127 writes its last
#    elements into its entry; __syncthreads; thread t reads entry t - 1
#    (thread 0 reads entry 127: the previous chunk's value);
#    __syncthreads; only now thread 127 writes its entry for the next chunk
#    ("Thread kNThreads - 1 don't write yet, so that thread 0 can read the
#    last elements of the previous chunk").
# At warp granularity: warp w writes its row (warp 3 lanes 0..30 only),
# reads lanes 0..30 of its own row and lane 31 of row (w + 3) % 4, and warp
# 3 writes lane 31 after the third barrier.  Entry 127 is also named by a
# one-slot view `last` indexed by chunk (last[c - 1] is the previous
# chunk's value, last[-1] the initial state): read through the 4-row view
# by its stage index (ex[3][:, 124:128]) the correct kernel is a false
# data.stale-read, docs/known-limits.md "data.stale-read: a carried value
# read one round late, and a per-round table read many times".  x and out move with direct
# vector loads/stores (BlockLoadVec / BlockStoreVec, no shared memory).
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def causal_conv1d_fwd(lm, X: LM.gmem, W: LM.gmem, OUT: LM.gmem, seqlen: LM.i32):
    lm.assume(seqlen > 0)
    pool = lm.smem(2048)
    ex   = pool.view(offset=0,    shape=(1, 128), dtype=lm.f32, stages=4)   # warp row: 32 x 16 B
    last = pool.view(offset=2032, shape=(1, 4),   dtype=lm.f32, stages=1)   # entry 127, named by chunk
    x    = lm.regs(shape=(1, 128), dtype=lm.f32)
    own  = lm.regs(shape=(1, 124), dtype=lm.f32)
    prev = lm.regs(shape=(1, 4),   dtype=lm.f32)
    z    = lm.regs(shape=(1, 4),   dtype=lm.f32)
    w4   = lm.regs(shape=(1, 4),   dtype=lm.f32)
    out  = lm.regs(shape=(1, 128), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    n_chunks = lm.cdiv(seqlen, 1024)
    b  = lm.block_idx(0)
    ch = lm.block_idx(1)

    with warps:
        w = lm.instance()
        if w == 0:
            lm.fill(z, 0.0)
            lm.copy(last[-1], z)                    # initial state -> entry 127 ("chunk -1")
        lm.copy(w4, W, coords=(ch, 0))
        for c in lm.range(0, n_chunks):
            lm.copy(x, X, coords=(b, ch, c * 1024 + 256 * w))
            lm.sync(block)
            if w < 3:
                lm.copy(ex[w], x)
            else:
                lm.copy(ex[3][:, 0:124], x[:, 0:124])
            lm.sync(block)
            lm.copy(own, ex[w][:, 0:124])
            if w == 0:
                lm.copy(prev, last[c - 1])          # expect-error: sync.race
            else:
                lm.copy(prev, ex[w - 1][:, 124:128])
            if w == 3:
                lm.copy(last[c], x[:, 124:128])     # expect-error: sync.race
            lm.binary(out, x, prev, op="mul")
            lm.binary(out, out, w4[:, 0:1], op="add")
            lm.copy(OUT, out, coords=(b, ch, c * 1024 + 256 * w))
