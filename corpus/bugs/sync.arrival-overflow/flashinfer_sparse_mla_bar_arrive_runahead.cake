# BUG (sync.arrival-overflow): the IO/math handshake of FlashInfer's SM120
# sparse-MLA prefill kernel, fixed by flashinfer-ai/flashinfer PR #4732
# (closes issue #3700).  CTA barrier 1 (count 384) is an asymmetric
# handshake: the 256 math threads bar.arrive (non-blocking) when they are
# done with a tile's gathered KV, the 128 IO threads bar.sync before they
# refill that buffer.  Math can arrive for tile t, run tile t + 1 (its KV
# was gathered into the other buffer) and arrive AGAIN before the IO warps
# have synced for tile t: the surplus arrival completes the generation
# without IO, and a later generation starves (captured on GB10: IO warps
# parked on BAR.SYNC 1, 384 after math had exited).
# Modelled: one math role of 8 warps, one IO role of 4 warps, KV gathered
# with ordinary loads and st.shared into a 2-slot buffer announced on an
# mbarrier (full); IO syncs for tile t - 1 after announcing tile t, so it
# never refills a slot math still reads.  Written on sm_90a (the checker has
# no sm_120 target; nothing here is specific to it).
# Fix: flashinfer_sparse_mla_bar_arrive_runahead_fixed.cake.
# expect: sync.arrival-overflow
@cake.schedule(target="sm_90a")
def sparse_mla_bar_arrive_runahead(lm, KV: LM.gmem, O: LM.gmem, tiles: LM.i32):
    lm.assume(tiles > 0)
    pool   = lm.smem(32768)
    kv_buf = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    kv_io  = lm.regs(shape=(64, 128), dtype=lm.bf16)
    kv_m   = lm.regs(shape=(64, 128), dtype=lm.f32)

    math = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])
    io   = lm.role(warps=[8, 9, 10, 11])
    full = lm.barrier(count=2, prod=[io], cons=[math], init_count=1)
    done = lm.named_barrier(roles=[math, io])

    with io:
        for t in lm.range(0, tiles):
            lm.copy(kv_io, KV, coords=(t * 64, 0))
            lm.copy(kv_buf[t], kv_io)
            lm.arrive(full, iter=t)
            if t >= 1:
                lm.sync(done)  # math is done with tile t - 1
        lm.sync(done)          # ... and with the last tile

    with math:
        for t in lm.range(0, tiles):
            lm.wait(full, iter=t)
            lm.copy(kv_m, kv_buf[t])
            lm.bar_arrive(done)  # expect-error: sync.arrival-overflow
            lm.unary(kv_m, kv_m, op="exp2")
            lm.copy(O, kv_m, coords=(t * 64, 0))
