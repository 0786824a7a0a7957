// The lap exploration's cycle proviso checked on the explored graph, and
// heads below the trip count's lower bound (docs/z3.md "The lap
// exploration's proviso and heads below the trip count's bound"): two
// known-good corpus files that used up the default work budget of 3e9 units
// are proved within it, and were not without each part; their broken forms
// (the corpus's and variants written here, each a bug the bounded check
// reports) are not proved.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "encoder/simulator.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

using namespace cake;

namespace {

constexpr uint64_t kProvisoDefaultWork = 3'000'000'000;

// The proof at `cake check`'s default work budget, under the deterministic
// limits of test_util.h.
encoder::ModelCheckResult provisoProve(const ir::Schedule& s, bool checked_proviso = true,
                                       bool exits_from_bound = true) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.timeout_ms = cake::testing::kNoWallClockMs;
  o.rlimit = cake::testing::kQueryRlimit;
  o.work = kProvisoDefaultWork;
  o.checked_proviso = checked_proviso;
  o.exits_from_bound = exits_from_bound;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

// The work units a proved verdict reports ("... [N work units]").
uint64_t provisoWork(const std::string& engine) {
  const size_t at = engine.rfind('[');
  return at == std::string::npos ? 0 : std::strtoull(engine.c_str() + at + 1, nullptr, 10);
}

// Each edit (which must apply) of `text` is a broken schedule: the bounded
// check meets a violation at `values`, and the proof does not prove it.
void provisoBrokenNotProved(const std::string& text, const std::vector<std::pair<std::string, std::string>>& edits,
                            std::initializer_list<std::pair<std::string, int64_t>> values) {
  for (const auto& [from, to] : edits) {
    const ir::Module m = cake::testing::compile(cake::testing::replace(text, from, to));
    ASSERT_FALSE(m.schedules.empty()) << from;
    const ir::Schedule& s = m.schedules.at(0);
    EXPECT_TRUE(cake::testing::violatedAt(s, values)) << "not broken: " << from;
    const encoder::ModelCheckResult r = provisoProve(s);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << from << "\n" << r.engine;
    std::cout << "[ broken form: " << r.detail.substr(0, 150) << " ]\n";
  }
}

void provisoCorpusNotProved(const std::string& rel) {
  const ir::Module m = cake::testing::compile(cake::testing::corpusText(rel));
  ASSERT_FALSE(m.schedules.empty()) << rel;
  const encoder::ModelCheckResult r = provisoProve(m.schedules.at(0));
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << rel << "\n" << r.engine;
}

// `rel` (a known-good corpus file) is proved within the default budget and
// is unknown (work budget) with one part off (`checked_proviso` or
// `exits_from_bound`, as given); returns its text.
std::string provisoProvedOnlyWith(const std::string& rel, bool checked_proviso, bool exits_from_bound,
                                  const std::string& without) {
  const std::string text = cake::testing::corpusText(rel);
  const ir::Module m = cake::testing::compile(text);
  EXPECT_FALSE(m.schedules.empty()) << rel;
  if (m.schedules.empty()) return text;
  const encoder::ModelCheckResult r = provisoProve(m.schedules.at(0));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_LE(provisoWork(r.engine), kProvisoDefaultWork);
  const encoder::ModelCheckResult before = provisoProve(m.schedules.at(0), checked_proviso, exits_from_bound);
  EXPECT_EQ(before.outcome, encoder::Outcome::Unknown) << before.engine;
  EXPECT_NE(before.detail.find("work budget"), std::string::npos) << before.detail;
  std::cout << "[ " << rel << ": " << r.states << " states, " << provisoWork(r.engine) << " units; " << without
            << ": " << before.detail << " ]\n";
  return text;
}

}  // namespace

// Two epilogue warps (instances of one role), each with its own load stages
// and barriers: at every loop head one of them entered an iteration, which
// touched the trip count for the reducer, and the other's window reached a
// head and took its exit paths whole, so they were never independent. Heads
// below the trip count's lower bound touch nothing of it now.
TEST(LapProviso, IndependentWarpsProvedWithHeadsBelowTheBound) {
  // every head as before (the checked proviso on): the work budget runs out
  const std::string text = provisoProvedOnlyWith(
      "corpus/bugs/proxy.missing-fence/deepgemm_mega_moe_combine_load_stage_reuse_no_fence_fixed.cake", true, false,
      "with every head touching the trip count");
  provisoCorpusNotProved("corpus/bugs/proxy.missing-fence/deepgemm_mega_moe_combine_load_stage_reuse_no_fence.cake");
  provisoBrokenNotProved(
      text,
      {// the fence before the generic read, not after it: the refill's TMA write follows the read unfenced
       {"                lm.copy(x, ld[2 * w + it % 2])\n                lm.binary(red, red, x, op=\"add\")\n"
        "                lm.fence_proxy()",
        "                lm.fence_proxy()\n                lm.copy(x, ld[2 * w + it % 2])\n"
        "                lm.binary(red, red, x, op=\"add\")"},
       // the prefetch refills the stage about to be read
       {"stage=2 * w + (it + 1) % 2, phase=(it + 1) // 2", "stage=2 * w + it % 2, phase=(it + 1) // 2"},
       // the store buffer written again before the previous TMA store has read it
       {"            lm.tma_store_wait(pending=0)\n            lm.copy(st[w], red)", "            lm.copy(st[w], red)"}},
      {{"n_tok", 2}});
}

// Two TMA producers (A/B and the scale factors) of a 4-slot ring and one
// MMA consumer: nearly every state has a one-step persistent set, but with
// "every successor of a reduced state is new" as the proviso each state
// where two orders of the producers' landings meet again was expanded fully.
// The proviso checked on the explored graph (as for clusters) proves it.
TEST(LapProviso, TwoProducersProvedWithTheCheckedProviso) {
  const std::string text = provisoProvedOnlyWith(
      "corpus/bugs/sync.grid-dependency/cutlass_sm103_blockscaled_sf_load_before_pdl_wait_fixed.cake", false, true,
      "with fresh successors only");
  provisoCorpusNotProved("corpus/bugs/sync.grid-dependency/cutlass_sm103_blockscaled_sf_load_before_pdl_wait.cake");
  provisoBrokenNotProved(
      text,
      {// the A/B slot released (commit) before the MMA that reads it is issued
       {"            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))\n"
        "            lm.mma_commit(barrier=ab_empty, iter=k)",
        "            lm.mma_commit(barrier=ab_empty, iter=k)\n"
        "            lm.mma(tmem_acc, smem_a[k], smem_b[k], init=(k == 0))"},
       // the A/B producer waits for a release one lap too old (5 ahead on 4 slots)
       {"lm.wait(ab_empty, iter=k - 4)", "lm.wait(ab_empty, iter=k - 5)"},
       // the MMA does not wait for the scale factors
       {"            lm.wait(sf_full, iter=k)\n", ""},
       // the epilogue reads the accumulator before acc_full
       {"        lm.wait(acc_full, stage=0)\n", ""}},
      {{"K", 257}});
}
