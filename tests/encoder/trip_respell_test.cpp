// Expressions of a loop bound's value read as that bound (docs/z3.md
// "Expressions respelled as the loop bound of their value", helper gaps41,
// session 41): a ring stride `t * X` whose X equals the K loop's trip count
// for every value the lm.assume facts allow (triton-lang/triton PR #2146's
// `max(K // 64, 1)` under the PR's K lemma, `K // 64` under K % 64 == 0),
// and a loop bounded by a multiple of another loop's bound spelled apart
// (`2 * lm.cdiv(K, 128)` beside `(K + 127) // 128`), are proved. Twins whose
// stride or bound differs from the trip count for some allowed value are
// found by the bounded check and not proved; so is one that differs only in
// a corner no covering value used to reach (K = 96 under K % 32 == 0 or
// K < 64: exit 0, *checked*, before the stride corners of the bounded check).
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/value_equality.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace trip_respell_test {

const std::string kTriton = "corpus/bugs/sync.race/triton_ws_persistent_inner_steps_floor_max_unaligned_k";
const std::string kTwoSlots = "corpus/bugs/sync.deadlock/sm90_ws_two_slots_producer_bound_floored";
const std::string kStride = "    num_inner_loop_steps = max(K // 64, 1)\n";
const std::string kLemma = "lm.assume(K % 64 == 0 or K < 64)";
const std::string kProducerBound = "for k in lm.range(0, 2 * lm.cdiv(K, 128)):";

// Proved by the proof for every trip count, with `respelled` ("X as Y") in
// its engine line.
void expectProvedRespelled(const std::string& text, const std::string& respelled, const char* what) {
  auto mod = compile(text);
  ASSERT_FALSE(mod.schedules.empty()) << what;
  const encoder::ModelCheckResult r = proveDefault(mod.schedules.at(0));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << what << ": " << r.detail;
  EXPECT_NE(r.engine.find(respelled), std::string::npos) << what << ": " << r.engine;
}

}  // namespace trip_respell_test

namespace rsp = trip_respell_test;

// The PR's fix as the PR writes it is proved under the PR's lemma, and so
// is the plain floor under K % 64 == 0. The strides that differ from the
// trip count for some allowed K are found and not proved: the fix without
// the lemma (K = 65, the corpus twin), the floor under the lemma (K < 64:
// stride 0), the floor with no fact, the fix in the producer only beside a
// floor in the consumer, and the fix under a lemma too weak (K % 32 == 0
// or K < 64: only K = 96, 160, ... differ).
TEST(RespelledStride, AStrideOfTheTripCountsValueIsProved) {
  const std::string fixed = corpusText(rsp::kTriton + "_fixed.cake");
  rsp::expectProvedRespelled(fixed, "max(K // 64, 1) as lm.cdiv(K, 64)", "the PR's fix under its lemma");
  const std::string floor_fact =
      replace(replace(fixed, rsp::kLemma, "lm.assume(K % 64 == 0)"), rsp::kStride, "    num_inner_loop_steps = K // 64\n");
  rsp::expectProvedRespelled(floor_fact, "K // 64 as lm.cdiv(K, 64)", "the floor under K % 64 == 0");

  expectFoundNotProved(corpusText(rsp::kTriton + ".cake"), "sync.race", "the PR's fix without the lemma");
  const std::string floor_lemma = replace(fixed, rsp::kStride, "    num_inner_loop_steps = K // 64\n");
  expectFoundNotProved(floor_lemma, "sync.race", "the floor under the lemma");
  expectFoundNotProved(replace(floor_fact, "lm.assume(K % 64 == 0)", "lm.assume(K < 100000)"), "sync.race",
                       "the floor with no fact");
  expectFoundNotProved(replace(fixed, "idx = t * num_inner_loop_steps + k", "idx = t * (K // 64) + k"), "sync.race",
                       "the floor in the producer only");
  expectFoundNotProved(replace(fixed, rsp::kLemma, "lm.assume(K % 32 == 0 or K < 64)"), "sync.race",
                       "the fix under a weaker lemma (K = 96)");
}

// The two-slots ring with the producer's bound a multiple of the consumer's
// spelled apart is proved (the multiple's part read as the consumer's bound,
// then the producer's loop in blocks of two), and so is the floor under
// K % 128 == 0. The floor without that fact (the corpus twin, K = 129) and
// under K % 64 == 0 (K = 64) are found and not proved.
TEST(RespelledStride, AMultipleOfABoundSpelledApartIsProved) {
  const std::string fixed = corpusText(rsp::kTwoSlots + "_fixed.cake");
  rsp::expectProvedRespelled(fixed, "2 * lm.cdiv(K, 128) as 2 * ((K + 127) // 128)", "the multiple spelled apart");
  const std::string floored = "for k in lm.range(0, 2 * (K // 128)):";
  const std::string floor_fact =
      withFactOnK(replace(fixed, rsp::kProducerBound, floored), "K % 128 == 0");
  rsp::expectProvedRespelled(floor_fact, "K // 128 as (K + 127) // 128", "the floor under K % 128 == 0");

  expectFoundNotProved(corpusText(rsp::kTwoSlots + ".cake"), "sync.deadlock", "the floor with no fact");
  expectFoundNotProved(replace(floor_fact, "K % 128 == 0", "K % 64 == 0"), "sync.arrival-underflow",
                       "the floor under K % 64 == 0 (K = 64: no block loaded, one pair waited for)");
}

// The respelling's prover questions are capped: past the cap an expression
// the cheap steps leave open is Unknown (kept apart), never Equal.
TEST(RespelledStride, PastItsQueryCapTheComparerAnswersUnknown) {
  auto mod = compile(replace(corpusText(rsp::kTriton + "_fixed.cake"), rsp::kLemma, "lm.assume(K % 64 == 0)"));
  ASSERT_FALSE(mod.schedules.empty());
  const ir::Schedule& s = mod.schedules.at(0);
  auto param = std::make_shared<ir::Expr>(ir::Expr{.kind = ir::ExprKind::Param, .index = 4});  // K
  ASSERT_EQ(s.params.at(4).name, "K");
  const ir::ExprPtr floor = ir::makeExpr(ir::ExprKind::FloorDiv, {param, ir::makeConst(64)});
  const ir::ExprPtr ceil = ir::makeExpr(ir::ExprKind::CDiv, {param, ir::makeConst(64)});
  encoder::ValueComparer capped(s, encoder::kBoundQueryLimits);
  capped.capProverQueries(0);
  EXPECT_EQ(capped.compare({{floor, ceil}}), encoder::ValueEquality::Unknown);
  EXPECT_EQ(capped.proverQueries(), 0);
  encoder::ValueComparer free(s, encoder::kBoundQueryLimits);
  EXPECT_EQ(free.compare({{floor, ceil}}), encoder::ValueEquality::Equal);
  EXPECT_EQ(free.proverQueries(), 1);
}
