// A parameter at its least (or greatest) allowed value in the bounded
// check's covering values (helper cover48, session 48, issue 11; docs/z3.md
// "A parameter at its least allowed value in the covering values"). The
// covering values took a parameter at 1 where the lm.assume facts allow
// it, and a trip count like `hit + 1` (`hit >= 0`) ran 2 trips there: its
// targets 0 and 1 were taken relative to that base, so hit = 0 (one chunk)
// was never run. findPattern's two loops with the barrier between them
// dropped race only at hit = 0 and exited 0 *checked* (`hit in
// {1,2,3,4,7,8}`); a count `2 * hit + 1` did so on int as well, where the
// proof hands no witness back. Each form below is broken at its witness
// (the explicit engine), not proved, found by `cake check`, and its
// witness's extreme value is among the covering values with a violation
// there (not only handed back by the proof).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_util.h"
#include "checks/model_check.h"
#include "find_pattern_form.h"

namespace cover48_test {

using cake::testing::attacks::Attack;

// tests/encoder/bounds48_test.cpp's findPattern form: n_passes radix
// passes, then hit + 1 chunks, the match written at chunk hit.
const std::string kFindPattern = cake::testing::forms::kFindPatternTwoLoops;

// The lines the attacks edit.
const std::string kCut = "            lm.copy(flag[0], fz)\n        lm.sync(wgroup)\n";
const std::string kCutDropped = "            lm.copy(flag[0], fz)\n";
const std::string kPassEnd = "            lm.copy(part, cnt[0][:, 0:4])\n            lm.sync(wgroup)\n";
const std::string kMatchSync = "                lm.copy(flag[0], fv)\n            lm.sync(wgroup)\n";
const std::string kOut = "        lm.copy(Out, fv, coords=(0, 2 * w))\n";
const std::string kChunks = "lm.range(0, hit + 1)";
const std::string kMatch = "if i == hit and";

std::string edited(const Attack& a) {
  std::string text = kFindPattern;
  for (const auto& [from, to] : a.edits) text = cake::testing::replace(text, from, to);
  return text;
}

// Some covering value gives `name` the witness's value `v`, and the
// explicit engine finds a violation at one such value.
void expectCoveredAt(const Attack& a, const std::string& name, int64_t v) {
  auto mod = cake::testing::compile(edited(a));
  ASSERT_FALSE(mod.schedules.empty()) << a.what;
  const cake::ir::Schedule& s = mod.schedules.at(0);
  int param = -1;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
    if (s.params[p].name == name) param = p;
  ASSERT_GE(param, 0) << a.what;
  bool at_value = false, violated = false;
  for (const cake::encoder::Binding& b : cake::checks::coveringBindings(s)) {
    if (!b.params.count(param) || b.params.at(param) != v) continue;
    at_value = true;
    cake::encoder::ExploreOptions eo;
    eo.timeout_ms = cake::testing::kNoWallClockMs;
    eo.stop_at_first = true;
    if (cake::encoder::explore(cake::testing::build(s, b), eo).outcome == cake::encoder::Outcome::Violation) {
      violated = true;
      break;
    }
  }
  EXPECT_TRUE(at_value) << a.what << ": no covering value has " << name << " = " << v;
  EXPECT_TRUE(violated) << a.what << ": no violation at the covering values with " << name << " = " << v;
}

// Broken at its witness, found by `cake check`, never proved, and met by
// the covering values at `name` = `v`.
void expectMetAt(const Attack& a, const std::string& name, int64_t v) {
  cake::testing::attacks::attack(kFindPattern, {{"n_passes", 3}, {"hit", 2}}, {a});
  expectCoveredAt(a, name, v);
}

// The reported form: the barrier between the loops dropped, the zeroing
// races the match at chunk 0 (hit = 0 only).
TEST(Cover48, CutDroppedMetAtTheLeastHit) {
  expectMetAt({{{kCut, kCutDropped}}, "the cut dropped (hit + 1 chunks, the match at chunk hit)", {{"n_passes", 1}, {"hit", 0}}},
              "hit", 0);
}

// `2 * hit + 1` chunks: 3 at the base's hit = 1, the targets shifted past
// the one chunk (exit 0 *checked* on int, `hit in {1,2,4}`).
TEST(Cover48, DoubledChunkCountMetAtTheLeastHit) {
  expectMetAt({{{kCut, kCutDropped}, {kChunks, "lm.range(0, 2 * hit + 1)"}, {kMatch, "if i == 2 * hit and"}},
               "the cut dropped (2 * hit + 1 chunks, the match at chunk 2 * hit)",
               {{"n_passes", 1}, {"hit", 0}}},
              "hit", 0);
}

// `hit - 1` chunks with `hit >= 2`: one chunk at the least value.
TEST(Cover48, ShiftedChunkCountMetAtTheLeastHit) {
  expectMetAt({{{kCut, kCutDropped},
                {"lm.assume(hit >= 0)", "lm.assume(hit >= 2)"},
                {kChunks, "lm.range(0, hit - 1)"},
                {kMatch, "if i == hit - 2 and"}},
               "the cut dropped (hit - 1 chunks, hit >= 2, the match at chunk hit - 2)",
               {{"n_passes", 1}, {"hit", 2}}},
              "hit", 2);
}

// `max(hit - 3, 0) + 1` chunks with `hit >= 3`: the match at chunk 0
// only at hit = 3.
TEST(Cover48, ClippedChunkCountMetAtTheLeastHit) {
  expectMetAt({{{kCut, kCutDropped},
                {"lm.assume(hit >= 0)", "lm.assume(hit >= 3)"},
                {kChunks, "lm.range(0, max(hit - 3, 0) + 1)"},
                {kMatch, "if i == max(hit - 3, 0) and"}},
               "the cut dropped (max(hit - 3, 0) + 1 chunks, hit >= 3)",
               {{"n_passes", 1}, {"hit", 3}}},
              "hit", 3);
}

// No pass at the least n_passes (`max(n_passes - 3, 0)` passes, `n_passes
// >= 3`) and the flag zeroed only in the passes: read before any write.
TEST(Cover48, NoPassAtTheLeastPassCount) {
  expectMetAt({{{"    lm.assume(n_passes >= 1)\n", "    lm.assume(n_passes >= 3)\n"},
                {"lm.range(0, n_passes)", "lm.range(0, max(n_passes - 3, 0))"},
                {kPassEnd, kPassEnd + "            if w == 0:\n                lm.fill(fz, 0.0)\n                lm.copy(flag[0], fz)\n"},
                {"        if w == 0:\n            lm.fill(fz, 0.0)\n            lm.copy(flag[0], fz)\n        lm.sync(wgroup)\n",
                 "        lm.sync(wgroup)\n"}},
               "max(n_passes - 3, 0) passes, n_passes >= 3, the flag zeroed in the passes only",
               {{"n_passes", 3}, {"hit", 1}}},
              "n_passes", 3);
}

// The match's barrier skipped where the match is on chunk 0 (hit = 0).
TEST(Cover48, MatchBarrierSkippedAtTheLeastHit) {
  expectMetAt({{{kMatchSync, "                lm.copy(flag[0], fv)\n            if i != hit or hit != 0:\n                lm.sync(wgroup)\n"}},
               "the match's barrier skipped at hit = 0 only",
               {{"n_passes", 1}, {"hit", 0}}},
              "hit", 0);
}

// One warp skips the barrier after the chunks at hit = 0: the others wait
// for it forever.
TEST(Cover48, BarrierSkippedByOneWarpAtTheLeastHit) {
  expectMetAt({{{kOut, "        if w != 1 or hit != 0:\n            lm.sync(wgroup)\n" + kOut}},
               "warp 1 skips the barrier after the chunks at hit = 0 only (a deadlock)",
               {{"n_passes", 1}, {"hit", 0}}},
              "hit", 0);
}

// The greatest allowed value (`hit <= 5`): the match's barrier skipped
// at hit = 5 only.
TEST(Cover48, MatchBarrierSkippedAtTheGreatestHit) {
  expectMetAt({{{"    lm.assume(hit >= 0)\n", "    lm.assume(hit >= 0)\n    lm.assume(hit <= 5)\n"},
                {kMatchSync, "                lm.copy(flag[0], fv)\n            if i != hit or hit != 5:\n                lm.sync(wgroup)\n"}},
               "the match's barrier skipped at hit = 5 only (hit <= 5)",
               {{"n_passes", 1}, {"hit", 5}}},
              "hit", 5);
}

// The correct form and its fixed twins with the same counts stay proved.
TEST(Cover48, CorrectFormsStayProved) {
  cake::testing::attacks::expectCheckedAndProved(kFindPattern, "find pattern");
  cake::testing::attacks::expectCheckedAndProved(
      cake::testing::replace(cake::testing::replace(kFindPattern, kChunks, "lm.range(0, 2 * hit + 1)"), kMatch,
                             "if i == 2 * hit and"),
      "find pattern, 2 * hit + 1 chunks");
}

}  // namespace cover48_test
