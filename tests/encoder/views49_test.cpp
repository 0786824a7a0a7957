// View overlaps combined with guard outcomes (helper views49, session 49).
// Two views of one pool, one placed by a parameter (`off`), meet at some
// values; the accesses of one sit under a guard on another parameter (or
// the block index). A race needs the bytes to meet *and* the guard to let
// the accesses run. The bounded check placed each overlap outcome from its
// base binding alone, so:
//  * without a symbolic loop nothing combined them: review48 (session 48)
//    left such schedules *unknown* ("the views' overlaps combined with the
//    guards' outcomes"), the correct ones too;
//  * with a symbolic loop guardCombinations combined the guards with the
//    whole rings' overlap, and a race on one slot pair of two 2-slot rings
//    exited 0 *checked*: the least offset where the rings meet put the
//    guarded slot beside nothing.
// Now each allowed vector of the slot pairs that may meet and the guards'
// outcomes runs (BindingSearch::guardCombinations), up to its bound; past
// it the verdict stays unknown.
#include <gtest/gtest.h>

#include <string>

#include "find_pattern_form.h"
#include "model_check_run.h"

namespace views49_test {

// Warp a refills and stores each slot of `mid` (at 102400 bytes, `stages`
// slots of 1 KiB); warp b refills and stores slot 0 of `mine` (at `off`,
// same shape) under `guard`. With `handshake`, warp b waits for warp a's
// round (`done`) and warp a for warp b's (`free`), under the same guard:
// correct at every value. `loop` is the trip count; `more` adds parameters
// (with their facts) and `guards_a` guards in warp a that change nothing.
struct Form {
  std::string guard = "g == 777";
  bool handshake = false;
  int stages = 1;
  std::string loop = "2";
  std::string more_params, more_facts, guards_a;

  std::string text() const {
    const std::string n = std::to_string(stages);
    std::string a, b;
    for (int s = 0; s < stages; ++s) {
      const std::string it = n + " * t + " + std::to_string(s);
      if (handshake && s == 0) a += "            if " + guard + ":\n                lm.wait(free, iter=t - 1)\n";
      a += "            mid.tma_load(Src, coords=(t * 4, 0), iter=" + it + ", barrier=ba)\n";
      a += "            lm.wait(ba, iter=" + it + ")\n";
      a += "            mid.tma_store(Dst, coords=(t * 4, 0), stage=" + std::to_string(s) + ")\n";
      a += "            lm.tma_store_commit()\n            lm.tma_store_wait(pending=0)\n";
    }
    if (handshake) a += "            if " + guard + ":\n                lm.arrive(done, iter=t)\n";
    b += "            if " + guard + ":\n";
    if (handshake) b += "                lm.wait(done, iter=t)\n";
    b += "                mine.tma_load(Src, coords=(t * 4, 128), stage=0, barrier=bb)\n";
    b += "                lm.wait(bb, iter=t)\n";
    b += "                mine.tma_store(Dst, coords=(t * 4, 128), stage=0)\n";
    b += "                lm.tma_store_commit()\n                lm.tma_store_wait(pending=0)\n";
    if (handshake) b += "                lm.arrive(free, iter=t)\n";
    return R"(@cake.schedule(target="sm_90a")
def slices(lm, Src: LM.tma2d, Dst: LM.tma2d, g: LM.i32, off: LM.i32, n: LM.i32)" +
           more_params + R"():
    lm.assume(g >= 0)
    lm.assume(g <= 1000)
    lm.assume(off >= 0)
    lm.assume(off <= 204800)
    lm.assume(off % 1024 == 0)
    lm.assume(n >= 1)
    lm.assume(n <= 4)
)" + more_facts +
           R"(    pool = lm.smem(210944)
    mid  = pool.view(offset=102400, shape=(4, 128), dtype=lm.bf16, stages=)" +
           n + R"()
    mine = pool.view(offset=off, shape=(4, 128), dtype=lm.bf16, stages=)" +
           n + R"()
    a = lm.role(warps=[0])
    b = lm.role(warps=[1])
    ba = lm.barrier(count=)" +
           n + R"(, prod=[a], cons=[a], init_count=1)
    bb = lm.barrier(count=1, prod=[b], cons=[b], init_count=1)
    done = lm.barrier(count=1, prod=[a], cons=[b], init_count=1)
    free = lm.barrier(count=1, prod=[b], cons=[a], init_count=1)
    with a:
        for t in lm.range(0, )" +
           loop + "):\n" + a + guards_a + R"(    with b:
        for t in lm.range(0, )" +
           loop + "):\n" + b;
  }
};

using Outcome = cake::testing::CheckRun;
// `proof_ms` 0: the bounded check alone (its covering values decide).
Outcome checkText(const std::string& text, int proof_ms) { return cake::testing::runModelCheck(text, proof_ms); }
Outcome check(const Form& f, int proof_ms) { return checkText(f.text(), proof_ms); }

// The broken form races (found); its handshake twin is *checked*, no finding.
void expectRaceAndCleanTwin(Form f, int proof_ms) {
  const Outcome bad = check(f, proof_ms);
  EXPECT_TRUE(bad.found("sync.race")) << f.guard << " (" << f.stages << " slots, " << f.loop
                                      << " trips): " << bad.detail();
  f.handshake = true;
  const Outcome good = check(f, proof_ms);
  EXPECT_TRUE(good.sink.findings().empty()) << f.guard << ": " << good.sink.findings().front().message;
  EXPECT_EQ(good.kind(), cake::checks::VerdictKind::Checked) << f.guard << ": " << good.detail();
}

// findPattern's two loops (tests/encoder/find_pattern_form.h) with `hit`
// bounded above by `hi`, COUNT chunks and the match at chunk MATCH (the
// last); `cut` false drops the barrier between the loops, so the flag's
// zeroing races the match where it falls on chunk 0 (one chunk).
std::string findPattern(const std::string& hi, const std::string& count, const std::string& match, bool cut) {
  using cake::testing::replace;
  std::string text = cake::testing::forms::kFindPatternTwoLoops;
  text = replace(text, "lm.assume(hit >= 0)", "lm.assume(hit >= 0)\n    lm.assume(hit <= " + hi + ")");
  text = replace(text, "lm.range(0, hit + 1)", "lm.range(0, " + count + ")");
  text = replace(text, "if i == hit and", "if i == " + match + " and");
  if (!cut)
    text = replace(text, "            lm.copy(flag[0], fz)\n        lm.sync(wgroup)\n", "            lm.copy(flag[0], fz)\n");
  return text;
}

// The race is found, at a value of `param` in [lo, hi].
void expectRaceAt(const std::string& text, const std::string& param, int64_t lo, int64_t hi, int proof_ms) {
  const Outcome r = checkText(text, proof_ms);
  bool found = false;
  for (const auto& v : r.verdicts)
    if (v.kind == cake::checks::VerdictKind::Counterexample) {
      const size_t at = v.detail.find(param + "=");
      if (at == std::string::npos) continue;
      const int64_t x = std::stoll(v.detail.substr(at + param.size() + 1));
      EXPECT_TRUE(x >= lo && x <= hi) << v.detail;
      found = true;
    }
  EXPECT_TRUE(found && r.found("sync.race")) << r.detail();
}

}  // namespace views49_test

namespace v49 = views49_test;

// The slices meet at off = 102400 only, where warp b runs only where the
// guard holds (on g, or on the block index): found there; with the
// handshake, *checked* (both were unknown: nothing combined the overlap
// with the guard without a symbolic loop).
TEST(Views49, ViewsMeetingUnderAGuardRaceWhereBothHold) {
  for (const std::string guard : {"g == 777", "g % 97 == 13 and g > 500", "lm.block_idx(0) == 5"}) {
    v49::Form f;
    f.guard = guard;
    v49::expectRaceAndCleanTwin(f, 3000);
  }
}

// Two-slot rings: warp b's slot 0 races only where it meets one of mid's
// slots, at off = 101376 + 1024 or + 2048, and g = 777. With a symbolic
// loop the whole rings' overlap was combined with the guard at the least
// offset where the rings meet (off = 101376: b's slot 1 on mid's slot 0,
// its slot 0 on nothing): exit 0 *checked*. Each slot pair now joins the
// guards' outcomes. (The bounded check alone: the proof of the symbolic
// twin spends its whole budget, and it is the covering values that must
// meet the race.)
TEST(Views49, ARaceOnOneSlotPairUnderAGuardIsFound) {
  for (const std::string loop : {"2", "n"}) {
    v49::Form f;
    f.stages = 2;
    f.loop = loop;
    v49::expectRaceAndCleanTwin(f, 0);
  }
}

// Past kMaxCombinations bindings (the overlap and five independent guards
// allow 64 vectors) the correct form stays *unknown* and names what was
// left: never *checked* on a part of the vectors (the bounded check alone,
// whose verdict this is).
TEST(Views49, PastTheBoundTheVerdictStaysUnknown) {
  v49::Form f;
  f.handshake = true;
  const std::string extra[] = {"h", "k", "q", "w"};
  for (size_t i = 0; i < std::size(extra); ++i) {
    const std::string& p = extra[i];
    f.more_params += ", " + p + ": LM.i32";
    f.more_facts += "    lm.assume(" + p + " >= 0)\n    lm.assume(" + p + " <= 1000)\n";
    f.guards_a += "            if " + p + " == " + std::to_string(i + 3) + ":\n                lm.tma_store_wait(pending=0)\n";
  }
  const v49::Outcome r = v49::check(f, 0);
  EXPECT_TRUE(r.sink.findings().empty());
  EXPECT_EQ(r.kind(), cake::checks::VerdictKind::Unknown) << r.detail();
  EXPECT_NE(r.detail().find("views' overlaps"), std::string::npos) << r.detail();
}

// A chunk count that falls as `hit` grows is one chunk only at the greatest
// values (`101 - hit` at hit = 100 under `hit <= 100`; `(1000 - hit) // 100
// + 1` from hit = 901 on). The least trip count was scanned at -64..64 and
// the least allowed value, so the targets 0 and 1 were shifted past 37 (or
// 10), one chunk never ran, and the race there exited 0 *checked* (main:
// `hit in {0,1,55,...,64}`). The scan now takes the greatest allowed value
// too, and every parameter a goal reads also runs at it. The barrier kept:
// proved as before.
TEST(Views49, ACountThatFallsAsItsParameterGrowsRunsItsOneChunk) {
  v49::expectRaceAt(v49::findPattern("100", "101 - hit", "100 - hit", false), "hit", 100, 100, 3000);
  v49::expectRaceAt(v49::findPattern("1000", "(1000 - hit) // 100 + 1", "(1000 - hit) // 100", false), "hit", 901,
                   1000, 3000);
  const v49::Outcome good = v49::checkText(v49::findPattern("100", "101 - hit", "100 - hit", true), 3000);
  EXPECT_TRUE(good.sink.findings().empty());
  EXPECT_EQ(good.kind(), cake::checks::VerdictKind::Proved) << good.detail();
}

// A count least between its parameter's extremes: `max(hit - 500, 500 -
// hit) + 1` is one chunk at hit = 500 alone, which neither the scan nor
// the extremes reach (the targets were shifted past 437: exit 0
// *checked*). Below the scanned least, Z3 gives the least count a
// parameter can take (leastSolvedTrip).
TEST(Views49, ACountLeastBetweenItsExtremesRunsItsOneChunk) {
  v49::expectRaceAt(v49::findPattern("1000", "max(hit - 500, 500 - hit) + 1", "max(hit - 500, 500 - hit)", false),
                    "hit", 500, 500, 3000);
}

// A guard that flips only at the greatest allowed value, where its goal's
// search does not reach it (`(k * 7) % 701 != 700` under `k <= 100`: the
// barrier skipped at k = 100 alone). The bounded check alone said
// *checked* (`k in {0,1}`: exit 0 with --proof-timeout 0); it now runs k
// at its greatest allowed value and finds the race there.
TEST(Views49, AGuardFlippingAtTheGreatestValueIsRunThere) {
  v49::expectRaceAt(cake::testing::flagGuardForm("(k * 7) % 701 != 700", "100"), "k", 100, 100, 0);
}
