# expect-error: type.non-constant @ 6:78
@cake.schedule(target="sm_80")
def k(lm, X: LM.gmem, OFF: LM.i32):
    pool = lm.smem(8192)
    dc = pool.view(offset=0, shape=(8, 128), dtype=lm.i32)
    rk = pool.view(offset=OFF, shape=(32, 32), dtype=lm.i32, stages=2, union=dc)
