# BUG (sync.race): ggml-org/llama.cpp PR #2699 ("metal: add missing barriers
# for mul-mat", merged 2023-08-22; "It turns out I missed two barriers in
# the kernel.  This commit should fix all the issues reported in #2678 and
# #2686" - empty responses and stuck generation after prompt evaluation
# with the new simdgroup-matrix kernel of PR #2615; PR #2686 had papered
# over it with an extra barrier that halved prompt speed).  ggml-metal.metal
# kernel_mul_mm, 128 threads = 4 simdgroups per 64x32 output tile,
# shared_memory = sa (the dequantized A block, half) then sb (the B block):
#     for (loop_k = 0; loop_k < ne00; loop_k += BLOCK_SIZE_K) {
#         dequantize_func(x, il, temp_a);
#         // missing: threadgroup_barrier(mem_flags::mem_threadgroup);
#         ... *(sa + ...) = temp_a[i/4][i%4]; *(sb + ...) = *(y);   // every thread
#         threadgroup_barrier(mem_flags::mem_threadgroup);
#         lsma = sa + 4*64*(sgitg%2); lsmb = sb + 2*64*(sgitg/2);
#         ... simdgroup_load(ma[i], lsma ...); simdgroup_load(mb[i], lsmb ...);
#         ... simdgroup_multiply_accumulate(c_res[i], mb[i/4], ma[i%4], c_res[i]);
#     }
#     if (full tile) simdgroup_store(c_res[i], C ...);            // to device memory
#     else {  // block is smaller than 64x32
#         // missing: threadgroup_barrier(mem_flags::mem_threadgroup);
#         temp_str = (threadgroup float *)shared_memory + 32*(sgitg&1) + (16*(sgitg>>1))*BLOCK_SIZE_M;
#         simdgroup_store(c_res[i], temp_str ...);
#         threadgroup_barrier(mem_flags::mem_threadgroup);
#         if (sgitg == 0) copy temp_str's valid rows and columns to dst;
#     }
# Both are write-after-read hazards on shared memory: a simdgroup that is
# done with K block k stores block k+1 into sa / sb while a slower one
# still simdgroup_loads block k, and on an edge tile a simdgroup stages its
# results over sa / sb while a slower one still reads the last block.  The
# two barriers the PR adds are these (the kernel's later text has exactly
# a barrier before the sa / sb stores and one before the temp_str staging;
# the PR's diff itself is not in the stored text).
# Written in CAKE IR (a simdgroup is a warp, threadgroup_barrier(
# mem_threadgroup) a bar.sync over the threadgroup, simdgroup_load +
# simdgroup_multiply_accumulate an sm_80 mma on shared-memory slices):
# four one-simdgroup instances; BLOCK_SIZE_K = 32; each simdgroup stores a
# quarter of the A block (16 rows) and of the B block (8 rows); simdgroup
# g multiplies A rows 32 (g % 2) .. + 32 by B rows 16 (g // 2) .. + 16; the
# edge tile's path only (temp_str as a 64x32 f32 view over the whole
# pool, the transposed addressing left out); B staged as f16 (the kernel
# keeps it f32; the dequantize of A is lane arithmetic).  K > 0.
# Fix: llamacpp_metal_mul_mm_stage_and_epilogue_war_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_metal_kernel_mul_mm(lm, A: LM.gmem, B: LM.gmem, Dst: LM.gmem, K: LM.i32):
    lm.assume(K >= 1)
    pool = lm.smem(8192)
    sa   = pool.view(offset=0,    shape=(64, 32), dtype=lm.f16)   # the A block (half)
    sb   = pool.view(offset=4096, shape=(32, 32), dtype=lm.f16)   # the B block
    cst  = pool.view(offset=0,    shape=(64, 32), dtype=lm.f32)   # temp_str over sa and sb
    areg = lm.regs(shape=(16, 32), dtype=lm.f16)                  # temp_a of 32 lanes
    breg = lm.regs(shape=(8, 32), dtype=lm.f16)
    acc  = lm.regs(shape=(32, 16), dtype=lm.f32)                  # c_res[8]
    tile = lm.regs(shape=(64, 32), dtype=lm.f32)

    simd = lm.role(warps=[0, 1, 2, 3], group=1)
    tg   = lm.named_barrier(roles=[simd])

    with simd:
        g  = lm.instance()                                  # sgitg
        r0 = lm.block_idx(0)
        r1 = lm.block_idx(1)
        for kb in lm.range(0, lm.cdiv(K, 32)):              # loop_k
            lm.copy(areg, A, coords=(64 * r0 + 16 * g, 32 * kb))     # dequantize_func
            lm.copy(sa[0][16 * g:16 * g + 16, :], areg)                                    # expect-error: sync.race
            lm.copy(breg, B, coords=(32 * r1 + 8 * g, 32 * kb))
            lm.copy(sb[0][8 * g:8 * g + 8, :], breg)                                      # expect-error: sync.race
            lm.sync(tg)
            lm.mma(acc, sa[0][32 * (g % 2):32 * (g % 2) + 32, :],
                   sb[0][16 * (g // 2):16 * (g // 2) + 16, :], init=(kb == 0))          # expect-error: sync.race
        # edge tile: stage through shared memory
        lm.copy(cst[0][32 * (g % 2):32 * (g % 2) + 32, 16 * (g // 2):16 * (g // 2) + 16], acc)  # expect-error: sync.race
        lm.sync(tg)
        if g == 0:
            lm.copy(tile, cst[0])
            lm.copy(Dst, tile, coords=(64 * r0, 32 * r1))
