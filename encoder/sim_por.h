// Internal to the explicit-state engine: persistent-set partial-order
// reduction (docs/semantics.md "Partial-order reduction").
//
// Agents are the processes, the in-flight TMA loads (one landing each) and
// the per-process queues of committed sm_100a MMA groups (one completion at
// a time, FIFO). A transition's footprint is what it reads (R) and writes
// (W) among the objects: mbarrier slots, named barriers and memory atoms;
// landings on a slot (L) and plain arrivals (A) are modes that commute
// with themselves.
//
// For a seed agent X, every other agent's *window* over-approximates what
// it can still do while X stands still: its instructions up to the first
// wait that cannot pass without X (a least fixpoint over the arrivals,
// transaction bytes and named-barrier arrivals the windows provide; on a
// barrier of lm.sync arrivals only whose next generation needs X, at most
// the current generation's wait), plus the async ops they spawn. A stubborn-set closure from X then adds every
// agent whose window conflicts with an enabled member's transition, and
// every agent that could enable a blocked member. The smallest closure over
// all seeds whose steps do not end their run (a violation, a lost phase,
// the exit: visible()) is explored (docs/semantics.md "Runs that end").
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "encoder/sim_model.h"

namespace cake::encoder::sim {

constexpr int kMaxObjects = 512;

// A set of objects (kMaxObjects bits). A reducer's objects are numbered
// from 0, so bits past its count are never set: its hot loops (agents(),
// windows(), closure()) combine only the words that hold its objects (the
// *Words operations, `n` words; most systems have under 64 objects, and
// full-width operations and copies of 512-bit sets were most of the
// reduction's time: docs/benchmarks.md "Session 32 (helper perf32)").
// The plain operators cover every word.
struct Bits {
  static constexpr int kWords = kMaxObjects / 64;
  uint64_t w[kWords] = {};
  Bits& set(size_t i) {
    w[i >> 6] |= uint64_t{1} << (i & 63);
    return *this;
  }
  Bits& reset(size_t i) {
    w[i >> 6] &= ~(uint64_t{1} << (i & 63));
    return *this;
  }
  bool test(size_t i) const { return (w[i >> 6] >> (i & 63) & 1) != 0; }
  bool any() const { return anyWords(kWords); }
  bool none() const { return !any(); }
  bool anyWords(int n) const {
    uint64_t x = 0;
    for (int k = 0; k < n; ++k) x |= w[k];
    return x != 0;
  }
  Bits& orWords(const Bits& o, int n) {
    for (int k = 0; k < n; ++k) w[k] |= o.w[k];
    return *this;
  }
  bool intersectsWords(const Bits& o, int n) const {
    uint64_t x = 0;
    for (int k = 0; k < n; ++k) x |= w[k] & o.w[k];
    return x != 0;
  }
  Bits& operator|=(const Bits& o) {
    for (int k = 0; k < kWords; ++k) w[k] |= o.w[k];
    return *this;
  }
  Bits& operator&=(const Bits& o) {
    for (int k = 0; k < kWords; ++k) w[k] &= o.w[k];
    return *this;
  }
  Bits operator~() const {
    Bits x;
    for (int k = 0; k < kWords; ++k) x.w[k] = ~w[k];
    return x;
  }
  friend Bits operator|(Bits a, const Bits& b) { return a |= b; }
  friend Bits operator&(Bits a, const Bits& b) { return a &= b; }
  bool operator==(const Bits& o) const = default;
  uint64_t hash() const {
    uint64_t h = 0;
    for (int k = 0; k < kWords; ++k) h = (h ^ w[k]) * 0xff51afd7ed558ccdull;
    return h;
  }
};

// Access modes per object: r read, w write, l TMA landing on a slot, a a
// plain arrival on a slot, f a fence clearing its process's unfenced marks
// on an atom, ar an async-proxy access (also in r or w: it checks the
// marks). Landings commute with landings and plain arrivals with plain
// arrivals (counters); a fence only matters to async-proxy accesses;
// everything else commutes with reads only (a generic read sets its own
// process's mark: reads of different processes still commute).
// The *Words operations touch the first n words of each set only (Bits):
// exact where every word past them is zero on both sides.
struct Foot {
  Bits r, w, l, a, f, ar;
  Foot& operator|=(const Foot& o) { return orWords(o, Bits::kWords); }
  bool conflicts(const Foot& o) const { return conflictsWords(o, Bits::kWords); }
  // (one word, most systems, or two: straight-line code; GCC turns the
  // loops into a memset / memcpy call per set, most of agents()' and
  // windows()' clearing and copying: docs/benchmarks.md "Session 33
  // (h-perf33)", "Session 35 (helper perf35)")
  template <class Op>
  static void eachWord(int n, Op&& op) {
    if (n == 1) {
      op(0);
      return;
    }
    if (n == 2) {
      op(0);
      op(1);
      return;
    }
    for (int k = 0; k < n; ++k) op(k);
  }
  Foot& orWords(const Foot& o, int n) {
    eachWord(n, [&](int k) {
      r.w[k] |= o.r.w[k];
      w.w[k] |= o.w.w[k];
      l.w[k] |= o.l.w[k];
      a.w[k] |= o.a.w[k];
      f.w[k] |= o.f.w[k];
      ar.w[k] |= o.ar.w[k];
    });
    return *this;
  }
  // (a copy of o's first n words; the words past them are zero here already)
  Foot& assignWords(const Foot& o, int n) {
    eachWord(n, [&](int k) {
      r.w[k] = o.r.w[k];
      w.w[k] = o.w.w[k];
      l.w[k] = o.l.w[k];
      a.w[k] = o.a.w[k];
      f.w[k] = o.f.w[k];
      ar.w[k] = o.ar.w[k];
    });
    return *this;
  }
  Foot& clearWords(int n) {
    eachWord(n, [&](int k) { r.w[k] = w.w[k] = l.w[k] = a.w[k] = f.w[k] = ar.w[k] = 0; });
    return *this;
  }
  bool conflictsWords(const Foot& o, int n) const {
    uint64_t x = 0;
    for (int k = 0; k < n; ++k)
      x |= (w.w[k] & (o.r.w[k] | o.w.w[k] | o.l.w[k] | o.a.w[k])) | (r.w[k] & (o.w.w[k] | o.l.w[k] | o.a.w[k])) |
           (l.w[k] & (o.r.w[k] | o.w.w[k] | o.a.w[k])) | (a.w[k] & (o.r.w[k] | o.w.w[k] | o.l.w[k])) |
           (f.w[k] & o.ar.w[k]) | (ar.w[k] & o.f.w[k]);
    return x != 0;
  }
};

// Programs with loop exits (encoder/trip_proof.cpp): at a loop head a
// process may leave the loop for one of the exit paths, which fill its
// program from exits_begin on. The reduction then over-approximates: a
// window that reaches a head where its process may still leave (leave_from,
// per state: below it the trip count's lower bound forbids leaving, and
// entering an iteration does not raise that bound, so such a head touches
// no trip count) covers every exit path whole (footprint and arrivals), and
// a *_wait or commit on an exit path counts as touching every async access
// of its process. An arrival also reads its slot there: the proof checks
// the phase each arrival lands in.
//
// Clustered systems (docs/z3.md "A reduction for cluster proofs"): there
// such a window follows the exit paths (exit_starts) up to their blocking
// waits instead of covering them whole, so that a CTA's exit, past the
// final lm.cluster_sync(), is in a window only when that barrier can pass.
struct ExitLayout {
  std::vector<std::vector<char>> is_head;  // [p][pc]
  std::vector<int> exits_begin;            // [p] (the program size: no exits)
  std::vector<std::vector<int>> exit_starts;  // [p]: first pc of each exit path (>= program size: empty)
};

// Programs with branches (the persistent-kernel proof's combined program,
// encoder/trip_proof.cpp): a block end continues at one of several pcs, the
// explorer's choice (one branch per value of the unknowns it fixes). The
// reduction then follows every successor (docs/z3.md, "A reduction over the
// combined program"): footprints of group waits come from a may-analysis
// of the groups pending along every path, a window follows every branch up
// to the next wait on each, and what a window gives counts each *position*
// once, at its largest: a run visits each position at most once.
struct BranchLayout {
  std::vector<std::vector<std::vector<int>>> succ;  // [p][pc]: successors of a block end (empty: flow.next)
  std::vector<std::vector<int>> position;           // [p][pc]: a run passes each at most once
  std::vector<std::vector<std::vector<int>>> trip;  // [p][pc]: the unknowns a block end's resolution writes
  std::vector<std::vector<int>> start;              // [p]: the pcs a process may start at
  int unknowns = 0;                                  // how many (objects of their own)
};

class Reducer {
 public:
  explicit Reducer(const Model& m, const ExitLayout* exits = nullptr);
  Reducer(const Model& m, const BranchLayout& branches);
  // A subset of `enabled` that is persistent in s (all of it when no
  // smaller persistent set is found, or when reduction is off because the
  // system has more than kMaxObjects objects).
  std::vector<Step> reduce(const State& s, const Async& a, const std::vector<Step>& enabled);
  // The smallest persistent set whose steps are all `allowed` (a cycle
  // proviso of the caller's), among them one with a `preferred` step if
  // there is one (progress the caller's state space needs), or all of
  // `enabled`.
  std::vector<Step> reduce(const State& s, const Async& a, const std::vector<Step>& enabled,
                           const std::function<bool(const Step&)>& allowed,
                           const std::function<bool(const Step&)>& preferred);
  // With an ExitLayout: leaving[p] says that process p may leave its loop
  // now (a transition that writes the trip count, an object of its own).
  // Returns the processes and steps of a persistent set: a process that may
  // leave is in it when Step{Exec, p, -1} is. nullopt: no smaller set.
  // leave_from[p]: the least head pc at which p may leave its loop in this
  // state or any later one (program size: none).
  std::optional<std::vector<Step>> reduceWithExits(const State& s, const Async& a, const std::vector<Step>& enabled,
                                                   const std::vector<char>& leaving,
                                                   const std::vector<int>* leave_from = nullptr);
  bool active() const { return active_; }
  // With an ExitLayout: windows take a process's exit paths, and a step
  // into an iteration touches the trip count, only at heads from
  // leave_from[p] on (on by default; clustered systems always). Off: at
  // every head (tests compare the two; docs/z3.md "The lap exploration's
  // proviso and heads below the trip count's bound").
  void exitsFromBound(bool on) { exits_from_bound_ = on || precise_exits_; }
  // With a BranchLayout: the processes whose next step is local (below; a
  // diagnostic, CAKE_PERSIST_PROFILE).
  int localSteps(const State& s, const Async& a) const {
    int n = 0;
    for (const Agent& g : agents(s, a)) n += localStep(g);
    return n;
  }
  // With a BranchLayout: seeds whose step is *local* (its footprint lies in
  // atoms no other process accesses) are tried first (on by default; which
  // persistent set is taken does not matter to soundness: docs/z3.md "Local
  // steps first"). Tests compare the two.
  void localFirst(bool on) { local_first_ = on; }
  // With a BranchLayout: settled[p] says that process p stands at a block
  // end whose resolution, in this state, narrows none of the unknowns (every
  // branch keeps them as they are). Its outcome then reads only facts that
  // no other step can change (the unknowns only narrow: a lower bound
  // already past the tile, an end already fixed), so the unknowns leave
  // that step's footprint and its window's first stretch (docs/z3.md
  // "Settled resolutions"). Read by the next reduce() calls; nullptr: none.
  void settledResolutions(const std::vector<char>* settled) { settled_ = settled; }
  // The work done (deterministic: the proof's budget charges `ops`,
  // encoder/proof_budget.h; the persistent exploration with a BranchLayout,
  // the lap exploration with an ExitLayout): seeds whose persistent set was
  // computed or taken from the memo (BranchLayout), and the operations of
  // the computed ones' windows and closures (per window computation one per
  // agent, then one per contribution given, wait tested, stretch footprint
  // added, and pair of agents the closure compared).
  struct Work { uint64_t computed = 0, memo_hits = 0, ops = 0; };
  const Work& work() const { return work_; }
  // With a BranchLayout: keep the persistent sets of every key met (on by
  // default) or of the last one only (tests compare the two: the same sets).
  void memoEveryKey(bool on) { memo_every_key_ = on; }
  // With a BranchLayout: a window goes on past a wait only where the wait's
  // own phase can complete (Supply::continues; on by default, as in
  // clustered systems, where it is always on), else past every wait whose
  // parity can pass (tests compare the two). A pass at another phase is
  // sync.stale-phase, which ends its run: the wait's own step stays in the
  // window, what comes after it does not (docs/z3.md "Windows that stop at
  // a wait's own phase").
  void phaseWindows(bool on) { phase_windows_ = on || cluster_phases_; }
  // Keep every rule's violations, not only the verdict (docs/semantics.md
  // "Runs that end"): the visibility condition and what the state checks
  // read. Off, the reduction keeps the verdict (some violation is found
  // whenever one is reachable) at the cost of the plain footprints.
  void keepEveryRule(bool on) { every_rule_ = on; }

 private:
  struct Contribution {     // what a stretch of program can give to others
    int slot = -1, named = -1;
    int64_t arrivals = 0, landed = 0, expected = 0;
  };
  std::vector<Contribution> exitGives(int p, int exits_begin) const;
  struct Agent {
    enum class Kind { Proc, Load, Comp } kind = Kind::Proc;
    int proc = -1;
    int load = -1;          // Load: index into Async::loads
    bool enabled = false;   // some transition of it is enabled
    bool exec_enabled = false;
    bool leaves = false;    // Proc with an ExitLayout: may leave its loop now
    Step step;
    Foot trans;             // footprint of its current transition
    // Comp / Load: fixed window
    Foot win;
    std::vector<Contribution> gives;
  };
  struct Window {
    Foot foot;
    Bits enables;           // slots / named barriers it may arrive on or land on
  };
  struct Supply;
  void clearWindows(std::vector<Window>& win, size_t n) const;

  const Model& m_;
  bool active_ = true;
  int words_ = Bits::kWords;  // the words of a Bits that hold this system's objects (setWords)
  void setWords(int objects) { words_ = std::clamp((objects + 63) / 64, 1, Bits::kWords); }
  bool every_rule_ = true;
  int obj_named_ = 0, obj_atom_ = 0, obj_cta_ = 0, obj_trip_ = 0;
  // Clusters: whether the cluster barrier has completed a generation (read
  // by remote accesses, written by its arrivals; monotone, so dropped from
  // every footprint once it has: readyMask()), and the precise exit paths.
  int obj_ready_ = -1;
  bool precise_exits_ = false;
  mutable const std::vector<int>* leave_from_ = nullptr;  // reduceWithExits' argument, during the call
  bool exits_from_bound_ = true;  // (exitsFromBound)
  struct ExitSeg {          // the j-th stretch of every exit path of a process
    Foot foot;              // from its j-th wait (j > 0) up to its next wait or its end
    std::vector<Contribution> gives;
    std::vector<int> waits; // the waits that end the stretch (the (j+1)-th of each path)
  };
  std::vector<std::vector<ExitSeg>> exit_segs_;      // [p]
  std::vector<Foot> leave_foot_;                     // [p]: the leaving step's own footprint
  void precomputeExitSegs();
  bool mayLeaveIn(int p, int a, int b) const;        // a head in [a, b] where p may still leave
  void readyMask(const State& s, Foot& f) const;
  // per process, per pc (without a BranchLayout: with one, below)
  std::vector<std::vector<Foot>> own_, spawn_, head_win_;
  // With a BranchLayout the footprints are not kept per pc (a Foot is 384
  // bytes, a combined program tens of thousands of pcs: zeroing and
  // faulting in those arrays was most of the reducer's set-up): each pc's
  // own footprint is an index into own_feet_ (the distinct ones), its spawn
  // footprint is needed during the set-up only, and its head window is
  // feet_[after_id_] (empty at a wait). ownFoot() reads either form.
  std::vector<Foot> own_feet_;
  std::vector<std::vector<int>> own_foot_id_;  // [p][pc]
  const Foot& ownFoot(int p, int pc) const { return branches_ ? own_feet_[own_foot_id_[p][pc]] : own_[p][pc]; }
  static int internInto(std::vector<Foot>& table, const Foot& f, std::unordered_map<uint64_t, std::vector<int>>& interned);
  // (without an ExitLayout) what the state checks after a step read, a
  // part of the step's own footprint only, not of windows (endsFoot)
  std::vector<std::vector<Foot>> ends_;
  std::vector<std::vector<int>> onto_wait_;          // [p][pc]: the wait at the next pc, or -1
  // [p][pc] / [p][block]: the slots of onto_wait_ over a window's stretch
  // from pc (up to the next wait) / from the block's wait (to the next one)
  std::vector<std::vector<Bits>> onto_head_, onto_seg_;
  bool any_onto_ = false;  // some onto_wait_ entry (without an ExitLayout)
  void precomputeOntoWaits(int p);
  mutable std::vector<int64_t> window_arrivals_;     // per slot: what the last windows() gives
  std::vector<std::vector<int>> next_block_;        // pc -> index into blocks_[p] (size: none)
  std::vector<std::vector<int>> blocks_;             // pcs of Wait / SyncWait
  std::vector<std::vector<Foot>> seg_win_;           // per block: window foot of [block, next block)
  // Named barriers whose every arrival is an lm.sync (a SyncArrive whose
  // next pc is the SyncWait on the same barrier): per barrier the warps of
  // the processes that arrive on it, or -1 (another kind of arrival, or
  // more warps than complete a generation); per process, whether it
  // arrives on each (docs/z3.md "Windows that stop at an lm.sync barrier's
  // next generation"). windows() reads them.
  std::vector<int64_t> sync_warps_;
  std::vector<std::vector<char>> syncs_on_;         // [p][named barrier]
  void precomputeSyncOnly();
  mutable std::vector<char> plain_capped_;           // windows(): per named barrier, capped for this seed
  mutable std::vector<uint64_t> plain_gen_used_;     // windows(): per agent, capped barriers passed once
  mutable std::vector<uint64_t> plain_named_given_;  // windows(): per agent, capped barriers given to once
  // with an ExitLayout
  const ExitLayout* exits_ = nullptr;
  // with a BranchLayout: per pc the footprint of the stretch from it to the
  // waits it reaches (H: empty at a wait; A: the pc's own and its
  // successors' H), the pcs with a contribution there and those waits
  const BranchLayout* branches_ = nullptr;
  std::vector<std::vector<int>> after_id_;          // [p][pc]: the stretch's footprint, an index into feet_
  std::vector<Foot> feet_;                           // distinct footprints of stretches
  mutable std::vector<uint32_t> foot_stamp_;         // per feet_ entry: the window that added it last
  int internFoot(const Foot& f, std::unordered_map<uint64_t, std::vector<int>>& interned);
  // [p][pc]: those waits, a range of wait_list_ (one array: the lists are
  // read in the windows' innermost loop, and a heap block per pc missed
  // the cache there)
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> waits_after_;
  std::vector<int> wait_list_;
  // [p][pc]: what the stretch after pc gives, one record per key (its
  // largest contribution among the stretch's pcs), a range of give_recs_
  struct GiveRec {
    int32_t key;
    Contribution c;
  };
  std::vector<GiveRec> give_recs_;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> gives_after_;
  // [p][pc]: the id of that range's content (equal records, equal id): a
  // window gives each distinct content once (again it would give nothing:
  // each key already has its largest amount), with a stamp per id
  std::vector<std::vector<int32_t>> give_id_;
  mutable std::vector<uint32_t> give_stamp_;
  // [p][pc] of a wait: what Supply::passable reads of its instruction
  struct WaitRec {
    int32_t slot = -1, named = -1;  // a Wait (slot) or a SyncWait (named)
    int64_t phase = 0;
  };
  static WaitRec waitRecOf(const Instr& in) {
    WaitRec w;
    if (in.kind == InstrKind::Wait) w.slot = in.slot, w.phase = in.phase;
    else w.named = in.named;
    return w;
  }
  std::vector<std::vector<WaitRec>> wait_rec_;
  // (without a BranchLayout) [p][b]: the same of blocks_[p][b], for windows()
  std::vector<std::vector<WaitRec>> block_rec_;
  std::vector<std::vector<int>> give_key_;          // [p][pc]: index of (position, slot / named), -1: none
  int keys_ = 0;
  mutable std::vector<uint32_t> key_stamp_;
  mutable std::vector<std::vector<uint32_t>> wait_stamp_;  // [p][pc]
  // clustered systems (and, phase_windows_, every system with branches): a
  // window passes a wait only at its own phase (Supply::continues); else it
  // adds the wait's own step once, its footprint interned with the
  // stretches' (own_id_: [p][pc] of a wait, an index into feet_)
  bool cluster_phases_ = false;
  bool phase_windows_ = false;  // (phaseWindows)
  std::vector<std::vector<int>> own_id_;
  mutable std::vector<Contribution> key_given_;
  mutable uint32_t stamp_ = 0;
  std::vector<std::vector<Contribution>> contrib_;  // [p][pc]: contribution(p, pc)
  // branchWindows' scratch, reused from call to call
  std::shared_ptr<Supply> scratch_supply_;
  mutable std::vector<uint32_t> scratch_stamp_;
  mutable std::vector<std::vector<int>> scratch_front_;
  mutable std::vector<Window> scratch_win_;
  mutable std::vector<char> scratch_in_;
  mutable std::vector<int> scratch_list_;
  mutable std::vector<std::pair<int, int>> scratch_queue_;                // (agent, wait) to test
  struct Parked {           // a wait of agent `agent`'s window that failed its test
    int64_t need;           // the arrivals its test needs (Supply::need)
    int agent, pc;
  };
  mutable std::vector<std::vector<Parked>> scratch_parked_;  // per slot, then named barrier: least need first
  std::vector<int> successors(int p, int pc) const;
  void precomputeBranches();
  std::pair<uint32_t, uint32_t> giveRecs(int p, const std::vector<int>& gives);
  const std::vector<Window>& branchWindows(const State& s, const std::vector<Agent>& ag, int frozen) const;
  std::vector<Foot> exit_foot_;                      // per process: all of its exit paths
  std::vector<std::vector<Contribution>> exit_gives_;
  std::vector<std::vector<int>> heads_before_;       // [p][pc]: loop heads in [0, pc)

  // Adds what program[a..b) gives, and every exit path if a head lies in [a, b].
  template <class Give>
  void giveRange(int p, int a, int b, Give&& give) const;
  // [p]: the pcs whose instruction gives something (contribution() not
  // empty), ascending, and what each gives: giveRange visits only those
  std::vector<std::vector<int>> give_pcs_;
  std::vector<std::vector<Contribution>> give_of_;
  // [p][pc] (pc up to the program's size): the index in give_pcs_[p] of
  // the first of them at or after pc (a binary search per stretch was a
  // twentieth of windows()' time)
  std::vector<std::vector<int>> give_from_;

  // Does applying st in s end its run (a violation, a lost phase, the exit)?
  bool visible(const State& s, const Async& a, const Step& st) const;
  void precompute();
  Foot accessFoot(int p, int pc) const;
  // accessFoot of each pc with accesses, and the one current at a pc (the
  // synchronous access of the step before it, which the pc's step ends),
  // per [p][pc]: an index into access_feet_, -1 if empty
  std::vector<Foot> access_feet_;
  // with a BranchLayout, per process: the atoms no other process accesses
  std::vector<Bits> private_;
  bool local_first_ = true;
  void precomputePrivate();
  // settledResolutions: the per-process flags (nullptr: none), the
  // unknowns' objects, and per block end the interned footprint of the
  // stretch after it with its own resolution's unknowns left out (-1: not a
  // block end, or a wait)
  mutable const std::vector<char>* settled_ = nullptr;
  Bits trip_mask_;
  std::vector<std::vector<int>> settled_after_id_;
  bool settledAt(int p, int pc) const {
    return settled_ && branches_ && static_cast<size_t>(p) < settled_->size() && (*settled_)[p] &&
           !branches_->trip[p][pc].empty();
  }
  bool localStep(const Agent& ag) const;
  std::vector<std::vector<int>> access_id_, current_id_;
  void precomputeAccessFeet();
  void clusterFoot(int p, int pc, Foot& own, Foot& spawn) const;
  void endsFoot(int p, int pc, Foot& own, Foot& spawn) const;
  Contribution contribution(int p, int pc) const;
  // (the result lives in plain_agents_ until the next call)
  const std::vector<Agent>& agents(const State& s, const Async& a, const std::vector<char>* leaving = nullptr) const;
  std::vector<std::vector<Step>> persistentSets(const State& s, const std::vector<Agent>& ag,
                                                const std::function<bool(const std::vector<Step>&)>* enough =
                                                    nullptr,
                                                const Async* a = nullptr) const;
  // With a BranchLayout: the persistent set of each seed is a function of
  // what the windows and the closure read (memoKey); computed once per key.
  // Kept for every key met, not only the last (memoEveryKey): states that
  // differ in what no window reads (data tags, tile ends, registers...)
  // share their sets, also across the explorations of one layout (each
  // tile length). An open-addressing table of the keys (in one arena); it
  // is emptied when its keys pass kMemoBytes (deterministic: the same input
  // meets the same keys in the same order, so the same work is counted at
  // any load). Off: the sets of the last key only.
  void memoKey(const State& s, const Async& a, const std::vector<Agent>& ag, std::vector<int32_t>& key) const;
  std::vector<std::optional<std::vector<Step>>>* memoSets(const std::vector<int32_t>& key, size_t agents) const;
  struct MemoEntry {
    uint64_t hash;
    uint32_t at, len;  // the key: memo_arena_[at, at + len)
    std::vector<std::optional<std::vector<Step>>> sets;  // per seed
  };
  static constexpr size_t kMemoBytes = size_t{128} << 20;
  bool memo_every_key_ = true;
  mutable std::vector<int32_t> key_scratch_;  // the key being built
  mutable std::vector<int32_t> memo_arena_;
  mutable std::vector<MemoEntry> memo_entries_;
  mutable std::vector<uint32_t> memo_slots_;  // entry index + 1; 0: empty
  mutable Work work_;
  // (the result lives in plain_win_ until the next call)
  const std::vector<Window>& windows(const State& s, const std::vector<Agent>& ag, int frozen) const;
  // agents()' and windows()' buffers, reused from call to call
  mutable std::vector<Agent> plain_agents_;
  mutable std::vector<Window> plain_win_;
  mutable std::shared_ptr<Supply> plain_supply_;
  mutable std::vector<int> plain_block_, plain_seg_;
  mutable Foot scratch_mz_, scratch_my_, scratch_onto_;  // closure()'s
  mutable Foot scratch_group_;                           // agents()': a committed MMA group
  mutable std::vector<size_t> scratch_order_;            // persistentSets()': the seeds' order
  // (the result lives in scratch_list_ until the next call)
  const std::vector<int>& closure(const State& s, const std::vector<Agent>& ag, const std::vector<Window>& win,
                                  int seed) const;
};

}  // namespace cake::encoder::sim
