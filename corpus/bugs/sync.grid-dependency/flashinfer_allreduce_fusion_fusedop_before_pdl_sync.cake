# BUG (sync.grid-dependency): flashinfer-ai/flashinfer PR #5081 ("fix(comm):
# construct FusedOp after the PDL grid dependency sync", open 2026-09-10).
# include/flashinfer/comm/trtllm_allreduce_fusion.cuh: in
# allreduce_fusion_kernel_oneshot_lamport (and _twoshot_sync) the FusedOp
# is constructed before cudaGridDependencySynchronize(); its constructor
# loads rms_gamma and this thread's first residual_in row (and, for the
# quantized patterns, dereferences scale_factor).  Launched with PDL the
# kernel can start while its stream predecessor is still writing
# residual_in, so those loads may see the pre-completion values, and
# FusedOp::update() reloads only when the access id changes, so the stale
# first row reaches residual_out and norm_out (vLLM's layer-0
# AllReduceRMSNormPattern: one kernel writes the embedding output and a
# freshly zeroed residual, then the fused op runs on them).  The fix
# moves both constructions after the grid dependency sync.
# Modelled (sm_90a): one token row of hidden size 1024 per CTA, 4 warps
# each its own instance with 256 columns of the row; ResidualIn and the
# all-reduce input Input are grid dependencies (the preceding grid writes
# them); Gamma (weights) is not.  The one-shot Lamport all-reduce is the
# sum of the peers' rows, here read from Input (the IR has no peer
# buffers); the RMS is reduced through a shared scratch.  Left out: the
# Lamport flag polling and buffer clearing, the quantized outputs.
# Fix: flashinfer_allreduce_fusion_fusedop_before_pdl_sync_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_90a")
def flashinfer_allreduce_fusion_fusedop_before_pdl_sync(lm, Input: LM.gmem, ResidualIn: LM.gmem, Gamma: LM.gmem,
                                                       ResidualOut: LM.gmem, NormOut: LM.gmem):
    lm.grid_dependency(Input)
    lm.grid_dependency(ResidualIn)
    pool  = lm.smem(1024)
    s_sum = pool.view(offset=0, shape=(1, 4), dtype=lm.f32, stages=1)
    gamma = lm.regs(shape=(1, 256), dtype=lm.f32)
    res   = lm.regs(shape=(1, 256), dtype=lm.f32)
    x     = lm.regs(shape=(1, 256), dtype=lm.f32)
    sq    = lm.regs(shape=(1, 256), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    sums  = lm.regs(shape=(1, 4), dtype=lm.f32)
    tot   = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    cta   = lm.named_barrier(roles=[warps])

    tok = lm.block_idx(0)

    with warps:
        w  = lm.instance()
        c0 = 256 * w
        # BUG: FusedOp fused_op(params, access_id, access_id_in_token) before the PDL sync
        lm.copy(gamma, Gamma, coords=(0, c0))                      # rms_gamma (weights)
        # first residual_in row
        lm.copy(res, ResidualIn, coords=(tok, c0))   # expect-error: sync.grid-dependency
        lm.grid_dep_wait()                                         # cudaGridDependencySynchronize()
        lm.copy(x, Input, coords=(tok, c0))                        # the all-reduced row
        lm.binary(x, x, res, op="add")                             # + residual
        lm.copy(ResidualOut, x, coords=(tok, c0))
        lm.binary(sq, x, x, op="mul")
        lm.reduce(part, sq, op="sum", axis=1)
        lm.copy(s_sum[0][:, w:w + 1], part)
        lm.sync(cta)
        lm.copy(sums, s_sum[0])
        lm.reduce(tot, sums, op="sum", axis=1)
        lm.binary(tot, tot, 0.0009765625, op="mul")
        lm.unary(tot, tot, op="rsqrt")
        lm.binary(x, x, tot, op="mul")
        lm.binary(x, x, gamma, op="mul")
        lm.copy(NormOut, x, coords=(tok, c0))
