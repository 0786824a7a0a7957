// Marlin's slice loop proved by the rotated restart argument (docs/z3.md
// "Marlin's slice loop proved: read-backs per instance, the rotation
// wired"): vLLM PR #11493's fix for every n_slices and K, a reduced form of
// its block reduction (three warps, a cp.async ring restarted per slice, the
// partial sums relayed through red[0] with a read-back in warp 1), and broken forms
// of the reduced kernel that the bounded check meets and the proof must not
// prove: the read-back in a wrong instance, a slice late, without the
// barrier before or after it, and the tail storing into what the next
// slice loads.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "encoder/trip_proof.h"
#include "encoder/trip_restart.h"
#include "encoder/trip_restart_rotate.h"
#include "first_rule.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;
using cake::testing::compile;
using cake::testing::proveText;
using cake::testing::replace;

namespace trip_marlin_slices_test {

const char* kMarlinSlicesFixed = "corpus/bugs/sync.race/vllm_marlin_block_reduce_scratch_aliases_a_stages_fixed.cake";
// In the rotated restart form, but its one-call proof is refused: proved
// by lap induction over the whole call loop instead.
const char* kMarlinSlicesKokkosFixed = "corpus/bugs/data.stale-read/kokkos_inter_warp_reduction_stage_named_fixed.cake";

// Three warps restart a three-stage cp.async ring at stage 0 in every
// slice (each loads its band of a stage, all read the whole stage: the
// two-warp kernel of restart_slices.h with a third warp), each sums the
// stages it reads into `acc`; after the drain warp 2 hands its sum to warp
// 1 through red[0], warp 1 adds it and writes the total back to red[0] (a
// read-back: it reads the index, then writes it, once per slice), warp 0
// adds that and, after the slice's last barrier (the cut), stores the
// result. The guards read only lm.instance(): fixed per warp and slice.
// The ring restarted per slice keeps the persistent proof off it, as for
// Marlin.
const char* kReduce = R"(@cake.schedule(target="sm_80")
def marlin_reduce(lm, A: LM.gmem, C: LM.gmem, n: LM.i32, K: LM.i32):
    lm.assume(K >= 64)
    pool = lm.smem(16384)
    sa   = pool.view(offset=0, shape=(24, 64), dtype=lm.f16, stages=3)
    band = pool.view(offset=0, shape=(8, 64), dtype=lm.f16, stages=9)
    red  = pool.view(offset=12288, shape=(24, 64), dtype=lm.f16, stages=1)
    r    = lm.regs(shape=(24, 64), dtype=lm.f16)
    acc  = lm.regs(shape=(24, 64), dtype=lm.f16)
    t0   = lm.regs(shape=(24, 64), dtype=lm.f16)
    warps = lm.role(warps=[0, 1, 2], group=1)
    bar   = lm.named_barrier(roles=[warps])
    k_tiles = lm.cdiv(K, 64)
    with warps:
        w = lm.instance()
        for s in lm.range(0, n):
            for i in lm.range(0, 2):
                if i < k_tiles:
                    band.cp_async(A, coords=(8 * w, 64 * i), stage=3 * i + w)
                lm.cp_async_commit()
            lm.copy(acc, A, coords=(0, 64 * s))
            for k in lm.range(0, k_tiles):
                lm.cp_async_wait(pending=1)
                lm.sync(bar)
                if k + 2 < k_tiles:
                    band.cp_async(A, coords=(8 * w, 64 * (k + 2)), stage=3 * ((k + 2) % 3) + w)
                lm.cp_async_commit()
                lm.copy(r, sa[k % 3])
                lm.binary(acc, acc, r, op="add")
            lm.cp_async_wait(pending=0)
            if w == 2:
                lm.copy(red[0], acc)
            lm.sync(bar)
            if w == 1:
                lm.copy(t0, red[0])
                lm.binary(acc, acc, t0, op="add")
                lm.copy(red[0], acc)
            lm.sync(bar)
            if w == 0:
                lm.copy(t0, red[0])
                lm.binary(acc, acc, t0, op="add")
            lm.sync(bar)
            if w == 0:
                lm.copy(C, acc, coords=(0, 64 * s))
)";

const char* kReadBack =
    "            if w == 1:\n"
    "                lm.copy(t0, red[0])\n"
    "                lm.binary(acc, acc, t0, op=\"add\")\n"
    "                lm.copy(red[0], acc)\n";
const char* kFirstSync =
    "                lm.copy(red[0], acc)\n"
    "            lm.sync(bar)\n"
    "            if w == 1:\n";
const char* kSecondSync =
    "                lm.copy(red[0], acc)\n"
    "            lm.sync(bar)\n"
    "            if w == 0:\n";

std::string marlinSlicesReadBacks(const std::string& text) {
  const ir::Module m = compile(text);
  if (m.schedules.empty()) return "no schedule";
  const auto rot = encoder::trip::rotatedRestartForm(m.schedules[0]);
  if (!rot.ok) return "not rotated: " + rot.reason;
  return encoder::trip::restartReadBacks(rot.text);
}

struct MarlinSlicesBroken {
  const char* what;
  std::string text;
  int64_t n, K;      // where the bounded check meets it
  const char* rule;  // what it meets there
  bool clean_in_one_slice;
};

std::vector<MarlinSlicesBroken> marlinSlicesBrokenForms() {
  const std::string ok = kReduce;
  return {
      // warp 2 joins warp 1's read-back: both read red[0] and write it
      // between the same two barriers
      {"the read-back in a wrong instance too", replace(ok, "            if w == 1:\n                lm.copy(t0, red[0])\n",
                                                        "            if w >= 1:\n                lm.copy(t0, red[0])\n"),
       1, 64, "sync.race", false},
      // warp 2 writes its partial sum after the cut: warp 1's read-back
      // reads the previous slice's (in the first slice: nothing written)
      {"the read-back a slice late",
       replace(replace(ok, "            if w == 2:\n                lm.copy(red[0], acc)\n", ""),
               "                lm.copy(C, acc, coords=(0, 64 * s))\n",
               "                lm.copy(C, acc, coords=(0, 64 * s))\n            if w == 2:\n                lm.copy(red[0], acc)\n"),
       1, 64, "data.stale-read", false},
      // no barrier between warp 2's write and warp 1's read-back
      {"the read-back without the barrier before it",
       replace(ok, kFirstSync, "                lm.copy(red[0], acc)\n            if w == 1:\n"), 1, 64, "data.stale-read",
       false},  // the bounded check meets the read of nothing first, the race too (cake check reports both)
      // no barrier between warp 1's write-back and warp 0's read
      {"the read-back without the barrier after it", replace(ok, kSecondSync, "                lm.copy(red[0], acc)\n            if w == 0:\n"),
       1, 64, "sync.race", false},
      // warp 0's tail stores into A where the other warps' next slice loads
      // from: after the cut nothing orders them (A is read and written, so
      // the model compares its accesses)
      {"the tail stores into what the next slice loads",
       replace(replace(ok, "            lm.copy(acc, A, coords=(0, 64 * s))\n", "            lm.copy(acc, A, coords=(0, 0))\n"),
               "                lm.copy(C, acc, coords=(0, 64 * s))\n", "                lm.copy(A, acc, coords=(0, 0))\n"),
       2, 64, "sync.race", true},
  };
}

}  // namespace trip_marlin_slices_test

// The reduced form: clean for a few slice counts and K, its read-back
// admitted per instance (warp 1 reads red[0] before writing it, under
// `if w == 1:`), and proved for every n and K by the rotated restart
// argument.
TEST(TripMarlinSlices, ReducedFormIsProvedForEverySliceCount) {
  using namespace trip_marlin_slices_test;
  for (int64_t n : {0, 1, 2, 3})
    for (int64_t K : {64, 65, 129}) EXPECT_EQ(cake::testing::firstRuleAt(kReduce, {{"n", n}, {"K", K}}), "") << n << " " << K;
  EXPECT_EQ(marlinSlicesReadBacks(kReduce), "");
  const auto r = proveText(kReduce);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("the slice loop over n cut at its last top-level lm.sync"), std::string::npos) << r.engine;
  // a sync before the slice loop: the rotation holds, the wiring refuses
  // it (the zero-slice system would run it, and it is not proved)
  const std::string pre = replace(kReduce, "        for s in lm.range(0, n):\n", "        lm.sync(bar)\n        for s in lm.range(0, n):\n");
  EXPECT_TRUE(encoder::trip::rotatedRestartForm(compile(pre).schedules.at(0)).ok);
  const auto with_pre = proveText(pre);
  EXPECT_NE(with_pre.outcome, encoder::Outcome::Proved) << with_pre.engine;
  EXPECT_NE(with_pre.detail.find("the slice loop has code before it"), std::string::npos) << with_pre.detail;
}

// The read-back form per instance: a guard that reads more than
// lm.instance(), a second read-back per slice and a second write are
// refused; each is named by its instance.
TEST(TripMarlinSlices, ReadBacksPerInstanceOutsideTheFormAreRefused) {
  using namespace trip_marlin_slices_test;
  const std::string guarded = replace(kReduce, kReadBack,
                                      "            if w == 1:\n"
                                      "                lm.copy(t0, red[0])\n"
                                      "                lm.binary(acc, acc, t0, op=\"add\")\n"
                                      "                if K > 1:\n"
                                      "                    lm.copy(red[0], acc)\n");
  EXPECT_NE(marlinSlicesReadBacks(guarded).find("guard reads more than lm.instance()"), std::string::npos)
      << marlinSlicesReadBacks(guarded);
  const std::string twice = replace(kReduce, kReadBack,
                                    std::string(kReadBack) + "                lm.copy(t0, red[0])\n");
  EXPECT_NE(marlinSlicesReadBacks(twice).find("warps[1] reads red[0] back 2 times"), std::string::npos)
      << marlinSlicesReadBacks(twice);
  const std::string two_writes = replace(kReduce, kReadBack,
                                         std::string(kReadBack) + "                lm.copy(red[0], acc)\n");
  EXPECT_NE(marlinSlicesReadBacks(two_writes).find("warps[1] writes red[0] 2 times"), std::string::npos)
      << marlinSlicesReadBacks(two_writes);
}

// Each broken form: met by the bounded check where it says (the tail's
// store only from the second slice), and not proved. (Warp 1 reading red[0]
// again after the cut, or the slice's closing barrier dropped, is no bug in
// this kernel: the next slice's K loop syncs before warp 2 writes red[0].)
TEST(TripMarlinSlices, BrokenReducedFormsAreMetAndNotProved) {
  using namespace trip_marlin_slices_test;
  const auto bad = marlinSlicesBrokenForms();
  ASSERT_EQ(bad.size(), 5u);
  for (const MarlinSlicesBroken& b : bad) {
    EXPECT_EQ(cake::testing::firstRuleAt(b.text, {{"n", b.n}, {"K", b.K}}), b.rule) << b.what;
    if (b.clean_in_one_slice)
      for (int64_t K : {64, 65, 129}) EXPECT_EQ(cake::testing::firstRuleAt(b.text, {{"n", 1}, {"K", K}}), "") << b.what << " " << K;
    const auto r = proveText(b.text);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
  }
  // the tail's store is refused by the rotation, not left to the one slice
  const auto tail = encoder::trip::rotatedRestartForm(compile(bad[4].text).schedules.at(0));
  EXPECT_NE(tail.reason.find("the global tensor A is touched after the cut and before it"), std::string::npos)
      << tail.reason;
}

// The corpus file: proved for every n_slices and K by the rotated restart
// argument (its one slice by lap induction over lm.cdiv(K, 64)).
TEST(TripMarlinSlices, MarlinFixIsProvedForEverySliceCount) {
  using namespace trip_marlin_slices_test;
  const std::string text = cake::testing::corpusText(kMarlinSlicesFixed);
  EXPECT_EQ(marlinSlicesReadBacks(text), "");
  const auto r = proveText(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("the slice loop over n_slices"), std::string::npos) << r.engine;
}

// The restart argument is asked first of a schedule in the restart form
// (encoder/trip_proof.cpp proveEveryTripCount): where it does not prove,
// the argument for the whole schedule still does, as before, on the whole
// budget (the failed attempt's work not counted).
TEST(TripMarlinSlices, RestartFormNotProvedByRestartFallsBackToTheWholeSchedule) {
  using namespace trip_marlin_slices_test;
  const std::string text = cake::testing::corpusText(kMarlinSlicesKokkosFixed);
  const auto m = compile(text);
  ASSERT_FALSE(m.schedules.empty());
  EXPECT_TRUE(encoder::trip::restartForm(m.schedules[0]).ok || encoder::trip::rotatedRestartForm(m.schedules[0]).ok);
  const auto r = proveText(text);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_EQ(r.engine.find("restart argument"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("lap induction"), std::string::npos) << r.engine;
}
