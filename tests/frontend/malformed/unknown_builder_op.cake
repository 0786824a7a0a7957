# expect-error: type.unknown-op @ 13:9
@cake.schedule()
def k(lm, Q: LM.tma2d, K: LM.i32):
    pool = lm.smem(65536)
    smem = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    load = lm.role(warps=[0])
    mma = lm.role(warps=[1])
    full = lm.barrier(count=2, prod=[load], cons=[mma], init_count=1)
    with load:
        lm.fence_proxy()
    with mma:
        lm.frobnicate(full)
