# BUG (sync.race): sgl-project/sglang PR #32467 ("[BugFix] Fix race in c128
# prefill plan kernel on ragged extend", merged; issue #32470, and PR #33692
# proposing a barrier instead).  plan_compress_prefill_kernel0
# (python/sglang/kernels/jit/csrc/deepseek_v4/c_plan.cuh, 1024 threads = 32
# warps) finds the min and max extend length of the batch through two
# shared arrays of one slot per warp:
#     if (tx < kNumWarps) { warp_max[tx] = 0; warp_min[tx] = 0xFFFFFFFFu; }   // warp 0
#     warp_max[warp_id] = warp_reduce_max_u32(e_for_max);                      // every warp
#     warp_min[warp_id] = warp_reduce_min_u32(e_for_min);
#     __syncthreads();
#     if (warp_id == 0) { s_max_extend = ...warp_max[lane_id]; s_min_extend = ...warp_min[lane_id]; }
#     __syncthreads();
#     const bool is_mtp_extend = (s_min_extend == s_max_extend) && ...;
# Warp 0's initialisation of every slot and warp w's publication of its own
# slot w are not ordered: a late initialiser store overwrites warp w's
# extremum, a ragged batch's extend lengths look uniform, the MTP fast path
# is taken and ragged ids overrun (illegal memory access at graph capture;
# "a write-write race", 594 of 2000 ragged plans bad in the PR's harness).
# The merged fix deletes the initialisation: with the fixed 1024-thread
# launch every warp writes its own slot before the barrier
# (sglang_dsv4_plan_warp_extrema_init_after_publish_fixed.cake).
# Modelled: 4 of the 32 warps (one-warp instances of one role; kNumWarps = 4
# slots), the extend lengths of the warp's 32 batch entries loaded from
# global memory (threads past batch_size load 0 in the kernel, a guard left
# out), the warp reductions as lm.reduce into one register, the two
# broadcasts (s_max_extend, s_min_extend) in a 2-int view, and stage C as
# every warp reading them and its prefix lengths (s_prefix_len) to store its
# plans.  Left out: the plan emission's shared atomics (counter_c,
# counter_w: atomics are not in the IR) and stage D's padding.
# expect: sync.race
@cake.schedule(target="sm_90a")
def sglang_dsv4_plan_compress_prefill_kernel0(lm, ExtendLens: LM.gmem, PrefixLens: LM.gmem, Plan: LM.gmem):
    pool = lm.smem(1024)
    prefix   = pool.view(offset=0,   shape=(1, 128), dtype=lm.i32)   # s_prefix_len
    warp_max = pool.view(offset=512, shape=(1, 4),   dtype=lm.i32)
    warp_min = pool.view(offset=528, shape=(1, 4),   dtype=lm.i32)
    s_ext    = pool.view(offset=544, shape=(1, 2),   dtype=lm.i32)   # s_max_extend, s_min_extend
    e    = lm.regs(shape=(1, 32), dtype=lm.i32)
    pl   = lm.regs(shape=(1, 32), dtype=lm.i32)
    one  = lm.regs(shape=(1, 1),  dtype=lm.i32)
    init = lm.regs(shape=(1, 4),  dtype=lm.i32)
    slot = lm.regs(shape=(1, 4),  dtype=lm.i32)
    ext  = lm.regs(shape=(1, 2),  dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        # Stage A: per-batch fields, shared scratch
        lm.copy(e, ExtendLens, coords=(0, 32 * w))
        lm.copy(pl, PrefixLens, coords=(0, 32 * w))
        lm.copy(prefix[0][0:1, 32 * w:32 * w + 32], pl)
        if w == 0:                                                       # tx < kNumWarps
            lm.fill(init, 0)
            lm.copy(warp_max[0], init)                                   # expect-error: sync.race
            lm.fill(init, 2147483647)
            lm.copy(warp_min[0], init)                                   # expect-error: sync.race
        # Stage B: per-warp extrema, then warp 0 folds them
        lm.reduce(one, e, op="max", axis=1)
        lm.copy(warp_max[0][0:1, w:w + 1], one)                          # expect-error: sync.race
        lm.reduce(one, e, op="min", axis=1)
        lm.copy(warp_min[0][0:1, w:w + 1], one)                          # expect-error: sync.race
        lm.sync(block)
        if w == 0:
            lm.copy(slot, warp_max[0])
            lm.reduce(one, slot, op="max", axis=1)
            lm.copy(s_ext[0][0:1, 0:1], one)
            lm.copy(slot, warp_min[0])
            lm.reduce(one, slot, op="min", axis=1)
            lm.copy(s_ext[0][0:1, 1:2], one)
        lm.sync(block)
        # Stage C: every warp decides the path and emits its plans
        lm.copy(ext, s_ext[0])
        lm.copy(pl, prefix[0][0:1, 32 * w:32 * w + 32])
        lm.binary(pl, pl, e, op="add")
        lm.copy(Plan, pl, coords=(0, 32 * w))
