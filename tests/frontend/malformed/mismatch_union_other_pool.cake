# expect-error: type.mismatch @ 7:67
@cake.schedule(target="sm_80")
def k(lm, X: LM.gmem):
    pool = lm.smem(4096)
    other = lm.smem(4096)
    dc = pool.view(offset=0, shape=(8, 128), dtype=lm.i32)
    rk = other.view(offset=0, shape=(32, 32), dtype=lm.i32, union=dc)
