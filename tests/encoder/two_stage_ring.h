// A ring streamed in pairs of stages (DeepGEMM's K blocks of all its
// stages), shared by trip_quotient_test.cpp and trip_loop_guard_test.cpp
// (a header of its own: test_util.h is included by every encoder test).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include <gtest/gtest.h>

#include "encoder/simulator.h"
#include "test_util.h"

namespace cake::testing {

// kRingEnd's declarations with a K loop over k_pairs = lm.cdiv(K, 128)
// pairs of ring stages, it = (t * k_pairs + k) * 2 + s: the producer's
// stage after its empty wait is `produce`; the consumer runs `per_tile`
// at each tile's start and `consume` after its full wait, then the
// statements of `after` (the tile's end).
inline std::string twoStageRing(const std::string& produce, const std::string& per_tile, const std::string& consume,
                                const std::string& after = "") {
  const std::string ring = kRingEnd;
  const std::string stage = R"(            for k in lm.range(0, k_pairs):
                for s in lm.range(0, 2):
                    it = (t * k_pairs + k) * 2 + s
)";
  return ring.substr(0, ring.find("    k_tiles = lm.cdiv(K, 64)\n")) + R"(    k_blocks = lm.cdiv(K, 64)
    k_pairs  = lm.cdiv(K, 128)
    tiles    = lm.cdiv(M, 64)
    with producer:
        for t in lm.range(0, tiles):
)" + stage + "                    lm.wait(empty, iter=it - 4)\n" + produce +
         "    with consumer:\n        for t in lm.range(0, tiles):\n" + per_tile + stage +
         "                    lm.wait(full, iter=it)\n" + consume + after;
}

// The explicit engine at M = 64 * tiles and K = k.
inline encoder::Outcome ringAt(const ir::Schedule& x, int64_t tiles, int64_t k) {
  return exploreToFirst(x, bind(x, {{"M", 64 * tiles}, {"K", k}})).outcome;
}

// Clean on the explicit engine at every tile count and K listed.
inline void expectCleanAt(const ir::Schedule& x, std::initializer_list<int64_t> tiles,
                          std::initializer_list<int64_t> ks) {
  for (int64_t t : tiles)
    for (int64_t k : ks) EXPECT_EQ(ringAt(x, t, k), encoder::Outcome::Pass) << t << " tiles, K = " << k;
}

// DeepGEMM's tail stages on the two-stage ring with lm.assume(K % 128 ==
// 0) (trip_loop_guard_test.cpp; docs/z3.md "Guards the loops' ranges
// decide"): the producer loads only `if 2 * k + s < k_blocks` (else arrives
// with no bytes), the consumer runs its MMA and release under the same guard.
inline std::string deepGemmTailStages() {
  const std::string text = twoStageRing(R"(                    if 2 * k + s < k_blocks:
                        smem_a.tma_load(A, coords=(t * 64, (2 * k + s) * 64), iter=it, barrier=full)
                        smem_b.tma_load(B, coords=(0, (2 * k + s) * 64), iter=it, barrier=full)
                    else:
                        lm.arrive(full, iter=it)
)",
                                        "            lm.fill(out, 0.0)\n", R"(                    if 2 * k + s < k_blocks:
                        lm.mma(acc, smem_a[it], smem_b[it], init=True)
                        lm.mma_commit()
                        lm.mma_wait(pending=0)
                        lm.arrive(empty, iter=it)
                        lm.binary(out, out, acc, op="add")
                    else:
                        lm.arrive(empty, iter=it)
)");
  return withFactOnK(text, "K % 128 == 0");
}

}  // namespace cake::testing
