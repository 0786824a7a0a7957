# FIXED: flashinfer_sparse_mla_bar_arrive_runahead.cake as
# flashinfer-ai/flashinfer PR #4732 fixes it: the handshake alternates
# between two barrier ids by tile parity (bar_arrive_alt / bar_sync_alt).
# A run-ahead arrival for tile t + 1 lands on the other id; math cannot
# start tile t + 2 before IO has announced it, which IO does only after
# its sync for tile t, so each id has at most one outstanding arrival.
# expect: pass
@cake.schedule(target="sm_90a")
def sparse_mla_bar_arrive_alternating(lm, KV: LM.gmem, O: LM.gmem, tiles: LM.i32):
    lm.assume(tiles > 0)
    pool   = lm.smem(32768)
    kv_buf = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    kv_io  = lm.regs(shape=(64, 128), dtype=lm.bf16)
    kv_m   = lm.regs(shape=(64, 128), dtype=lm.f32)

    math  = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])
    io    = lm.role(warps=[8, 9, 10, 11])
    full  = lm.barrier(count=2, prod=[io], cons=[math], init_count=1)
    done0 = lm.named_barrier(roles=[math, io])
    done1 = lm.named_barrier(roles=[math, io])

    with io:
        for t in lm.range(0, tiles):
            lm.copy(kv_io, KV, coords=(t * 64, 0))
            lm.copy(kv_buf[t], kv_io)
            lm.arrive(full, iter=t)
            if t >= 1:
                if (t - 1) % 2 == 0:
                    lm.sync(done0)
                else:
                    lm.sync(done1)
        if (tiles - 1) % 2 == 0:
            lm.sync(done0)
        else:
            lm.sync(done1)

    with math:
        for t in lm.range(0, tiles):
            lm.wait(full, iter=t)
            lm.copy(kv_m, kv_buf[t])
            if t % 2 == 0:
                lm.bar_arrive(done0)
            else:
                lm.bar_arrive(done1)
            lm.unary(kv_m, kv_m, op="exp2")
            lm.copy(O, kv_m, coords=(t * 64, 0))
