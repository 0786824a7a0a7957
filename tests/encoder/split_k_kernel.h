// The split-K kernel of TLX's persistent GEMM (facebookexperimental/triton
// PR #1141), shared by the tests that attack its K loop's trip count:
// tile `tile` is split `tile // nmn` of K, the last split empty when
// cdiv(K, S) * (S - 1) >= K. bench/attacks/sound46_mutants.py reads kSplitK
// from here too.
#pragma once

#include <string>

namespace cake::testing::split_k {

// CONSUMER is the body of the consumer's tile loop.
inline const std::string kSplitK = R"(
@cake.schedule(target="sm_90a")
def split_k(lm, A: LM.tma2d, M: LM.i32, K: LM.i32, S: LM.i32):
    lm.assume(M >= 1)
    lm.assume(K >= 1)
    lm.assume(S >= 1)
    lm.assume(S <= 4)
    pool  = lm.smem(16384)
    a     = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    acc   = lm.regs(shape=(64, 64), dtype=lm.f32)
    prod  = lm.role(warps=[0])
    cons  = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=1, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=1, prod=[cons], cons=[prod], init_count=1)
    kp  = lm.cdiv(K, S)
    nmn = lm.cdiv(M, 128)
    with prod:
        for tile in lm.range(lm.block_idx(0), nmn * S, 4):
            for k in lm.range(0, min(tile // nmn * kp + kp, K) - tile // nmn * kp):
                lm.wait(empty, stage=0)
                a.tma_load(A, coords=(0, (tile // nmn * kp + k) * 64), stage=0, barrier=full)
    with cons:
        lm.arrive(empty, stage=0)
        for tile in lm.range(lm.block_idx(0), nmn * S, 4):
CONSUMER
)";

// The first K step peeled out of the loop, as TLX's MMA task does.
inline const std::string kPeeled = R"(            lm.wait(full, stage=0)
            lm.mma(acc, a[0], a[0], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, stage=0)
            for k in lm.range(1, min(tile // nmn * kp + kp, K) - tile // nmn * kp):
                lm.wait(full, stage=0)
                lm.mma(acc, a[0], a[0], init=False)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, stage=0))";

// `body` (a consumer tile loop's body) under `if guard:`.
inline std::string underGuard(const std::string& body, const std::string& guard) {
  std::string out = "            if " + guard + ":\n    ";
  for (char c : body) out += c == '\n' ? std::string("\n    ") : std::string(1, c);
  return out;
}

}  // namespace cake::testing::split_k
