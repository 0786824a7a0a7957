# FIXED form of ik_llama_delta_net_sk_next_token_no_barrier.cake
# (ikawrakow/ik_llama.cpp PR #1649): a __syncthreads() after the state
# update, so every warp has read token t's sK before any warp writes token
# t+1's key over it.
# expect: pass
@cake.schedule(target="sm_80")
def ik_llama_delta_net_recurrent_fixed(lm, Q: LM.gmem, K: LM.gmem, V: LM.gmem, O: LM.gmem,
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
            lm.copy(s_k[w], k)                        
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
                lm.copy(kc, s_k[c])                   
                lm.binary(part, acc, kc, op="mul")
                lm.binary(state, state, part, op="add")
            lm.sync(block)                              # the fix: sK reads done before the next token
