# BUG (sync.race): facebookresearch/xformers PR #381 ("Fix race condition
# when `K>128|64` in attention forward").  The memory-efficient attention
# forward (CUTLASS, mem_eff_attention/kernel_forward.h, 2022) computes
# O = P V one column block of V at a time when the value head dimension K
# exceeds the MM1 tile width (kKeysPerBlock = 64 or 128): `for (blockN = 0;
# blockN < nBlockN; ++blockN)` runs the multistage mainloop (cp.async of V
# into shared_storage_mm.mm) and then the epilogue through
# shared_storage_mm.epilogue, and the two are a union ("Storing parts of
# `V` during the matmul" / "Used by the Epilogue (so we can reuse the same
# memory space)").  Each warp writes its accumulator fragment into the
# epilogue tile, syncs, and reads back rows that other warps wrote; a warp
# that is done then starts the next column block's mainloop and cp.asyncs V
# into the same bytes while a lagging warp still reads the epilogue rows.
# With nBlockN == 1 (K <= 64|128) the next key block's other barriers come
# first, hence "K>128|64".  The kernel after the PR syncs on both sides of
# the mainloop, "__syncthreads(); // we share shmem between mma and
# epilogue" (xformers_mem_eff_fwd_v_prologue_over_epilogue_fixed.cake); the
# one before the mainloop is the loop-carried one modelled here.
# Written in CAKE IR: sm_80, kQueriesPerBlock = kKeysPerBlock = 64, 4
# warps each its own instance (__syncthreads a named barrier), P (the
# attention tile from MM0, `si`, stored as its two 32-key halves) in its
# own shared memory, one key block;
# MM1's mainloop has 2 k-steps of 32 keys and 2 stages, warp w cp.asyncs
# value columns [16 w, 16 w + 16) of a V stage (the view v_band), computes
# output column band w with mma.sync, and the epilogue writes that column
# band of the 64x64 f32 staging tile `epi` (the union, over both V stages)
# and reads back row band w.  Kv is the value head dimension.  Left out:
# the softmax rescale (m_prime, s_prime) and MM0.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def xformers_mem_eff_fwd_v_prologue_over_epilogue(lm, P: LM.gmem, V: LM.gmem, O: LM.gmem, Kv: LM.i32):
    lm.assume(Kv >= 1)
    pool   = lm.smem(24576)
    si     = pool.view(offset=0,    shape=(64, 32), dtype=lm.f16, stages=2)   # shared_storage_si, by k-step
    v      = pool.view(offset=8192, shape=(64, 32), dtype=lm.f16, stages=2)   # mm: V stage (value cols x keys)
    v_band = pool.view(offset=8192, shape=(16, 32), dtype=lm.f16, stages=8)
    epi    = pool.view(offset=8192, shape=(64, 64), dtype=lm.f32, stages=1)   # epilogue (union with mm)
    p      = lm.regs(shape=(16, 32), dtype=lm.f16)
    acc    = lm.regs(shape=(64, 16), dtype=lm.f32)
    out    = lm.regs(shape=(16, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    m0 = 64 * lm.block_idx(0)
    n_blocks = lm.cdiv(Kv, 64)

    with warps:
        w = lm.instance()
        for k in lm.range(0, 2):                               # MM0's P tile -> si
            lm.copy(p, P, coords=(m0 + 16 * w, 32 * k))
            lm.copy(si[k][16 * w:16 * w + 16, :], p)
        lm.sync(bar)
        for n in lm.range(0, n_blocks):
            # BUG: no __syncthreads() before the mainloop
            v_band.cp_async(V, coords=(64 * n + 16 * w, 0), stage=w)                    # expect-error: sync.race
            lm.cp_async_commit()
            for k in lm.range(0, 2):
                lm.cp_async_wait(pending=0)
                lm.sync(bar)
                if k + 1 < 2:
                    v_band.cp_async(V, coords=(64 * n + 16 * w, 32 * (k + 1)), stage=4 * ((k + 1) % 2) + w)
                lm.cp_async_commit()
                lm.mma(acc, si[k], v[k % 2][16 * w:16 * w + 16, :], init=(k == 0))
            lm.cp_async_wait(pending=0)
            lm.sync(bar)                                       # we share shmem between mma and epilogue
            lm.copy(epi[0][:, 16 * w:16 * w + 16], acc)
            lm.sync(bar)
            lm.copy(out, epi[0][16 * w:16 * w + 16, :])                                 # expect-error: sync.race
            lm.copy(O, out, coords=(m0 + 16 * w, 64 * n))
