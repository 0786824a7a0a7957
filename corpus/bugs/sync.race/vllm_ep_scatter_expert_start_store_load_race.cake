# BUG (sync.race): vllm-project/vllm PR #34991 ("[Bugfix] ep_scatter kernel
# store-load race condition"; the same bug: sgl-project/sglang PR #31930,
# ModelTC/LightLLM PR #1362).  vllm/model_executor/layers/fused_moe/
# deep_gemm_utils.py, the Triton kernel _fwd_kernel_ep_scatter_1, one
# program per expert (cur_expert = tl.program_id(0)), num_warps = 8:
#     tokens_per_expert = round_up_128(tl.load(num_recv_tokens_per_expert + offset_cumsum, ...))
#     cumsum = tl.cumsum(tokens_per_expert) - tokens_per_expert
#     tl.store(expert_start_loc + offset_cumsum, cumsum, mask=offset_cumsum < num_experts)
#     cur_expert_start = tl.load(expert_start_loc + cur_expert)
#     ... m_indices[cur_expert_start + ...] = cur_expert
# The 256-entry store is spread over the program's 8 warps (32 entries
# each) and the scalar load of entry cur_expert reads back what another
# warp stored, with no barrier between: it can read the uninitialized
# buffer (torch.empty), and the m_indices stores land out of bounds.  The
# PR takes this program's entry from the cumsum registers
# (tl.sum(tl.where(offset_cumsum == cur_expert, cumsum, 0))) and stores it
# once (vllm_ep_scatter_expert_start_store_load_race_fixed.cake).
# Written in CAKE IR: the 8 warps are one-warp instances, warp w stores
# entries 32 w .. 32 w + 31 of expert_start_loc (row 0 of a 1 x 256
# tensor); every warp loads entry cur_expert (the scalar load runs in every
# thread); the m_indices stores are left out.
# expect: sync.race
@cake.schedule(target="sm_90a")
def ep_scatter_1(lm, NumRecv: LM.gmem, ExpertStart: LM.gmem):
    cnt = lm.regs(shape=(1, 32), dtype=lm.i32)
    cur = lm.regs(shape=(1, 1), dtype=lm.i32)

    prog = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)

    with prog:
        w = lm.instance()
        e = lm.block_idx(0)                                          # cur_expert
        lm.copy(cnt, NumRecv, coords=(0, 32 * w))                    # tokens_per_expert
        lm.copy(ExpertStart, cnt, coords=(0, 32 * w))                # tl.store(expert_start_loc + offset_cumsum)  # expect-error: sync.race
        lm.copy(cur, ExpertStart, coords=(0, e))                     # tl.load(expert_start_loc + cur_expert)  # expect-error: sync.race
