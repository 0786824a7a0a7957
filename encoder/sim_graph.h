// Internal to the explicit-state engines (simulator.cpp, trip_proof.cpp):
// the visited set of a breadth-first search.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "encoder/engine.h"
#include "encoder/sim_arena.h"
#include "encoder/sim_model.h"

namespace cake::encoder::sim {

// The visited set: states live in one arena; a node is a state plus the
// step that first reached it (for traces).
class Graph {
 public:
  struct Node {
    const int32_t* data;  // in a chunk of the arena (chunks never move)
    uint32_t length;
    int32_t parent;
    uint32_t depth;
    Step step;
  };

  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Returns the node of s, and whether it is new.
  std::pair<int, bool> insert(const State& s, int parent, const Step& step) {
    words_ += s.v.size();
    ++offered_;
    if ((nodes_.size() + 1) * 2 > table_.size()) grow();
    const uint64_t h = sim::hashState(s.v.data(), s.v.size());
    const uint64_t tag = h & ~uint64_t{0xffffffff};
    const size_t mask = table_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const uint64_t e = table_[i];
      if (e == 0) {
        int id = static_cast<int>(nodes_.size());
        uint32_t depth = parent < 0 ? 0 : nodes_[parent].depth + 1;
        nodes_.push_back({store(s), static_cast<uint32_t>(s.v.size()), parent, depth, step});
        hashes_.push_back(h);
        table_[i] = tag | static_cast<uint32_t>(id + 1);
        return {id, true};
      }
      // the entry's upper half is its hash's: most other states differ there
      if ((e & ~uint64_t{0xffffffff}) == tag) {
        const int n = static_cast<int>(static_cast<uint32_t>(e)) - 1;
        if (equal(n, s)) return {n, false};
      }
    }
  }

  State state(int n) const {
    const Node& node = nodes_[n];
    return State{std::vector<int32_t>(node.data, node.data + node.length)};
  }
  // Copies node n's state into s (reusing its storage: no allocation in an
  // exploration's loop once s is large enough).
  void stateInto(int n, State& s) const {
    const Node& node = nodes_[n];
    s.v.assign(node.data, node.data + node.length);
  }
  size_t size() const { return nodes_.size(); }
  // Words of every state offered to insert() so far, new or not: the
  // hashing work of a search (the proof's work budget, proof_budget.h).
  uint64_t insertedWords() const { return words_; }
  uint64_t offered() const { return offered_; }  // insert() calls so far
  uint32_t depth(int n) const { return nodes_[n].depth; }
  int parent(int n) const { return nodes_[n].parent; }
  Trace trace(int n) const {
    Trace t;
    for (; n > 0; n = nodes_[n].parent) t.push_back(nodes_[n].step);
    std::reverse(t.begin(), t.end());
    return t;
  }

 private:
  std::vector<Node> nodes_;
  std::vector<uint64_t> hashes_;
  uint64_t words_ = 0, offered_ = 0;
  // The states, in chunks that never move (one growing vector copied every
  // state at each doubling: a tenth of a persistent proof's time, with the
  // page faults of the fresh copy). A state lies within one chunk. Chunks
  // double from 64 KiB (most explorations are small) to 16 MiB; those of
  // 2 MiB and more ask for transparent huge pages (sim_arena.h): the first
  // touch of each 4 KiB page was a fifth of a large proof's time.
  std::vector<ArenaChunk> arena_;
  size_t used_ = 0;  // int32s used in arena_.back()
  // (upper 32 bits of the hash) | (node + 1); 0: empty
  HugeTable table_ = HugeTable(1024);

  const int32_t* store(const State& s) {
    const size_t n = s.v.size();
    if (arena_.empty() || used_ + n > arena_.back().size()) {
      size_t size = arena_.empty() ? size_t{1} << 14 : std::min(arena_.back().size() * 2, size_t{1} << 22);
      arena_.emplace_back(std::max(size, n));
      used_ = 0;
    }
    int32_t* out = arena_.back().data() + used_;
    std::copy(s.v.begin(), s.v.end(), out);
    used_ += n;
    return out;
  }
  bool equal(int n, const State& s) const {
    const Node& node = nodes_[n];
    return node.length == s.v.size() && std::equal(s.v.begin(), s.v.end(), node.data);
  }
  void grow() {
    HugeTable t(table_.size() * 2);
    size_t mask = t.size() - 1;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      size_t i = hashes_[n] & mask;
      while (t[i] != 0) i = (i + 1) & mask;
      t[i] = (hashes_[n] & ~uint64_t{0xffffffff}) | static_cast<uint32_t>(n + 1);
    }
    table_ = std::move(t);
  }
};

}  // namespace cake::encoder::sim
