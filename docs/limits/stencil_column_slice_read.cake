# Reproducer (helper hunt51, session 51): a false data.stale-read on a
# correct two-warp stencil read through a column slice.  Warp w fills rows
# 2w, 2w+1 of a 4 x 10 buffer; every round each warp reads columns 1..8 of
# all four rows (a strided read, four runs), a barrier, warp 0 rewrites
# columns 1..8 of row 2 and warp 1 of row 1, a barrier.  Every access is
# barrier-ordered and row 3 is written once (warp 1's fill), yet at n = 3:
# "ws[0] reads buf[0][:, 1:9] bytes [124, 156) (run 4 of 4) meaning lap 1
# of the slot (index 0), but it holds the data of lap 0 of the slot (index
# 0) (for n=3)" - on main 9dd8ae0 as on h-hunt51 (the session-51 seed rule
# does not change it).  The same stencil read as whole rows (docs/rules/
# data.stale-read.md "A value its reader seeds, in part") is proved; met
# writing arrayfire's flood-fill 3 x 3 neighbourhood as nine column-sliced
# reads (the corpus pair reads the neighbourhood rows whole).
# docs/known-limits.md "data.stale-read: a stencil read through a column slice".
# expect: pass
@cake.schedule(target="sm_80")
def stencil_column_slice_read(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    pool = lm.smem(1024)
    buf  = pool.view(offset=0, shape=(4, 10), dtype=lm.f32)
    two  = lm.regs(shape=(2, 10), dtype=lm.f32)
    all4 = lm.regs(shape=(4, 10), dtype=lm.f32)
    one  = lm.regs(shape=(1, 8), dtype=lm.f32)
    sub  = lm.regs(shape=(4, 8), dtype=lm.f32)
    ws = lm.role(warps=[0, 1], group=1)
    bar = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        lm.copy(two, X, coords=(2 * w, 0))
        lm.copy(buf[0][2 * w:2 * w + 2, :], two)      # fill rows 2w, 2w+1
        lm.sync(bar)
        for it in lm.range(0, n):
            lm.copy(sub, buf[0][:, 1:9])
            lm.sync(bar)
            lm.copy(one, sub[1:2, :])
            lm.copy(buf[0][2 - w:3 - w, 1:9], one)       # warp 0 updates row 2, warp 1 row 1
            lm.sync(bar)
        lm.copy(Y, sub, coords=(4 * w, 0))
