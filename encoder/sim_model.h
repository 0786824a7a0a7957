// Internal to the explicit-state engine (simulator.cpp, sim_*.cpp): the
// static tables derived from a System, the state vector, and the step
// function. Not for other folders: use encoder/simulator.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "encoder/engine.h"
#include "encoder/simulator.h"
#include "encoder/system.h"

namespace cake::encoder::sim {

// The kinds of per-instance async groups (docs/semantics.md). tcgen05.ld
// and tcgen05.st have no commit: each op is its own committed group
// (Model::selfCommits) and their waits retire them all.
enum GroupKind { kMma = 0, kStore = 1, kCp = 2, kTmemLd = 3, kTmemSt = 4, kGroupKinds = 5 };

// A half-open interval of atoms (the pieces every byte range is cut into;
// bytes that every instruction accesses alike are one atom).
struct AtomRange {
  int a0 = 0, a1 = 0;
  bool overlaps(const AtomRange& o) const { return a0 < o.a1 && o.a0 < a1; }
};

// Programs that are not straight lines (encoder/trip_proof.cpp lays out one
// loop body window and one exit path per trip count). Without one, a
// process runs program[0], program[1], ... and is done at program.size().
struct ControlFlow {
  // next[p][pc]: the pc after program[pc] runs (>= program.size(): done).
  std::vector<std::vector<int32_t>> next;
  // prev[p][pc]: the instruction that ran just before the process reached
  // pc (-1: none); defined for every pc a process can be at, done pcs too.
  // Each pc must have a single predecessor.
  std::vector<std::vector<int32_t>> prev;
};

// Static tables.
class Model {
 public:
  explicit Model(const System& sys, const ControlFlow* flow = nullptr);

  const System& sys;
  // The cluster barrier may complete a generation by a process's exit
  // (clusterExitsMatter, encoder/cluster_exits.h): the steps then count only
  // the warps of processes that have not finished (completedByExits in
  // sim_state.cpp); the reduction, the Z3 engines and the trip proof do not
  // take such systems (docs/semantics.md "Clusters").
  bool cluster_exits = false;
  int P = 0;                       // processes
  int S = 0;                       // mbarrier slots
  int N = 0;                       // named barriers
  int atoms = 0;                   // all atoms
  int tracked = 0;                 // atoms whose data / fence state is kept (smem)
  std::vector<int> tracked_of;     // atom -> tracked index or -1
  std::vector<int> atom_space;     // atom -> space
  std::vector<int64_t> atom_lo, atom_hi;
  // atoms_of[p][pc][i]: atom range of program[pc].accesses[i]
  std::vector<std::vector<std::vector<AtomRange>>> atoms_of;
  // write_id[p][pc][i]: id of a data-tagged write, -1 otherwise
  std::vector<std::vector<std::vector<int>>> write_id;
  struct WriteRef { int proc, pc, acc; };
  std::vector<WriteRef> writes;
  // commit_seq[p][pc]: ordinal of an MmaCommit among its process's MmaCommits
  std::vector<std::vector<int>> commit_seq;
  // commits_before[p][pc]: MmaCommits of p before pc
  std::vector<std::vector<int>> commits_before;
  // ordinal_commits[p] (empty: none): p's completed MMA groups are numbered
  // in issue order from the state, not by commit_seq: each completion gets
  // one more than the largest number p's state holds (its observed number
  // and its unobserved completions). Only the order of these numbers means
  // anything (observe's max and <=), so an explorer may renumber them
  // order-preservingly; knowCompleted (lm.mma_wait), which reads the
  // absolute count, must not run for such a process (docs/z3.md "Commit
  // ordinals in issue order").
  std::vector<char> ordinal_commits;
  bool ordinal(int p) const { return !ordinal_commits.empty() && ordinal_commits[p]; }
  bool async_mma = true;           // target with asynchronous MMA

  // Layout of the state vector.
  int off_pc = 0, off_sgen = 0, off_obs = 0, off_slot = 0, off_named = 0, off_atom = 0, off_var = 0;

  ControlFlow flow;                 // empty: straight lines
  int nextPc(int p, int pc) const { return flow.next.empty() ? pc + 1 : flow.next[p][pc]; }
  int prevPc(int p, int pc) const { return flow.prev.empty() ? pc - 1 : flow.prev[p][pc]; }

  const Instr& instr(int p, int pc) const { return sys.procs[p].program[pc]; }
  int programSize(int p) const { return static_cast<int>(sys.procs[p].program.size()); }
  const Access& access(int p, int pc, int i) const { return instr(p, pc).accesses[i]; }
  // Do access i of program[pc] of p and access j of program[qpc] of q share
  // a byte? Their atoms first (the cheap test); an atom may stand for the
  // bytes of several runs (sim_state.cpp atomClasses), so the byte ranges
  // decide which two accesses meet (the same pairs as with one atom per
  // range: the same rule, access and message).
  bool overlap(int p, int pc, int i, int q, int qpc, int j) const {
    if (!atoms_of[p][pc][i].overlaps(atoms_of[q][qpc][j])) return false;
    return bytesMeet(access(p, pc, i), access(q, qpc, j));
  }
  // The group kind of an async instruction (Mma, TmaStore, CpAsync and their
  // commits / waits), or -1.
  int groupKind(InstrKind k) const;
  // An async op that is a committed group by itself (tcgen05.ld / st).
  static bool selfCommits(InstrKind k) { return k == InstrKind::TmemLoad || k == InstrKind::TmemStore; }
  // A wait that retires groups of its kind (all but `pending` newest; the
  // TMEM waits: all).
  static bool isGroupWait(InstrKind k) {
    return k == InstrKind::StoreWait || k == InstrKind::CpAsyncWait || k == InstrKind::MmaWait ||
           k == InstrKind::TmemLoadWait || k == InstrKind::TmemStoreWait;
  }
  // True when program[pc] executes generic accesses synchronously (its
  // accesses are "current" until the process's next step).
  bool isSyncAccess(int p, int pc) const;
};

// Does a read `acc` (of a view, by process p) find data other than it
// means in bytes whose last write has id `d` (Model::writes, -1: none or
// untagged)? Every engine decides data.stale-read with it. staleData
// compares the tags of a write and a read of overlapping bytes; byLaps:
// whether it compares laps (dataLap) rather than index and generation.
bool byLaps(const Access& w, const Access& r);
// Do the two views alone decide staleData for a write and a read of common
// bytes, whatever their tags? A read through a member of a union
// (pool.view(..., union=)) of data written through another member of the
// same union: that write's data, never stale. Else a read through a view
// that some instance writes there of data written through another view:
// stale.
bool viewsDecide(const ir::Schedule& s, const Access& w, const Access& r);
bool staleData(const ir::Schedule& s, const Access& w, const Access& r);
bool staleWrite(const Model& m, int p, const Access& acc, int32_t d);

// The async part of a state, decoded.
struct Load {
  int32_t proc, pc, phase;   // phase: the slot's phase being assembled at issue
  bool operator<(const Load& o) const { return std::tie(proc, pc) < std::tie(o.proc, o.pc); }
  bool operator==(const Load& o) const = default;
};
struct Group {
  int32_t commit_pc = -1;    // -1: the open group
  std::vector<int32_t> pcs;  // issuing pcs of its async ops
};
// An async completion no instance has observed yet (docs/semantics.md
// "Async work at exit"): a landed TMA load (proc -1) or a completed sm_100a
// MMA group (proc, seq), counted into `phase` of `slot`.
struct Unobserved {
  int32_t slot, phase, proc, seq;
  auto key() const { return std::tie(slot, phase, proc, seq); }
  bool operator<(const Unobserved& o) const { return key() < o.key(); }
  bool operator==(const Unobserved& o) const { return key() == o.key(); }
};
struct Async {
  std::vector<Load> loads;
  std::vector<std::vector<Group>> groups;  // [proc * kGroupKinds + kind]
  std::vector<Unobserved> unobserved;
  std::vector<Group>& of(int p, int k) { return groups[p * kGroupKinds + k]; }
  const std::vector<Group>& of(int p, int k) const { return groups[p * kGroupKinds + k]; }
};

// The state: a flat vector of int32 (hashable as is).
//   pc[P] sync_gen[P] observed_seq[P] | per slot: completed pending tx |
//   per named barrier: gen arrived | per tracked atom: AtomField |
//   var: the async part (encodeAsync)
struct State {
  std::vector<int32_t> v;
  bool operator==(const State&) const = default;
};
enum SlotField { kCompleted = 0, kPending = 1, kTx = 2, kSlotFields = 3 };
// Per tracked atom: the write whose data it holds (-1: none), and the
// processes (one bit each) whose generic-proxy writes / reads of it no
// lm.fence_proxy() of theirs has followed yet.
enum AtomField { kData = 0, kUnfencedWrites = 1, kUnfencedReads = 2, kAtomFields = 3 };
inline size_t atomField(const Model& m, int t, AtomField f) {
  return static_cast<size_t>(m.off_atom + kAtomFields * t + f);
}

State initialState(const Model& m);
Async decodeAsync(const Model& m, const State& s);
// decodeAsync into `a`, reusing its vectors' storage
void decodeAsyncInto(const Model& m, const State& s, Async& a);
void encodeAsync(const Model& m, State& s, const Async& a);
uint64_t hashState(const int32_t* v, size_t n);

inline int32_t pcOf(const Model& m, const State& s, int p) { return s.v[m.off_pc + p]; }
inline int32_t slotField(const Model& m, const State& s, int k, SlotField f) {
  return s.v[m.off_slot + kSlotFields * k + f];
}
// A wait for `phase` passes once the slot's completed-phase count differs from it in parity.
inline bool waitPasses(int64_t completed, int64_t phase) { return ((completed - phase) & 1) != 0; }
inline bool finished(const Model& m, const State& s, int p) { return pcOf(m, s, p) >= m.programSize(p); }
bool allFinished(const Model& m, const State& s);

// The steps enabled in s, in a fixed order (processes first, then landings,
// then group completions).
std::vector<Step> enabledSteps(const Model& m, const State& s, const Async& a);
bool isEnabled(const Model& m, const State& s, const Async& a, const Step& st);
// mma_wait(pending) must first see an MMA group with a commit barrier complete.
bool mmaWaitBlocked(const Model& m, const Async& a, int p, int64_t pending);

// Applies an enabled step to s (a copy of the predecessor, whose async part
// is `a`). Violations met by the step are appended to `found` (without
// traces); `info`, when given, describes the step.
void applyStep(const Model& m, State& s, const Async& a, const Step& st, std::vector<Violation>& found,
               StepInfo* info);

// An arrival-type step (an arrive, an expect_tx, a TMA load's bytes, an
// sm_100a MMA group's completion) counts into the slot's *current* phase,
// whatever phase its op means: lowering names only the slot. Returns that
// phase when it differs from the meant one (docs/semantics.md "Phase
// annotations"), else nullopt. The step must be enabled in s.
std::optional<int32_t> landsElsewhere(const Model& m, const State& s, const Step& st);
// The phase an arrival-type step counts into (its slot's current phase),
// whatever it means; nullopt for a step that is no arrival.
std::optional<int32_t> landingPhase(const Model& m, const State& s, const Step& st);

// Does static finding v (an arrival underflow or a transaction imbalance of
// a phase) explain a wait for `phase` of `slot` that blocks forever?
bool explainsDeadlock(const Violation& v, int slot, int64_t phase);

// Violations of the state itself: a waiter whose phase the slot has
// already passed (lost phase), async work at exit, deadlock (when a static
// finding of `statics` explains a blocked wait, that finding instead: the
// count is the cause, and this state is its witness).
void stateViolations(const Model& m, const State& s, const Async& a, const std::vector<Step>& enabled,
                     const std::vector<Violation>& statics, std::vector<Violation>& found);

}  // namespace cake::encoder::sim
