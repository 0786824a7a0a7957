// A loop over rounds read as a strided loop (docs/z3.md "A loop over rounds
// read as a strided loop", lead, session 45): the ping-pong GEMM's consumer
// written over its rounds, `for r in lm.range(0, lm.cdiv(max(my_tiles - wg,
// 0), 2)): t = 2 * r + wg`, instead of `for t in lm.range(lm.instance(),
// my_tiles, 2)`. The proof refused it ("the symbolic loops have different
// bounds"); its copy with the strided loop is the corpus kernel's proof.
// Broken forms (a round too many, another stride, another start) are found
// and not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_rounds_test {
const std::string kStrided = "        for t in lm.range(lm.instance(), my_tiles, 2):\n";

std::string overRounds(const std::string& bound, const std::string& t) {
  return cake::testing::replace(cake::testing::corpusText("corpus/gemm/sm90_pingpong.cake"), kStrided,
                                "        wg = lm.instance()\n        for r in lm.range(0, " + bound +
                                    "):\n            t = " + t + "\n");
}
}  // namespace trip_rounds_test

TEST(TripRounds, PingPongOverRoundsIsProvedAsTheStridedLoop) {
  auto mod = cake::testing::compile(trip_rounds_test::overRounds("lm.cdiv(max(my_tiles - wg, 0), 2)", "2 * r + wg"));
  const ir::Schedule& s = mod.schedules.at(0);
  auto r = cake::testing::attacks::proveDefault(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("(a loop over rounds as a strided loop)"), std::string::npos) << r.engine;
  // the spelling without max: the same count (an empty range either way)
  auto bare = cake::testing::compile(trip_rounds_test::overRounds("lm.cdiv(my_tiles - wg, 2)", "2 * r + wg"));
  EXPECT_EQ(cake::testing::attacks::proveDefault(bare.schedules.at(0)).outcome, encoder::Outcome::Proved);
}

TEST(TripRounds, BrokenRoundsAreFoundNotProved) {
  using cake::testing::attacks::expectFoundNotProved;
  // a round too many: the consumer waits for a tile the producer never loads
  expectFoundNotProved(trip_rounds_test::overRounds("lm.cdiv(max(my_tiles + 1 - wg, 0), 2)", "2 * r + wg"),
                       "sync.deadlock", "one round too many");
  // rounds counted for a stride of 3 while the tiles step by 2: tiles left out
  expectFoundNotProved(trip_rounds_test::overRounds("lm.cdiv(max(my_tiles - wg, 0), 3)", "2 * r + wg"),
                       "sync.deadlock", "rounds of another stride");
}
