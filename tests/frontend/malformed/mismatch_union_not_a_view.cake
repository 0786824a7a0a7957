# expect-error: type.mismatch @ 6:66
@cake.schedule(target="sm_80")
def k(lm, X: LM.gmem):
    pool = lm.smem(8192)
    dc = pool.view(offset=0, shape=(8, 128), dtype=lm.i32)
    rk = pool.view(offset=0, shape=(32, 32), dtype=lm.i32, union=pool)
