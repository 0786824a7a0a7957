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
#include <functional>
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
    std::vector<int> exit_starts;  // the first pc of each exit path (>= program size: empty)
  };
  // Off (active() false) for clustered systems, more than 30 processes (the
  // simulator's per-process fence marks share a bit from the 31st on),
  // systems where no process loops, loops with an exit path that starts
  // before their end (not the layout above), and footprint tables past a
  // size cap.
  // alone: aloneStep and the cut footprints on (TripProofOptions::pace_alone).
  Pacer(const sim::Model& m, std::vector<Loop> loops, bool alone = true);
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
  // on (every exit path and the whole loop once in it; with `alone`, only up
  // to their first wait on a barrier they cannot pass without q: othersOf),
  // their current accesses, and every async access in flight. Empty when
  // nothing is held.
  std::vector<char> heldBack(const sim::State& s, const sim::Async& a, const std::vector<Step>& steps,
                             const std::vector<char>& unsure) const;

  // The index in `steps` of one step to explore alone, if any: the Exec
  // step of a process q whose next step is free as heldBack's rule 1 says
  // (with what the others may still access cut at the barriers they cannot
  // pass without q), and that is not more than kSlack iterations ahead of
  // the process furthest behind in its loop (a process before its loop
  // counts as one iteration before the first); of several, the least
  // advanced (then the lowest index). {y} is a persistent set: y commutes
  // with every step the others can take before q's next one (docs/z3.md
  // "The pacer's free step alone").
  std::optional<size_t> aloneStep(const sim::State& s, const sim::Async& a, const std::vector<Step>& steps,
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
  bool alone_ = true;
  size_t words_ = 0;
  std::vector<Foot> feet_;                   // distinct footprints; feet_[0] is empty
  std::vector<std::vector<int>> future_;     // [p][pc]: what p may still access from pc on (feet_ index)
  std::vector<std::vector<int>> own_;        // [p][pc]: the accesses of program[pc] alone (feet_ index)
  mutable uint64_t calls_ = 0;
  mutable Foot others_, mine_, cut_foot_;    // heldBack's buffers
  void addAccesses(Foot& f, int p, int pc) const;
  static void orInto(Foot& into, const Foot& from);
  static void andInto(Foot& into, const Foot& from);
  static bool conflict(const Foot& a, const Foot& b);
  std::vector<std::vector<char>> free_tail_;  // [p][pc]: every instruction from pc on is a synchronous generic access
  bool freeStep(const sim::State& s, int p, int pc) const;
  // What every agent but q may still access (into others_); cut: each
  // other process's instructions only up to its first wait on a named
  // barrier whose current generation cannot complete without q (cutAt).
  void othersOf(const sim::State& s, const sim::Async& a, int q, bool cut) const;
  // Whether q's next step y commutes with everything the others can still
  // do before q's next step after y (free, cut at q's barriers).
  bool commutes(const sim::State& s, const sim::Async& a, int q, int pc) const;
  // Per named barrier b, process p and pc: what p may access from pc up to
  // its first wait on b (cut_[b][p][pc].foot, a feet_ index), the warps it
  // arrives with on b before that wait (kUnbounded: it may arrive in its
  // loop, or reach a wait it did not arrive for first), computed like
  // future_. A wait at pc itself is the state's to decide (sgen).
  static constexpr int32_t kUnbounded = INT32_MAX / 4;
  struct Cut {
    int foot = 0;
    int32_t arrivals = 0;
  };
  std::vector<std::vector<std::vector<Cut>>> cut_;
  void precomputeCuts(const Foot& empty, const std::function<int(const Foot&)>& intern);
  bool exitsAfterLoops() const;
  // The barriers no generation of which completes while q stands still:
  // the current generation's arrivals and those the others can make before
  // their first waits on it fall short of its count.
  std::vector<char> blockedWithout(const sim::State& s, int q) const;
  int32_t arrivalsBefore(const sim::State& s, int b, int p, int pc) const;
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
