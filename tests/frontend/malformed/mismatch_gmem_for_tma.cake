# expect-error: type.mismatch @ 9:20
@cake.schedule()
def k(lm, G: LM.gmem):
    pool = lm.smem(8192)
    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)
    load = lm.role(warps=[0])
    b = lm.barrier(prod=[load], cons=[load])
    with load:
        v.tma_load(G, coords=(0, 0), stage=0, barrier=b)
