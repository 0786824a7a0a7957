// Internal to the explicit-state engines (simulator.cpp, trip_proof.cpp):
// the visited set of a breadth-first search.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "encoder/engine.h"
#include "encoder/sim_model.h"

namespace cake::encoder::sim {

// The visited set: states live in one arena; a node is a state plus the
// step that first reached it (for traces).
class Graph {
 public:
  struct Node {
    uint64_t offset;
    uint32_t length;
    int32_t parent;
    uint32_t depth;
    Step step;
  };

  // Returns the node of s, and whether it is new.
  std::pair<int, bool> insert(const State& s, int parent, const Step& step) {
    if ((nodes_.size() + 1) * 2 > table_.size()) grow();
    uint64_t h = sim::hashState(s.v.data(), s.v.size());
    size_t mask = table_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      int32_t n = table_[i];
      if (n < 0) {
        int id = static_cast<int>(nodes_.size());
        uint32_t depth = parent < 0 ? 0 : nodes_[parent].depth + 1;
        nodes_.push_back({store(s), static_cast<uint32_t>(s.v.size()), parent, depth, step});
        hashes_.push_back(h);
        table_[i] = id;
        return {id, true};
      }
      if (hashes_[n] == h && equal(n, s)) return {n, false};
    }
  }

  State state(int n) const {
    const Node& node = nodes_[n];
    const int32_t* v = at(node.offset);
    return State{std::vector<int32_t>(v, v + node.length)};
  }
  size_t size() const { return nodes_.size(); }
  uint32_t depth(int n) const { return nodes_[n].depth; }
  Trace trace(int n) const {
    Trace t;
    for (; n > 0; n = nodes_[n].parent) t.push_back(nodes_[n].step);
    std::reverse(t.begin(), t.end());
    return t;
  }

 private:
  std::vector<Node> nodes_;
  std::vector<uint64_t> hashes_;
  // The states, in chunks that never move (one growing vector copied every
  // state at each doubling: a tenth of a persistent proof's time, with the
  // page faults of the fresh copy). A state lies within one chunk; offset
  // = chunk index * kChunk + position.
  static constexpr uint64_t kChunk = uint64_t{1} << 20;  // int32s per chunk (4 MiB)
  std::vector<std::vector<int32_t>> arena_;
  std::vector<int32_t> table_ = std::vector<int32_t>(1024, -1);

  uint64_t store(const State& s) {
    const size_t n = s.v.size();
    if (arena_.empty() || arena_.back().size() + n > std::min<size_t>(kChunk, arena_.back().capacity())) {
      arena_.emplace_back();
      arena_.back().reserve(std::max<size_t>(kChunk, n));
    }
    std::vector<int32_t>& c = arena_.back();
    const uint64_t off = (arena_.size() - 1) * kChunk + c.size();
    c.insert(c.end(), s.v.begin(), s.v.end());
    return off;
  }
  const int32_t* at(uint64_t offset) const { return arena_[offset / kChunk].data() + offset % kChunk; }
  bool equal(int n, const State& s) const {
    const Node& node = nodes_[n];
    return node.length == s.v.size() && std::equal(s.v.begin(), s.v.end(), at(node.offset));
  }
  void grow() {
    std::vector<int32_t> t(table_.size() * 2, -1);
    size_t mask = t.size() - 1;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      size_t i = hashes_[n] & mask;
      while (t[i] >= 0) i = (i + 1) & mask;
      t[i] = static_cast<int32_t>(n);
    }
    table_ = std::move(t);
  }
};

}  // namespace cake::encoder::sim
