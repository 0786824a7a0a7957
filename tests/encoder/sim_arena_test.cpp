// The visited set's storage (encoder/sim_arena.h): a thread keeps the large
// blocks it frees for its next search (BlockCache), so the blocks it gets
// again hold the last search's bytes. What each user of a block reads must
// be what it wrote: a table's entries zero, a visited set's states its own
// (docs/benchmarks.md "Session 35 (helper perf35)").
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>
#include <vector>

#include "encoder/sim_arena.h"
#include "encoder/sim_graph.h"

namespace sim_arena_test {

using cake::encoder::Step;
using cake::encoder::sim::ArenaChunk;
using cake::encoder::sim::BlockCache;
using cake::encoder::sim::Graph;
using cake::encoder::sim::HugeTable;
using cake::encoder::sim::kHugePage;
using cake::encoder::sim::State;

// (on a thread of its own: its cache starts empty)
TEST(SimArena, FreedLargeBlockIsTakenAgainOnlyAtItsSize) {
  const int32_t *first = nullptr, *other = nullptr, *again = nullptr;
  std::thread([&] {
    const size_t ints = 3 * kHugePage / sizeof(int32_t);
    {
      ArenaChunk chunk(ints);
      first = chunk.data();
    }
    {
      ArenaChunk smaller(ints / 3);  // another size: not the kept block
      other = smaller.data();
    }
    ArenaChunk same(ints);
    again = same.data();
  }).join();
  EXPECT_NE(other, first);
  EXPECT_EQ(again, first);
}

TEST(SimArena, KeepsNoMoreThanItsCap) {
  BlockCache cache;
  size_t kept = 0;
  for (size_t held = 0; held <= BlockCache::kMaxBytes; held += kHugePage) {
    void* p = std::malloc(16);
    if (cache.keep(p, kHugePage)) ++kept;
    else std::free(p);
  }
  EXPECT_EQ(kept, BlockCache::kMaxBytes / kHugePage);
  for (size_t i = 0; i < kept; ++i) {
    void* p = cache.take(kHugePage);
    EXPECT_NE(p, nullptr) << i;
    std::free(p);
  }
  EXPECT_EQ(cache.take(kHugePage), nullptr);
}

TEST(SimArena, TableFromAKeptBlockIsZero) {
  const size_t n = 2 * kHugePage / sizeof(uint64_t);
  {
    HugeTable dirty(n);
    for (size_t i = 0; i < n; ++i) dirty[i] = ~uint64_t{0};
  }
  HugeTable t(n);
  size_t nonzero = 0;
  for (size_t i = 0; i < n; ++i) nonzero += t[i] != 0;
  EXPECT_EQ(nonzero, 0u);
}

// Two visited sets one after the other, the second on the first's blocks:
// each holds and finds exactly its own states.
TEST(SimArena, SecondVisitedSetHoldsItsOwnStates) {
  auto stateOf = [](int i, int salt) {
    State s;
    s.v.assign(600, salt);
    s.v[0] = i;
    return s;
  };
  constexpr int kStates = 4000;  // 600 words each: several MiB of chunks
  for (int salt : {7, 9}) {
    Graph g;
    for (int i = 0; i < kStates; ++i) EXPECT_TRUE(g.insert(stateOf(i, salt), i - 1, Step{}).second);
    for (int i = 0; i < kStates; i += 97) {
      EXPECT_EQ(g.state(i), stateOf(i, salt));
      EXPECT_FALSE(g.insert(stateOf(i, salt), 0, Step{}).second);
    }
  }
}

}  // namespace sim_arena_test
