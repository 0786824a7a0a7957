# BUG (sync.race): sgl-project/sglang PR #37288 "[Kernel] Fix
# cross-iteration shared-memory WAR races in Blackwell GDN prefill"
# (2026-08-31).  In the CuTe DSL GDN prefill kernel kernel_o.py, the
# 128-thread compute group writes the gating cumulative sums of chunk i
# into the shared buffer s_g_cu (each warp its rows), synchronizes, and
# every warp then reads the whole buffer to build the exponential gating
# mask exp(g_r - g_c).  At the start of chunk i + 1 the warps overwrite
# s_g_cu "without ensuring all warps finished reading iteration i": a
# lagging warp reads values from two iterations (amplified through exp()).
# (kernel_kkt_inv_uw.py had the same race on s_beta.)
# Fix (PR #37288): a 128-thread named barrier at the end of each loop
# iteration, cute.arch.barrier(barrier_id=1, number_of_threads=128), so
# the last reads of iteration i precede the stores of iteration i + 1.
# Written in CAKE IR: the compute group as four one-warp instances
# (group=1) and the 128-thread named barrier over them; each warp loads its
# 16 rows of the chunk's gates from global memory into registers, stores
# them into its band of s_g_cu, the group synchronizes (the existing RAW
# barrier), and every warp reads all 64 rows; lm.binary stands for the
# mask computation.  Left out: the tcgen05 MMAs the mask feeds and the
# cumulative sum itself (the gates arrive already summed).
# Fix: sglang_gdn_prefill_s_g_cu_cross_iteration_war_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def sglang_gdn_prefill_s_g_cu_cross_iteration_war(lm, G: LM.gmem, O: LM.gmem, n_chunks: LM.i32):
    pool   = lm.smem(8192)
    s_g_cu = pool.view(offset=0, shape=(64, 16), dtype=lm.f32)
    g_band = lm.regs(shape=(16, 16), dtype=lm.f32)
    g_all  = lm.regs(shape=(64, 16), dtype=lm.f32)
    mask   = lm.regs(shape=(64, 16), dtype=lm.f32)

    cg  = lm.role(warps=[0, 1, 2, 3], group=1)
    bar = lm.named_barrier(roles=[cg])

    with cg:
        r0 = 16 * lm.instance()
        lm.fill(mask, 0.0)
        for c in lm.range(0, n_chunks):
            lm.copy(g_band, G, coords=(c * 64 + r0, 0))
            lm.copy(s_g_cu[0][r0:r0 + 16, :], g_band)                            # expect-error: sync.race
            lm.sync(bar)
            lm.copy(g_all, s_g_cu[0])                                           # expect-error: sync.race
            lm.binary(mask, mask, g_all, op="add")
        lm.copy(O, mask, coords=(lm.block_idx(0) * 256 + 64 * lm.instance(), 0))
