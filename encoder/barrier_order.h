// The happens-before order that a system's barriers fix in every run
// (docs/rules/data.stale-read.md "A write handed over in barrier order").
//
// Edges, each one that every run honours:
//  * program order within a process;
//  * a named barrier's generation k: the k-th arrival (lm.sync or
//    lm.bar_arrive) of each process that arrives there is ordered before
//    the k-th lm.sync pass of each, where those processes' warps are all
//    it expects and all of them lm.sync (none can arrive twice in one
//    generation); with lm.bar_arrive, only for two processes, into the
//    passes of the one that only lm.syncs;
//  * an mbarrier slot that one process alone arrives on, whose arrivals'
//    meant phases are their place in that process's count (arrival n lands
//    in phase n / init_count): an arrival of phase k is ordered before a
//    wait for phase k. A wait that passes at another completed count is
//    sync.stale-phase;
//  * an mbarrier slot that several processes arrive on, each a fixed share
//    of every phase (its arrival n meant for phase n / share, the shares
//    summing to init_count), where the order already built puts each
//    process's first arrival of phase k + 1 after every other's last of
//    phase k (they take turns: none can fill a phase for another):
//    likewise (FlashMLA's sparse decode, whose K buffers both math
//    warpgroups release, session 45).
// Nothing else orders here (TMA landings, MMA commits, cp.async groups,
// shared slots whose arrivals may run ahead): the order is a subset of
// what a run enforces, and every pair it orders is ordered in every run.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "encoder/system.h"

namespace cake::encoder {

class BarrierOrder {
 public:
  // nullopt where the order is not computed: the clocks would pass
  // `max_cells` (processes times instructions), or some process never gets
  // past a wait whose ordered arrivals come after it (a deadlock).
  static std::optional<BarrierOrder> of(const System& sys, size_t max_cells = kMaxCells);
  // Whether instruction pc of process p is ordered before instruction qc
  // of process q (p == q: program order).
  bool before(int p, int pc, int q, int qc) const {
    if (p == q) return pc < qc;
    return clock_[q][static_cast<size_t>(qc) * procs_ + p] >= pc;
  }
  static constexpr size_t kMaxCells = size_t{1} << 24;

 private:
  // per process, per instruction: the (process, instruction) pairs it waits for
  using Edges = std::vector<std::vector<std::vector<std::pair<int, int>>>>;
  static std::optional<BarrierOrder> clocked(const System& sys, const Edges& into);

  size_t procs_ = 0;
  // per process: per instruction, the latest instruction of each process
  // ordered before it or it (-1: none)
  std::vector<std::vector<int32_t>> clock_;
};

}  // namespace cake::encoder
