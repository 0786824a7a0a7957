// Loops no barrier paces, in the proof for every trip count (docs/z3.md
// "Loops no barrier paces: the processes behind go first (helper `sglang`,
// session 22)"). After its last barrier each instance of such a loop runs on
// its own (reads of a table written before the barrier, stores to global
// memory), so one instance can be any number of iterations ahead of another
// and lap induction's shifted states never repeat. The pacer holds back the
// loop steps of the processes ahead of one whose next step is *independent*
// of everything the others can still do: every run it leaves out is a
// reordering of a run it keeps (or a run it keeps with that independent
// step put first), which meets a violation whenever the left-out one does.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "encoder/sim_model.h"

namespace cake::encoder::trip {

class Pacer {
 public:
  // One process's symbolic loop in the combined program (encoder/trip_proof.cpp
  // layOut): its pcs [begin, end), the iteration of each (iter[pc - begin]);
  // the exit paths fill the program from `end` on. begin == end: the
  // process does not run the loop.
  struct Loop {
    int begin = 0, end = 0;
    std::vector<int64_t> iter;
  };
  // Off (active() false) for clustered systems, more than 30 processes (the
  // simulator's per-process fence marks share a bit from the 31st on),
  // systems where no process loops, and footprint tables past a size cap.
  Pacer(const sim::Model& m, std::vector<Loop> loops);
  bool active() const { return active_; }

  // Which of `steps` (enabled in s, in that order) to hold back: an Exec
  // step of a process at a pc of its loop, in iteration v, when a *free*
  // process q is *behind* it: q loops and stands in its loop at an
  // iteration u < v, or before its loop; q's next step is certain (not
  // `unsure[q]`: at a loop head where it may leave, its position depends on
  // the trip count) and is a synchronous generic access (lm.copy, lm.fill,
  // an sm_80 MMA, ...) or a passable lm.sync wait; and that step's accesses,
  // with the access q's last step left current (the simulator's race
  // checks see it until q's next step), conflict with no access any other
  // agent may still make: the other processes' instructions from their pcs
  // on (every exit path and the whole loop once in it), their current
  // accesses, and every async access in flight. Empty when nothing is held.
  std::vector<char> heldBack(const sim::State& s, const sim::Async& a, const std::vector<Step>& steps,
                             const std::vector<char>& unsure) const;

  // Work done (deterministic; the proof's budget does not count it apart:
  // it is a few words per process and state).
  uint64_t calls() const { return calls_; }

 private:
  using Set = std::vector<uint64_t>;  // atoms, one bit each
  struct Foot {
    Set r, w;
  };
  const sim::Model& m_;
  std::vector<Loop> loops_;
  bool active_ = false;
  size_t words_ = 0;
  std::vector<Foot> feet_;                   // distinct footprints; feet_[0] is empty
  std::vector<std::vector<int>> future_;     // [p][pc]: what p may still access from pc on (feet_ index)
  std::vector<std::vector<int>> own_;        // [p][pc]: the accesses of program[pc] alone (feet_ index)
  mutable uint64_t calls_ = 0;
  mutable Foot others_, mine_;               // heldBack's buffers
  void addAccesses(Foot& f, int p, int pc) const;
  static void orInto(Foot& into, const Foot& from);
  static bool conflict(const Foot& a, const Foot& b);
  std::vector<std::vector<char>> free_tail_;  // [p][pc]: every instruction from pc on is a synchronous generic access
  bool freeStep(const sim::State& s, int p, int pc) const;
  void othersOf(const sim::State& s, const sim::Async& a, int q) const;
  void addCurrent(Foot& f, int p, int pc) const;
  // q's iteration in its loop, kBefore before it, nullopt elsewhere (after
  // the loop, done, or no loop: it is behind nothing and held back never).
  static constexpr int64_t kBefore = INT64_MIN / 2;
  // Only processes more than kSlack iterations ahead are held back: below
  // that the partial-order reduction decides alone (a state where the pacer
  // holds steps back expands all the others, which costs pipelines whose
  // roles run a few iterations apart: cutlass_gqa_cta_reduce_scratch_reuse_fixed's
  // proof ran out of its work budget with every process ahead held, and with
  // those 3 or more ahead). Any subset of the processes ahead may be held:
  // the argument does not depend on which.
  static constexpr int64_t kSlack = 4;
  std::optional<int64_t> progress(int p, int pc) const;
};

}  // namespace cake::encoder::trip
