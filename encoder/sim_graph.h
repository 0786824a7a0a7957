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
        nodes_.push_back({arena_.size(), static_cast<uint32_t>(s.v.size()), parent, depth, step});
        hashes_.push_back(h);
        arena_.insert(arena_.end(), s.v.begin(), s.v.end());
        table_[i] = id;
        return {id, true};
      }
      if (hashes_[n] == h && equal(n, s)) return {n, false};
    }
  }

  State state(int n) const {
    const Node& node = nodes_[n];
    return State{std::vector<int32_t>(arena_.begin() + node.offset, arena_.begin() + node.offset + node.length)};
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
  std::vector<int32_t> arena_;
  std::vector<int32_t> table_ = std::vector<int32_t>(1024, -1);

  bool equal(int n, const State& s) const {
    const Node& node = nodes_[n];
    return node.length == s.v.size() && std::equal(s.v.begin(), s.v.end(), arena_.begin() + node.offset);
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
