# BUG (sync.race): FastVideo's video sparse attention (VSA) backward on
# Hopper (csrc/attn/vsa/block_sparse_h100.cu, bwd_attend_ker, built on
# ThunderKittens), fixed by hao-ai-lab/FastVideo PR #735 ("Fix vsa
# backward gQ", merged 2025-08-12: "Fix race condition when reducing gQ
# gradient on HBM").  Per q block the warpgroup stages its dQ partial in
# the shared qg_smem (warpgroup::store), __syncthreads(), and warp 0 issues
# tma::store_add_async(g.qg, qg_smem, ...) (cp.reduce.async.bulk); the next
# block waits with tma::store_async_wait() before it rewrites qg_smem.  But
# a bulk async-group belongs to the thread that committed it: only warp
# 0's wait waits for anything, the other warps' returns at once, and no
# barrier orders warp 0's wait before their warpgroup::store - so warps
# 1-3 overwrite qg_smem rows the reduce-add is still reading (the reviewer:
# "weird that this line should've done the job"; the PR's extra wait after
# the issue "significantly reduce[s] the max error").  PR #735 adds
# tma::store_async_wait() right after store_add_async in warp 0, before the
# block's next __syncthreads().
# Modelled: D = 64, 4 warps, each warp its own instance (the bug is
# between warps); the q-block loop with one qg tile of 64 x 64 f32 and one
# dS^T tile; warp w owns rows 16w..16w+15 of both.  The warpgroup MMAs are
# modelled as each warp's register work on the shared tiles (the dS^T K
# product reads the rows another warp wrote, so the existing
# __syncthreads() is needed); the TMA reduce-add as a TMA store from
# qg_smem (same source read, same bulk group); the K / Q / dO loads, the
# dK / dV accumulation and the last-iteration peel are left out.  Every
# writer fences before the barrier that hands qg_smem to the TMA store (as
# cake asks of each generic writer).
# Fix: fastvideo_vsa_bwd_qg_store_wait_only_in_issuer_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_90a")
def fastvideo_vsa_bwd_qg_store_wait_only_in_issuer(lm, P: LM.gmem, Kin: LM.gmem, QG: LM.tma2d, n_q: LM.i32):
    lm.assume(n_q > 0)
    pool  = lm.smem(32768)
    k_s   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=1)
    ds_s  = pool.view(offset=8192,  shape=(64, 64), dtype=lm.bf16, stages=1)
    qg_s  = pool.view(offset=16384, shape=(64, 64), dtype=lm.f32,  stages=1)
    k_r   = lm.regs(shape=(16, 64), dtype=lm.bf16)
    ds_r  = lm.regs(shape=(16, 64), dtype=lm.bf16)
    ds_o  = lm.regs(shape=(16, 64), dtype=lm.f32)
    kf    = lm.regs(shape=(16, 64), dtype=lm.f32)
    qg_r  = lm.regs(shape=(16, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        o = 16 * ((w + 1) % 4)
        lm.copy(k_r, Kin, coords=(lm.block_idx(0) * 64 + 16 * w, 0))
        lm.copy(k_s[0][16 * w:16 * w + 16, :], k_r)
        for q in lm.range(0, n_q):
            lm.copy(ds_r, P, coords=(q * 64 + 16 * w, 0))          # dS^T rows of this warp
            lm.copy(ds_s[0][16 * w:16 * w + 16, :], ds_r)          # warpgroup::store(ds_smem_t)
            lm.sync(cta)                                           # "wait for ds_smem shared memory write"
            lm.copy(ds_o, ds_s[0][o:o + 16, :])                    # dQ partial = dS K (reads other rows)
            lm.copy(kf, k_s[0][o:o + 16, :])
            lm.binary(qg_r, ds_o, kf, op="mul")
            lm.tma_store_wait(pending=0)                           # tma::store_async_wait(): all warps
            lm.copy(qg_s[0][16 * w:16 * w + 16, :], qg_r)          # expect-error: sync.race
            lm.fence_proxy()
            lm.sync(cta)
            if w == 0:
                qg_s.tma_store(QG, coords=(q * 64, 0), stage=0)    # tma::store_add_async (warp 0)
                lm.tma_store_commit()
                # BUG: the wait of this bulk group is only in the next block, after no barrier
        lm.tma_store_wait(pending=0)
