// Holes in the bounded check that helper cover42's attack found
// (bench/attacks/cover42_guards.py; docs/z3.md "Guards combined with
// and/or/not, facts in any spelling"): a broken schedule that exited 0
// *checked* with nothing named on main, now found, and a correct one that was
// *unknown*, now clean, each beside twins:
//  * a split-K wait skipped from iteration 6 on block 2 only (`if k - k0 <
//    6 or lm.block_idx(1) != 2`): the flip goal was the comparison part
//    alone, placed on block 0, where the other part keeps the wait
//    (FlipGoal::guard: the whole guard's flip is placed);
//  * the correct residue-fact kernel with its fact spelled otherwise
//    (`(k_tiles + 3) % 3 == 0`): the fold read only `k_tiles % 3 == 0`, and
//    the ring guard stayed one the values cannot place (unknown); the
//    solver's implied residues fold it as the literal fact does
//    (checks/fact_residues.h), and its broken twins stay found.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "checks/check.h"
#include "checks/fact_residues.h"
#include "cover_kernels.h"
#include "split_k_range.h"
#include "test_util.h"

using namespace cake;

// The wait skipped from iteration 6 on block 2 races with the load of slot
// 6 % 4 there (found at kpc = 7, block 2; exit 0 *checked* on main); the
// twin whose other part is true on every block (`lm.block_idx(1) >= 0`)
// keeps every wait. The bounded check alone (the proof of the split-K range
// is unknown with a guard on k - k0). The far and `not`/`and` spellings
// (`not (k - k0 >= 40 and lm.block_idx(1) == 2)`, also 0 on main) are in
// bench/attacks/cover42_guards.py, not here: 3.7 s each.
TEST(Cover42, TheWholeGuardsFlipIsPlaced) {
  EXPECT_TRUE(cake::testing::cover::boundedVerdict(cake::testing::splitKWaitIf("k - k0 < 6 or lm.block_idx(1) != 2")).rules.count("sync.race"))
      << "the wait skipped from iteration 6 on block 2";
  const cake::testing::cover::BoundedVerdict twin = cake::testing::cover::boundedVerdict(cake::testing::splitKWaitIf("k - k0 < 6 or lm.block_idx(1) >= 0"));
  EXPECT_TRUE(twin.rules.empty()) << "a guard true on every block";
  EXPECT_FALSE(twin.unknown);
}

namespace cover42_test {

const char* const kResidueFixed = "corpus/bugs/sync.race/mkernel_ag_gemm_c_store_wait_residue_fact_fixed.cake";
const std::string kResidueFact = "    lm.assume(k_tiles % 3 == 0)\n";

// The residue-fact kernel (mKernel's AG+GEMM ring) with its fact `fact`.
std::string residueFact(const std::string& fact) {
  return cake::testing::replace(cake::testing::corpusText(kResidueFixed), kResidueFact, "    lm.assume(" + fact + ")\n");
}

}  // namespace cover42_test

namespace c42 = cover42_test;

// Facts that fix k_tiles % 3 == 0 in other spellings: the solver shows the
// residue (and none for a fact that leaves it open), the kernel is no longer
// unknown and clean; residue 1 in another spelling is the broken kernel
// (found: the C store races with the ring's next A load). Cost: 0.5 s.
TEST(Cover42, FactsInAnySpellingFixTheirResidues) {
  for (const std::string fact : {"(k_tiles + 3) % 3 == 0", "(2 * k_tiles) % 3 == 0", "k_tiles // 3 * 3 == k_tiles"}) {
    auto mod = cake::testing::compile(c42::residueFact(fact));
    const std::vector<ir::ResidueFact> implied = checks::impliedResidues(mod.schedules.at(0));
    ASSERT_EQ(implied.size(), 1u) << fact;
    EXPECT_EQ(implied[0].modulus, 3);
    EXPECT_EQ(implied[0].residue, 0) << fact;
    const cake::testing::cover::BoundedVerdict b = cake::testing::cover::boundedVerdict(c42::residueFact(fact));
    EXPECT_TRUE(b.rules.empty()) << fact;
    EXPECT_FALSE(b.unknown) << fact;
  }
  auto open = cake::testing::compile(c42::residueFact("(k_tiles + 3) % 3 != 1"));
  EXPECT_TRUE(checks::impliedResidues(open.schedules.at(0)).empty()) << "residue 0 or 2";
  EXPECT_TRUE(cake::testing::cover::boundedVerdict(c42::residueFact("(k_tiles + 2) % 3 == 0")).rules.count("sync.race")) << "residue 1";
}
