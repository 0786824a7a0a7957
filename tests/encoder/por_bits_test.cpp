// The reducer's object sets (encoder/sim_por.h, Bits and Foot): the
// operations over the first n words, which the hot loops of the reduction
// use, agree with the full-width ones on sets whose objects all lie in
// those words (a reducer numbers its objects from 0; docs/benchmarks.md
// "Session 32 (helper perf32)").
#include <gtest/gtest.h>

#include <random>

#include "encoder/sim_por.h"

namespace por_bits_test {

using cake::encoder::sim::Bits;
using cake::encoder::sim::Foot;

// A footprint with a few objects below 64 * words in each mode.
Foot randomFoot(std::mt19937& rng, int words) {
  std::uniform_int_distribution<int> object(0, 64 * words - 1), count(0, 3);
  Foot f;
  for (Bits* b : {&f.r, &f.w, &f.l, &f.a, &f.f, &f.ar})
    for (int n = count(rng); n > 0; --n) b->set(static_cast<size_t>(object(rng)));
  return f;
}

bool sameFoot(const Foot& x, const Foot& y) {
  return x.r == y.r && x.w == y.w && x.l == y.l && x.a == y.a && x.f == y.f && x.ar == y.ar;
}

TEST(PorBits, SetResetTestAnyCoverEveryWord) {
  Bits b;
  EXPECT_TRUE(b.none());
  b.set(0).set(63).set(64).set(511);
  EXPECT_TRUE(b.test(0) && b.test(63) && b.test(64) && b.test(511));
  EXPECT_FALSE(b.test(1) || b.test(65) || b.test(510));
  EXPECT_TRUE(b.anyWords(1));
  b.reset(0).reset(63);
  EXPECT_FALSE(b.anyWords(1));
  EXPECT_TRUE(b.anyWords(2));
  b.reset(64);
  EXPECT_FALSE(b.anyWords(7));
  EXPECT_TRUE(b.any());
  EXPECT_FALSE((~b).test(511));
  EXPECT_TRUE((~b).test(0));
}

TEST(PorBits, WordOperationsAgreeWithFullWidthOnesBelowTheirWords) {
  std::mt19937 rng(32);
  for (int words = 1; words <= Bits::kWords; ++words)
    for (int trial = 0; trial < 2000; ++trial) {
      const Foot x = randomFoot(rng, words), y = randomFoot(rng, words);
      EXPECT_EQ(x.conflictsWords(y, words), x.conflicts(y)) << "words " << words << ", trial " << trial;
      Foot full = x, part = x;
      full |= y;
      part.orWords(y, words);
      EXPECT_TRUE(sameFoot(full, part));
      Foot copy = randomFoot(rng, words);
      copy.clearWords(words);
      EXPECT_TRUE(sameFoot(copy, Foot{}));
      copy.assignWords(x, words);
      EXPECT_TRUE(sameFoot(copy, x));
      EXPECT_EQ(x.r.intersectsWords(y.w, words), (x.r & y.w).any());
    }
}

// A conflict in every mode pair that conflicts, one object each, found in
// whichever word holds the object.
TEST(PorBits, ConflictsInEachModePairAndWord) {
  for (size_t object : {size_t{3}, size_t{70}, size_t{300}, size_t{511}}) {
    const int words = static_cast<int>(object / 64) + 1;
    auto one = [&](Bits Foot::*mode) {
      Foot f;
      (f.*mode).set(object);
      return f;
    };
    const Foot r = one(&Foot::r), w = one(&Foot::w), l = one(&Foot::l), a = one(&Foot::a), f = one(&Foot::f),
               ar = one(&Foot::ar);
    EXPECT_FALSE(r.conflictsWords(r, words));
    EXPECT_FALSE(l.conflictsWords(l, words));
    EXPECT_FALSE(a.conflictsWords(a, words));
    EXPECT_TRUE(w.conflictsWords(r, words));
    EXPECT_TRUE(r.conflictsWords(w, words));
    EXPECT_TRUE(l.conflictsWords(a, words));
    EXPECT_TRUE(a.conflictsWords(w, words));
    EXPECT_TRUE(f.conflictsWords(ar, words));
    EXPECT_TRUE(ar.conflictsWords(f, words));
    EXPECT_FALSE(w.conflictsWords(r, words - 1));  // (the object lies past those words)
  }
}

}  // namespace por_bits_test
