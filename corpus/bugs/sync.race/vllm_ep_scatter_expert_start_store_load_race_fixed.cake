# FIXED: vllm_ep_scatter_expert_start_store_load_race.cake as
# vllm-project/vllm PR #34991 fixes it: the program's entry is taken from
# the cumsum registers (tl.sum(tl.where(offset_cumsum == cur_expert,
# cumsum, 0)), a block reduction: each warp's part through shared memory,
# a barrier, every warp sums the parts) and stored once to
# expert_start_loc[cur_expert]; nothing reads expert_start_loc back.
# expect: pass
@cake.schedule(target="sm_90a")
def ep_scatter_1_from_registers(lm, NumRecv: LM.gmem, ExpertStart: LM.gmem):
    pool = lm.smem(1024)
    red  = pool.view(offset=0, shape=(1, 32), dtype=lm.i32, stages=8)
    cnt  = lm.regs(shape=(1, 32), dtype=lm.i32)
    part = lm.regs(shape=(1, 32), dtype=lm.i32)
    one  = lm.regs(shape=(1, 1), dtype=lm.i32)
    cur  = lm.regs(shape=(1, 1), dtype=lm.i32)

    prog = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    bar  = lm.named_barrier(roles=[prog])

    with prog:
        w = lm.instance()
        e = lm.block_idx(0)                                          # cur_expert
        lm.copy(cnt, NumRecv, coords=(0, 32 * w))                    # tokens_per_expert
        lm.copy(red[w], cnt)                                         # tl.where(...): this warp's part
        lm.sync(bar)
        lm.fill(cur, 0)
        for s in lm.range(0, 8):
            lm.copy(part, red[s])
            lm.reduce(one, part, op="sum", axis=1)
            lm.binary(cur, cur, one, op="add")                       # tl.sum
        if w == 0:
            lm.copy(ExpertStart, cur, coords=(0, e))                 # tl.store(expert_start_loc + cur_expert)
