# BROKEN twin of corpus/attention/sm80_vllm_paged_attention_v2_partition.cake
# (vLLM paged_attention_kernel, vllm-project/vllm
# csrc/attention/attention_kernels.cu): block_sum given red_smem itself
# instead of &red_smem[NUM_WARPS].  Between the warps' reads of the max
# partials (red_smem[0 .. 3]) and block_sum's store of the exp-sum partials
# there is no barrier (the exp loop has none), so a fast warp overwrites
# red_smem[w] while a slow warp still reads it as a max.  The kernel keeps
# the two reductions in the two halves of red_smem[2 * NUM_WARPS].
# Fixed form: corpus/attention/sm80_vllm_paged_attention_v2_partition.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def paged_attention_v2_partition(lm, Q: LM.gmem, KC: LM.gmem, VC: LM.gmem, TMP_OUT: LM.gmem,
                                 MAXL: LM.gmem, EXPS: LM.gmem, n_blk: LM.i32):
    lm.assume(n_blk >= 1)
    lm.assume(n_blk <= 32)
    pool    = lm.smem(2560)
    logits  = pool.view(offset=0,    shape=(16, 1),  dtype=lm.f32, stages=32)  # 512 fp32 logits
    out_sm  = pool.view(offset=0,    shape=(1, 128), dtype=lm.f32, stages=2)   # aliases logits [0, 1024)
    q_vecs  = pool.view(offset=2048, shape=(1, 128), dtype=lm.f16, stages=1)
    red_max = pool.view(offset=2304, shape=(1, 1),   dtype=lm.f32, stages=4)   # red_smem[0 .. 3]
    red_sum = pool.view(offset=2304, shape=(1, 1),   dtype=lm.f32, stages=4)   # red_smem[0 .. 3] again
    qg   = lm.regs(shape=(1, 128),  dtype=lm.f16)
    q    = lm.regs(shape=(1, 128),  dtype=lm.f32)
    k    = lm.regs(shape=(16, 128), dtype=lm.f32)
    v    = lm.regs(shape=(16, 128), dtype=lm.f32)
    prod = lm.regs(shape=(16, 128), dtype=lm.f32)
    s    = lm.regs(shape=(16, 1),   dtype=lm.f32)
    m1   = lm.regs(shape=(1, 1),    dtype=lm.f32)
    mx   = lm.regs(shape=(1, 1),    dtype=lm.f32)
    sm   = lm.regs(shape=(1, 1),    dtype=lm.f32)
    oth  = lm.regs(shape=(1, 1),    dtype=lm.f32)
    acc  = lm.regs(shape=(1, 128),  dtype=lm.f32)
    pv   = lm.regs(shape=(1, 128),  dtype=lm.f32)
    o16  = lm.regs(shape=(1, 128),  dtype=lm.f16)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    nb = n_blk                       # KV blocks of this partition
    bh = lm.block_idx(0)

    with warps:
        w = lm.instance()
        if w == 0:
            lm.copy(qg, Q, coords=(bh, 0))
            lm.copy(q_vecs[0], qg)
        lm.sync(block)
        lm.copy(q, q_vecs[0])
        lm.fill(mx, -1.0e30)
        for blk in lm.range(w, nb, 4):                   # QK
            lm.copy(k, KC, coords=(bh, blk * 16, 0))
            lm.binary(prod, k, q, op="mul")
            lm.reduce(s, prod, op="sum", axis=1)
            lm.binary(s, s, 0.088388, op="mul")
            lm.copy(logits[blk], s)
            lm.reduce(m1, s, op="max", axis=0)
            lm.binary(mx, mx, m1, op="max")
        lm.copy(red_max[w], mx)
        lm.sync(block)
        lm.copy(mx, red_max[0])                      # expect-error: sync.race
        for i in lm.range(1, 4):
            lm.copy(oth, red_max[i])                     # expect-error: sync.race
            lm.binary(mx, mx, oth, op="max")
        lm.fill(sm, 0.0)
        for h in lm.range(2 * w, nb, 8):                 # exp and sum: tokens 16h .. 16h + 31
            lm.copy(s, logits[h])
            lm.binary(s, s, mx, op="sub")
            lm.unary(s, s, op="exp2")
            lm.copy(logits[h], s)
            lm.reduce(m1, s, op="sum", axis=0)
            lm.binary(sm, sm, m1, op="add")
            if h + 1 < nb:
                lm.copy(s, logits[h + 1])
                lm.binary(s, s, mx, op="sub")
                lm.unary(s, s, op="exp2")
                lm.copy(logits[h + 1], s)
                lm.reduce(m1, s, op="sum", axis=0)
                lm.binary(sm, sm, m1, op="add")
        lm.copy(red_sum[w], sm)                          # expect-error: sync.race
        lm.sync(block)
        lm.copy(sm, red_sum[0])
        for i in lm.range(1, 4):
            lm.copy(oth, red_sum[i])
            lm.binary(sm, sm, oth, op="add")
        lm.unary(sm, sm, op="recip")
        for h in lm.range(2 * w, nb, 8):                 # normalize in place
            lm.copy(s, logits[h])
            lm.binary(s, s, sm, op="mul")
            lm.copy(logits[h], s)
            if h + 1 < nb:
                lm.copy(s, logits[h + 1])
                lm.binary(s, s, sm, op="mul")
                lm.copy(logits[h + 1], s)
        lm.sync(block)
        if w == 0:
            lm.copy(MAXL, mx, coords=(bh, 0))
            lm.copy(EXPS, sm, coords=(bh, 0))
        lm.fill(acc, 0.0)
        for blk in lm.range(w, nb, 4):                   # PV
            lm.copy(v, VC, coords=(bh, blk * 16, 0))
            lm.copy(s, logits[blk])
            lm.binary(prod, v, s, op="mul")
            lm.reduce(pv, prod, op="sum", axis=0)
            lm.binary(acc, acc, pv, op="add")
        lm.sync(block)                                   # logits space reused for out_smem
        if w >= 2:
            lm.copy(out_sm[w - 2], acc)
        lm.sync(block)
        if w < 2:
            lm.copy(pv, out_sm[w])
            lm.binary(acc, acc, pv, op="add")
        lm.sync(block)
        if w == 1:
            lm.copy(out_sm[2], acc)
        lm.sync(block)
        if w == 0:
            lm.copy(pv, out_sm[2])
            lm.binary(acc, acc, pv, op="add")
        lm.sync(block)
        if w == 0:
            lm.copy(o16, acc)
            lm.copy(TMP_OUT, o16, coords=(bh, 0))
