# BUG (sync.race): ikawrakow/ik_llama.cpp PR #1649 ("fix: add missing
# __syncthreads in delta-net CUDA kernel", merged 2026-04-17).
# ggml/src/ggml-cuda/delta-net.cu, delta_net_recurrent_f32 (Qwen3-Next's
# Delta Net linear attention, HEAD_DIM = 128, one block per (sequence,
# head)).  The kernel walks the tokens in order; per token t:
#     sQ[i] = q[t][i] * scale;  sK[i] = k[t][i];   // i = tid (tid < HEAD_DIM)
#     attn_score = reduce_sum(sum_kq, sum_helper); // __syncthreads() inside
#     sum1/sum2 += state * sK[col] / sQ[col];     // col = warp, warp + 4, ...
#     all_sum1[warp][row] = sum1; all_sum2[...] = sum2;
#     __syncthreads();   // "I don't understand why we need this sync"
#     sum1 = sum(all_sum1[.][row]); ... sv_new, out[t][row]
#     state_local[i] = decay * state_local[i] + sv_new * sK[col];
#     // (BUG) no barrier: the next token's sK[i] = k[t+1][i] lands while a
#     // lagging warp still reads sK[col] of token t in its state update
# A lagging warp updates its state rows with token t+1's key.  The PR adds
# a __syncthreads() after the state update (and documents the existing
# barrier: it orders the all_sum writes before their reads).
# Modelled: block_size = 128, four one-warp instances; __syncthreads() is
# a named barrier over them; sQ / sK as four 32-float chunks (warp w's
# threads write chunk w); every warp reads all four chunks (its strided
# columns lie in every chunk); sum_helper and all_sum as one slot per
# warp; the state rows in registers (state_local).  Left out: the warp
# shuffles inside reduce_sum, sigmoid/exp of beta and g, the state clamp.
# Fix: ik_llama_delta_net_sk_next_token_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def ik_llama_delta_net_recurrent(lm, Q: LM.gmem, K: LM.gmem, V: LM.gmem, O: LM.gmem,
                                 n_tokens: LM.i32):
    lm.assume(n_tokens >= 1)
    pool   = lm.smem(2048)
    s_q    = pool.view(offset=0,    shape=(1, 32), dtype=lm.f32, stages=4)   # sQ
    s_k    = pool.view(offset=512,  shape=(1, 32), dtype=lm.f32, stages=4)   # sK
    helper = pool.view(offset=1024, shape=(1, 1),  dtype=lm.f32, stages=4)   # sum_helper
    allsum = pool.view(offset=1088, shape=(1, 32), dtype=lm.f32, stages=4)   # all_sum1
    q      = lm.regs(shape=(1, 32), dtype=lm.f32)
    k      = lm.regs(shape=(1, 32), dtype=lm.f32)
    kc     = lm.regs(shape=(1, 32), dtype=lm.f32)
    acc    = lm.regs(shape=(1, 32), dtype=lm.f32)
    part   = lm.regs(shape=(1, 32), dtype=lm.f32)
    state  = lm.regs(shape=(1, 32), dtype=lm.f32)   # state_local
    kq     = lm.regs(shape=(1, 1), dtype=lm.f32)
    oth    = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        lm.fill(state, 0.0)
        for t in lm.range(0, n_tokens):
            lm.copy(q, Q, coords=(t, 32 * w))
            lm.copy(s_q[w], q)                          # sQ[i] = q[t][i] * scale
            lm.copy(k, K, coords=(t, 32 * w))
            lm.copy(s_k[w], k)                          # expect-error: sync.race
            lm.binary(acc, q, k, op="mul")              # reduce_sum(sum_kq, sum_helper)
            lm.reduce(kq, acc, op="sum", axis=1)
            lm.copy(helper[w], kq)
            lm.sync(block)
            for i in lm.range(0, 4):
                lm.copy(oth, helper[i])
                lm.binary(kq, kq, oth, op="add")
            lm.fill(acc, 0.0)                           # sum1 over this warp's columns
            for c in lm.range(0, 4):
                lm.copy(kc, s_k[c])
                lm.binary(part, state, kc, op="mul")
                lm.binary(acc, acc, part, op="add")
                lm.copy(kc, s_q[c])
                lm.binary(acc, acc, kc, op="add")
            lm.copy(allsum[w], acc)
            lm.sync(block)                              # the barrier the PR documents
            lm.fill(acc, 0.0)
            for i in lm.range(0, 4):
                lm.copy(part, allsum[i])
                lm.binary(acc, acc, part, op="add")
            lm.copy(O, acc, coords=(t, 32 * w))         # out[t][row]
            for c in lm.range(0, 4):                    # state update reads sK[col]
                lm.copy(kc, s_k[c])                     # expect-error: sync.race
                lm.binary(part, acc, kc, op="mul")
                lm.binary(state, state, part, op="add")
            # BUG: no __syncthreads() before the next token overwrites sK
