// Attacks on lap induction (encoder/trip_proof.h, docs/z3.md "Proofs for
// every trip count"): broken schedules written to fool the proof, each
// with a bug that shows only at a large trip count (a guard `if k == 37`,
// `k % 5 == 4` against a ring of 4, a stale phase from lap 3 on), only in
// the last tile of a persistent kernel, only at odd tiles, through an
// aliasing view, in one role's arrival count, in a named barrier's
// participants or in the count of cp.async groups. For each:
//  * the explicit engine finds the violation at the witness values (the
//    variant is broken: the test cannot pass on a correct schedule);
//  * the proof for every trip count does not answer Proved (under `cake
//    check`'s default budget of work);
//  * `cake check`'s model checker reports a sync./data./proxy. finding
//    where the covering values reach the bug, and says at most "checked"
//    where they do not.
// The base schedules themselves are clean (and proved): the attacks are
// one edit away from a proved schedule.
#include <gtest/gtest.h>

#include "attack_util.h"

using namespace cake;
using namespace cake::testing::attacks;

TEST(TripAttacks, RingOfFourLateLaps) {
  attack(kRing4, {{"K", 9}},
         {
             {{{"iter=k - 4)", "iter=k - 5)"}}, "producer waits for the slot before the one it fills", {{"K", 6}}},
             {{{"iter=k - 4)", "iter=k - 8)"}}, "producer waits two laps back (a stale phase)", {{"K", 9}}},
             {{{kProdWait, "            if k != 37:\n                lm.wait(empty, iter=k - 4)\n"}},
              "producer skips its wait at k == 37",
              {{"K", 38}}},
             {{{kProdWait, "            if k % 5 != 4:\n                lm.wait(empty, iter=k - 4)\n"}},
              "producer skips its wait when k % 5 == 4 (a ring of 4)",
              {{"K", 5}}},
             {{{kProdWait, "            if k < 12:\n                lm.wait(empty, iter=k - 4)\n"}},
              "producer stops waiting from lap 3 on",
              {{"K", 13}}},
             {{{kConsWait,
                "            if k // 4 == 3:\n                lm.wait(full, iter=k - 4)\n            else:\n"
                "                lm.wait(full, iter=k)\n"}},
              "consumers wait for the previous lap's phase at lap 3",
              {{"K", 13}}},
             {{{kConsWait,
                "            if k >= 12:\n                lm.wait(full, iter=k + 4)\n            else:\n"
                "                lm.wait(full, iter=k)\n"}},
              "consumers wait for the next lap's phase from lap 3 on",
              {{"K", 13}}},
             {{{kConsArrive, "            if k != 37:\n                lm.arrive(empty, iter=k)\n"}},
              "consumers skip their release at k == 37",
              {{"K", 42}}},
             {{{kConsArrive, "            if k < 8 or k % 4 != 3 or lm.instance() == 0:\n"
                             "                lm.arrive(empty, iter=k)\n"}},
              "consumers[1] skips its release of slot 3 from lap 2 on",
              {{"K", 16}}},
             {{{"init_count=1)", "init_count=2)"}}, "full counts two arrivals, the producer gives one", {{"K", 1}}},
             {{{"init_count=2)", "init_count=1)"}}, "empty counts one arrival, two consumers give one each", {{"K", 5}}},
             {{{"init_count=2)", "init_count=3)"}}, "empty counts three arrivals", {{"K", 5}}},
             {{{"            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=k)\n",
                "            lm.arrive(empty, iter=k)\n            lm.mma_wait(pending=0)\n"}},
              "slot released before the wgmma retired",
              {{"K", 5}}},
             {{{"lm.mma_wait(pending=0)", "lm.mma_wait(pending=1)"}},
              "one wgmma group in flight, the current slot released",
              {{"K", 5}}},
             {{{"smem_a[k][m0", "smem_a[k + 4][m0"}}, "consumers read the next lap's generation", {{"K", 1}}},
             {{{"smem_b[k], init", "smem_b[k - 8 * (k // 8)], init"}},
              "consumers read lap 0's data again from lap 2 on",
              {{"K", 9}}},
             {{{"offset=65536", "offset=49152"}}, "smem_b aliases smem_a's fourth stage", {{"K", 4}}},
         });
}

// Persistent kernels (kRingEnd: one wgmma group in flight, the tile's last
// slot released after the K loop): bugs of one tile only, of the last
// tile, of odd tiles, and a ring index that drifts from tile to tile.
TEST(TripAttacks, PersistentTiles) {
  using cake::testing::kRingEnd;
  const std::string post =
      "            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n";
  auto tk = [](int64_t tiles, int64_t k) {
    return std::vector<std::pair<std::string, int64_t>>{{"M", 64 * tiles}, {"K", 64 * k}};
  };
  attack(kRingEnd, tk(3, 5),
         {
             {{{post, "            lm.mma_wait(pending=0)\n            if t != 5:\n"
                      "                lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n"}},
              "tile 5 does not release its last slot",
              tk(10, 1)},
             {{{post, "            if t + 1 < tiles:\n                lm.mma_wait(pending=0)\n"
                      "            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n"}},
              "the last tile releases its last slot before the wgmma retired",
              tk(1, 1)},
             {{{post, "            if t % 3 != 2:\n                lm.mma_wait(pending=0)\n"
                      "            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n"}},
              "every third tile releases its last slot before the wgmma retired",
              tk(4, 1)},
             {{{"lm.wait(full, iter=it)", "lm.wait(full, iter=k)"}},
              "the consumer's ring index restarts every tile",
              tk(2, 1)},
             {{{"lm.wait(empty, iter=it - 4)", "lm.wait(empty, iter=it - 4 - 4 * (t % 2))"}},
              "odd tiles' producer waits two laps back",
              tk(2, 5)},
             {{{"it = t * k_tiles + k", "it = t * (k_tiles + 1) + k"}},
              "the producer's ring index skips a slot every tile",
              tk(2, 1)},
             {{{"if k > 0:", "if k > 1:"}}, "the first iteration's slot is never released", tk(1, 6)},
             {{{"iter=t * k_tiles + k_tiles - 1)", "iter=t * k_tiles + k_tiles - 1 - (t // 3))"}},
              "from tile 3 on the release after the K loop names an older slot",
              tk(8, 2)},
             {{{"lm.copy(out, acc)", "if t + 1 == tiles:\n                lm.mma(acc, smem_a[0], smem_b[0])\n"
                                     "            lm.copy(out, acc)"}},
              "the last tile reads slot 0 after releasing it",
              tk(2, 5)},
         });
}

// A table written once and read every iteration under a named barrier
// (kTableReadEveryIteration): participants and writes off in some
// iterations only.
TEST(TripAttacks, NamedBarrierLaps) {
  const std::string loop = "        for k in lm.range(0, K):\n";
  const std::string last_sync = "            lm.sync(cta)\n";
  attack(cake::testing::kTableReadEveryIteration, {{"K", 9}},
         {
             {{{loop, loop + "            if w == 0 and k == 37:\n                lm.copy(tab[0], v)\n"}},
              "warp 0 rewrites the table at k == 37",
              {{"K", 38}}},
             {{{loop, loop + "            if w == 0 and k % 5 == 4:\n                lm.copy(tab[0], v)\n"}},
              "warp 0 rewrites the table when k % 5 == 4",
              {{"K", 5}}},
             {{{last_sync, "            if w == 0 or k != 5:\n                lm.sync(cta)\n"}},
              "warp 1 skips the barrier at k == 5",
              {{"K", 7}}},
             {{{last_sync, "            if w == 1 or k < 12:\n                lm.sync(cta)\n"}},
              "warp 0 stops syncing from k == 12 on",
              {{"K", 14}}},
             {{{"        lm.sync(cta)\n        for", "        for"}},
              "the table's write is not synchronized before the loop",
              {{"K", 1}}},
             {{{"            lm.copy(v, tab[0])\n",
                "            lm.copy(v, tab[0])\n            if w == 1 and k + 1 == K:\n"
                "                lm.copy(tab[0], v)\n"}},
              "warp 1 writes the table in the last iteration",
              {{"K", 1}}},
         });
}

// A 4-stage cp.async ring (sm_80, one warpgroup): group counts off in some
// iterations only.
namespace {

const std::string kCpAsync4 = R"(@cake.schedule(target="sm_80")
def cp4(lm, A: LM.gmem, B: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(131072)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_b = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    with wg:
        for s in lm.range(0, 3):
            if s < K:
                smem_a.cp_async(A, coords=(0, s * 64), stage=s)
                smem_b.cp_async(B, coords=(0, s * 64), stage=s)
            lm.cp_async_commit()
        for k in lm.range(0, K):
            lm.cp_async_wait(pending=2)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            if k + 3 < K:
                smem_a.cp_async(A, coords=(0, (k + 3) * 64), iter=k + 3)
                smem_b.cp_async(B, coords=(0, (k + 3) * 64), iter=k + 3)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
)";

}  // namespace

TEST(TripAttacks, CpAsyncGroups) {
  const std::string wait = "            lm.cp_async_wait(pending=2)\n";
  const std::string commit = "            lm.cp_async_commit()\n        lm.cp_async_wait(pending=0)";
  attack(kCpAsync4, {{"K", 9}},
         {
             {{{"lm.cp_async_wait(pending=2)", "lm.cp_async_wait(pending=3)"}},
              "three groups left pending: the current tile has not landed",
              {{"K", 1}}},
             {{{commit, "            if k != 6:\n                lm.cp_async_commit()\n"
                        "        lm.cp_async_wait(pending=0)"}},
              "no commit at k == 6: later waits retire one group too few",
              {{"K", 8}}},
             {{{commit, "            if k % 5 != 4:\n                lm.cp_async_commit()\n"
                        "        lm.cp_async_wait(pending=0)"}},
              "no commit when k % 5 == 4",
              {{"K", 6}}},
             {{{wait, "            if k % 4 == 3:\n                lm.cp_async_wait(pending=3)\n"
                      "            else:\n                lm.cp_async_wait(pending=2)\n"}},
              "the fourth slot's wait leaves three groups pending",
              {{"K", 4}}},
             {{{wait, "            if k == 37:\n                lm.cp_async_wait(pending=3)\n"
                      "            else:\n                lm.cp_async_wait(pending=2)\n"}},
              "the wait at k == 37 leaves three groups pending",
              {{"K", 38}}},
             {{{"if k + 3 < K:", "if k + 4 < K:"}}, "the last tile is never loaded", {{"K", 4}}},
             {{{"for s in lm.range(0, 3):", "for s in lm.range(0, 2):"}},
              "the prologue commits two groups, the loop waits as for three",
              {{"K", 1}}},
             {{{"stages=4", "stages=3"},
               {"            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))\n"
                "            if k + 3 < K:",
                "            if k + 3 < K:"},
               {"            lm.cp_async_commit()\n        lm.cp_async_wait(pending=0)",
                "            lm.cp_async_commit()\n            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))\n"
                "        lm.cp_async_wait(pending=0)"}},
              "smem_a in 3 slots: the prefetch overwrites the slot before the tile is read",
              {{"K", 5}}},
         });
}

// Bugs past the values a plain covering set would take (each loop at a
// few trip counts): the proof must not say proved, and since session 38
// (cover38's reach targets: a step such as `k // 20` first taken past the
// ring's depth adds trip counts past it, docs/known-limits.md "Covering
// values past far thresholds") the bounded check reaches all six.
TEST(TripAttacks, PastTheCheckedValues) {
  attack(kRing4, {{"K", 9}},
         {
             {{{"smem_b[k], init", "smem_b[k + k // 20], init"}},
              "from k == 20 on the consumers read the next slot",
              {{"K", 21}},
              true},
             {{{"iter=k - 4)", "iter=k - 4 + 4 * (k // 24))"}},
              "from k == 24 on the producer waits for its own lap",
              {{"K", 25}},
              true},
             {{{kProdWait, "            if k * k != 169:\n                lm.wait(empty, iter=k - 4)\n"}},
              "producer skips its wait where k * k == 169",
              {{"K", 14}},
              true},
             {{{kProdWait, "            if (k * 7) % 23 != 8:\n                lm.wait(empty, iter=k - 4)\n"}},
              "producer skips its wait where 7k % 23 == 8 (k == 11)",
              {{"K", 12}},
              true},
             {{{kConsArrive, "            if k % 29 != 28 or lm.instance() == 0:\n"
                             "                lm.arrive(empty, iter=k)\n"}},
              "consumers[1] skips its release when k % 29 == 28",
              {{"K", 33}},
              true},
             {{{"smem_a[k][m0", "smem_a[k - 4 * (k // 40)][m0"}},
              "from k == 40 on the consumers read lap 0's slot data again",
              {{"K", 41}},
              true},
         });
}

// kRing4 with an epilogue through a view over the ring's bytes (each
// consumer stores its accumulator there after a named barrier: the other
// consumer's last wgmma may still read them before it): the barrier left
// out, or skipped at some trip counts only.
TEST(TripAttacks, EpilogueOverTheRing) {
  std::string base = cake::testing::replace(
      kRing4, "    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)\n",
      "    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)\n"
      "    epi    = pool.view(offset=49152, shape=(64, 64), dtype=lm.f32, stages=2)\n");
  base = cake::testing::replace(base, "    empty = lm.barrier(", "    bar   = lm.named_barrier(roles=[consumers])\n    empty = lm.barrier(");
  base += "        lm.sync(bar)\n        lm.copy(epi[lm.instance()], acc)\n";
  const std::string sync = "        lm.sync(bar)\n";
  attack(base, {{"K", 9}},
         {
             {{{sync, ""}}, "no barrier before the epilogue", {{"K", 1}}},
             {{{sync, "        if lm.instance() == 1:\n            lm.sync(bar)\n"}},
              "only consumers[1] syncs before the epilogue",
              {{"K", 1}}},
             {{{sync, "        if K % 16 != 12:\n            lm.sync(bar)\n"}},
              "the barrier skipped when K % 16 == 12",
              {{"K", 12}}},
             {{{sync, "        if K < 40:\n            lm.sync(bar)\n"}}, "the barrier skipped from K == 40 on", {{"K", 40}}},
         });
}
