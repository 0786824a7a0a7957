# BUG (sync.race): vllm-project/vllm PR #11493 ("Resolve race conditions in
# Marlin kernel", fixes issues #10656 and #11205; merged as 5dba2575).
# Issue #11205: GPTQ Marlin outputs "become corrupted for certain shape
# combinations ... at different indices after each invocation", and
# compute-sanitizer racecheck reports the shared-memory reads of
# fetch_to_registers racing with cp_async4 writes and with
# thread_block_reduce.  csrc/quantization/gptq_marlin/gptq_marlin.cu used
# the start of dynamic shared memory, `sh`, both as the A pipeline stages
# (sh_a) and as the scratch of the block reduction / write-back: after the
# last k-block a warp that is done runs cp_async_wait<0>() and
# thread_block_reduce(), whose first step (warp groups red_off..2 red_off-1
# store their partial C fragments into sh) has no __syncthreads() before
# it, while a lagging warp still ldmatrix-reads its A fragment of the last
# stage from the same bytes.  The fix gives the reduction its own region
# (`int4* sh_red = sh_s + (stages * s_sh_stage);`, reduction and write-back
# accesses changed from sh[...] to sh_red[...], and the shared-memory size
# check counts it): vllm_marlin_block_reduce_scratch_aliases_a_stages_fixed.cake.
# Written in CAKE IR: sm_80, 4 warps each its own instance (one warp is one
# b_sh_stride group, red_idx = the warp; __syncthreads a named barrier),
# a 4-stage cp.async pipeline (wait_for_stage = cp_async_wait<stages - 2>
# then __syncthreads), a 16x64 A stage and a 64x64 B stage; warp w
# cp.asyncs rows [4 w, 4 w + 4) of A and [16 w, 16 w + 16) of B and
# multiplies the k-slice [16 w, 16 w + 16) of every stage into its own
# partial 16x64 C (the K split that thread_block_reduce sums), then the
# log-tree reduction with red_off = 2 as in the kernel (i = 2: warps 2, 3
# store into the slots of warps 0, 1; i = 1: warp 1 adds both and stores
# into slot 0; warp 0 adds slot 0), and warp 0 writes C.  A persistent
# loop over the block's slices, each a full K stripe.  Left out: int4 B and
# its dequantization (B is f16 here), the scales, global_reduce and the
# fetch_to_registers double buffering.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def vllm_marlin_block_reduce_scratch_aliases_a_stages(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                                                      n_slices: LM.i32, K: LM.i32):
    lm.assume(K >= 64)
    pool   = lm.smem(40960)
    sh_a   = pool.view(offset=0,    shape=(16, 64), dtype=lm.f16, stages=4)
    a_band = pool.view(offset=0,    shape=(4, 64),  dtype=lm.f16, stages=16)
    sh_b   = pool.view(offset=8192, shape=(64, 64), dtype=lm.f16, stages=4)
    b_band = pool.view(offset=8192, shape=(16, 64), dtype=lm.f16, stages=16)
    red    = pool.view(offset=0,    shape=(16, 64), dtype=lm.f32, stages=2)   # sh: aliases sh_a
    acc    = lm.regs(shape=(16, 64), dtype=lm.f32)
    t0     = lm.regs(shape=(16, 64), dtype=lm.f32)
    t1     = lm.regs(shape=(16, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    k_tiles = lm.cdiv(K, 64)

    with warps:
        w = lm.instance()
        for s in lm.range(0, n_slices):
            n0 = 64 * (lm.block_idx(0) + s * lm.grid_dim(0))
            for i in lm.range(0, 3):                                  # start_pipes
                if i < k_tiles:
                    a_band.cp_async(A, coords=(4 * w, 64 * i), stage=4 * i + w)
                    b_band.cp_async(B, coords=(n0 + 16 * w, 64 * i), stage=4 * i + w)
                lm.cp_async_commit()
            for k in lm.range(0, k_tiles):
                lm.cp_async_wait(pending=2)                           # wait_for_stage
                lm.sync(bar)
                if k + 3 < k_tiles:                                   # fetch_to_shared
                    a_band.cp_async(A, coords=(4 * w, 64 * (k + 3)), stage=4 * ((k + 3) % 4) + w)
                    b_band.cp_async(B, coords=(n0 + 16 * w, 64 * (k + 3)), stage=4 * ((k + 3) % 4) + w)
                lm.cp_async_commit()
                lm.mma(acc, sh_a[k % 4][:, 16 * w:16 * w + 16], sh_b[k % 4][:, 16 * w:16 * w + 16],
                       init=(k == 0))                                 # expect-error: sync.race
            lm.cp_async_wait(pending=0)
            # thread_block_reduce, on `sh` (BUG: the A stages, no __syncthreads first)
            if w >= 2:
                lm.copy(red[w - 2], acc)                              # expect-error: sync.race
            lm.sync(bar)
            if w == 1:
                lm.copy(t1, red[1])
                lm.copy(t0, red[0])
                lm.binary(acc, acc, t1, op="add")
                lm.binary(acc, acc, t0, op="add")
                lm.copy(red[0], acc)
            lm.sync(bar)
            if w == 0:
                lm.copy(t0, red[0])
                lm.binary(acc, acc, t0, op="add")
            lm.sync(bar)
            if w == 0:
                lm.copy(C, acc, coords=(0, n0))                       # write_result
