# vLLM paged attention v2, the partition merge (vllm-project/vllm,
# csrc/attention/attention_kernels.cu, paged_attention_v2_reduce_kernel;
# NUM_THREADS = 128 = 4 warps, HEAD_SIZE = 128, PARTITION_SIZE = 512).
# One CTA per (head, sequence) merges the partitions' partial outputs:
#  * num_partitions == 1: copy tmp_out to out and return (a uniform early
#    exit of the whole CTA before any barrier);
#  * thread i stores max_logits[i] into shared_max_logits[i] (dynamic shared
#    memory; warp w: partitions 32w .. 32w + 31), __syncthreads;
#  * warp max -> red_smem[w], __syncthreads, every warp reads all four;
#  * thread i rescales exp_sums[i] with its own shared_max_logits[i] and
#    stores shared_exp_sums[i], __syncthreads;
#  * block_sum(&red_smem[NUM_WARPS], ...): partials, __syncthreads, all four;
#  * thread i (one output element each) reads shared_exp_sums[j] for EVERY
#    partition j, written by other warps.
# Up to 128 partitions (contexts up to 64K tokens); n_part is
# DIVIDE_ROUND_UP(context_len, PARTITION_SIZE).  Two of the barriers are
# redundant: the one after shared_max_logits (each thread reads back its
# own entries; the red_smem barrier follows anyway) and the one after
# shared_exp_sums (block_sum's barrier also orders the stores before the
# final loop's reads); the kernel keeps them and so does this file.
# Bug twin: corpus/bugs/data.stale-read/vllm_paged_attention_reduce_loop_over_max_partitions.cake
# (the final loop over max_num_partitions: entries this CTA never stored).
# expect: pass
@cake.schedule(target="sm_80")
def paged_attention_v2_reduce(lm, OUT: LM.gmem, EXPS: LM.gmem, MAXL: LM.gmem, TMP_OUT: LM.gmem,
                              n_part: LM.i32):
    lm.assume(n_part >= 1)
    lm.assume(n_part <= 128)
    pool    = lm.smem(1088)
    sh_max  = pool.view(offset=0,    shape=(1, 32), dtype=lm.f32, stages=4)   # shared_max_logits
    sh_exp  = pool.view(offset=512,  shape=(1, 32), dtype=lm.f32, stages=4)   # shared_exp_sums
    red_max = pool.view(offset=1024, shape=(1, 1),  dtype=lm.f32, stages=4)   # red_smem[0 .. 3]
    red_sum = pool.view(offset=1056, shape=(1, 1),  dtype=lm.f32, stages=4)   # red_smem[4 .. 7]
    ml   = lm.regs(shape=(1, 32),  dtype=lm.f32)
    es   = lm.regs(shape=(1, 32),  dtype=lm.f32)
    mx   = lm.regs(shape=(1, 1),   dtype=lm.f32)
    sm   = lm.regs(shape=(1, 1),   dtype=lm.f32)
    oth  = lm.regs(shape=(1, 1),   dtype=lm.f32)
    part = lm.regs(shape=(32, 32), dtype=lm.f32)
    acc  = lm.regs(shape=(1, 32),  dtype=lm.f32)
    wgt  = lm.regs(shape=(1, 32),  dtype=lm.f32)
    o16  = lm.regs(shape=(1, 32),  dtype=lm.f16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    bh = lm.block_idx(0)
    n_chunks = lm.cdiv(n_part, 32)

    with warps:
        w = lm.instance()
        if n_part == 1:
            lm.copy(o16, TMP_OUT, coords=(bh, 0, 32 * w))
            lm.copy(OUT, o16, coords=(bh, 32 * w))
        else:
            lm.fill(mx, -1.0e30)
            if 32 * w < n_part:
                lm.copy(ml, MAXL, coords=(bh, 32 * w))
                lm.copy(sh_max[w], ml)
                lm.reduce(mx, ml, op="max", axis=1)
            lm.sync(block)
            lm.copy(red_max[w], mx)
            lm.sync(block)
            lm.copy(mx, red_max[0])
            for i in lm.range(1, 4):
                lm.copy(oth, red_max[i])
                lm.binary(mx, mx, oth, op="max")
            lm.fill(sm, 0.0)
            if 32 * w < n_part:
                lm.copy(ml, sh_max[w])
                lm.copy(es, EXPS, coords=(bh, 32 * w))
                lm.binary(ml, ml, mx, op="sub")
                lm.unary(ml, ml, op="exp2")
                lm.binary(es, es, ml, op="mul")
                lm.copy(sh_exp[w], es)
                lm.reduce(sm, es, op="sum", axis=1)
            lm.sync(block)
            lm.copy(red_sum[w], sm)
            lm.sync(block)
            lm.copy(sm, red_sum[0])
            for i in lm.range(1, 4):
                lm.copy(oth, red_sum[i])
                lm.binary(sm, sm, oth, op="add")
            lm.unary(sm, sm, op="recip")
            lm.fill(acc, 0.0)
            for c in lm.range(0, n_chunks):
                lm.copy(es, sh_exp[c])
                lm.binary(es, es, sm, op="mul")
                lm.copy(part, TMP_OUT, coords=(bh, 32 * c, 32 * w))
                lm.binary(part, part, es, op="mul")
                lm.reduce(wgt, part, op="sum", axis=0)
                lm.binary(acc, acc, wgt, op="add")
            lm.copy(o16, acc)
            lm.copy(OUT, o16, coords=(bh, 32 * w))
