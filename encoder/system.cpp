// Schedule + concrete parameter values -> flat transition system.
// See system.h for the shape of the result and docs/semantics.md for the
// meaning of every instruction.
#include "encoder/system.h"
#include "encoder/barrier_order.h"
#include "encoder/block_coords.h"
#include "encoder/loop_coords.h"
#include "encoder/tmem_values.h"
#include "encoder/strided_split.h"
#include "encoder/system_hook.h"
#include "encoder/empty_loop_sizes.h"
#include "encoder/bv_prover.h"
#include "encoder/value_equality.h"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "ir/expect_tx.h"
#include "ir/expr_canon.h"
#include "ir/global_box.h"
#include "ir/int_eval.h"
#include "ir/tmem.h"

namespace cake::encoder {

using ir::BufferRef;
using ir::OpKind;
using ir::SlotSel;
using ir::Stmt;

namespace {

// (proc, view, index): a reader's view index whose reads may count a seed
// (Builder::checkSeeds)
using SeedKey = std::tuple<int, int, int64_t>;

// Internal: a reason why the schedule cannot be turned into a system.
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool rangesOverlap(int64_t alo, int64_t ahi, int64_t blo, int64_t bhi) { return alo < bhi && blo < ahi; }
// How many of the writes of `ranges` overlap [lo, hi).
int64_t overlapCount(const std::vector<Access::Written>& ranges, int64_t lo, int64_t hi) {
  int64_t n = 0;
  for (const Access::Written& r : ranges)
    if (rangesOverlap(r.lo, r.hi, lo, hi)) n += r.times;
  return n;
}

// Byte ranges per space, sorted by start, so that the ranges over a given
// one are found without a scan of all: Builder::resolveReads scanned every
// write per read, and lapsNotAfter and skippedLoopWrite every write of the
// read's space, quadratic in the system's size (docs/ci.md "Session 36",
// "Session 37").
template <class T>
class RangeIndex {
 public:
  struct Entry {
    int64_t lo, hi;
    T value;
  };
  void add(int space, int64_t lo, int64_t hi, T value) {
    Space& sp = spaces_[space];
    sp.entries.push_back({lo, hi, std::move(value)});
    sp.longest = std::max(sp.longest, hi - lo);
    sp.sorted = false;
  }
  // Calls f on every entry of `space` that overlaps [lo, hi), and on no
  // other, in the order they were added among those of one start.
  template <class F>
  void overlapping(int space, int64_t lo, int64_t hi, F&& f) const {
    auto sp = spaces_.find(space);
    if (sp == spaces_.end()) return;
    std::vector<Entry>& es = sp->second.entries;
    if (!sp->second.sorted) {
      std::stable_sort(es.begin(), es.end(), [](const Entry& x, const Entry& y) { return x.lo < y.lo; });
      sp->second.sorted = true;
    }
    // an entry that ends after lo starts after lo - longest
    const int64_t from = lo - sp->second.longest;
    auto it = std::lower_bound(es.begin(), es.end(), from, [](const Entry& e, int64_t v) { return e.lo < v; });
    for (; it != es.end() && it->lo < hi; ++it)
      if (rangesOverlap(it->lo, it->hi, lo, hi)) f(*it);
  }

 private:
  struct Space {
    mutable std::vector<Entry> entries;  // sorted on the first look-up
    int64_t longest = 0;
    mutable bool sorted = true;
  };
  std::map<int, Space> spaces_;
};
// What Builder::resolveReads indexes of a write: the highest lap its process
// writes through its view over its bytes.
struct WriteLap {
  int proc, view;
  int64_t lap;
};
using WrittenLaps = RangeIndex<WriteLap>;
// Do the ranges cover every byte of [lo, hi)?
bool coveredByPairs(std::vector<std::pair<int64_t, int64_t>> sorted, int64_t lo, int64_t hi) {
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [rlo, rhi] : sorted) {
    if (rlo > lo) return false;
    lo = std::max(lo, rhi);
    if (lo >= hi) return true;
  }
  return lo >= hi;
}
bool coveredBy(const std::vector<Access::Written>& ranges, int64_t lo, int64_t hi) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const Access::Written& r : ranges) pairs.emplace_back(r.lo, r.hi);
  return coveredByPairs(std::move(pairs), lo, hi);
}

// Per-process bookkeeping while unrolling (all of it is static: it depends
// only on the process's own program).
// Element indices of a register fragment, as sorted disjoint intervals
// [lo, hi) (adjacent ones merged): what a process has written so far.
class ElementSet {
 public:
  void add(int64_t lo, int64_t hi) {
    if (lo >= hi) return;
    auto it = iv_.upper_bound(lo);
    if (it != iv_.begin() && std::prev(it)->second >= lo) {
      // joins the interval before it: that one grows in place (same start)
      auto left = std::prev(it);
      if (left->second >= hi) return;
      while (it != iv_.end() && it->first <= hi) {
        hi = std::max(hi, it->second);
        it = iv_.erase(it);
      }
      left->second = hi;
      return;
    }
    // a new start: the first interval it reaches, if any, is moved to it
    // (its node reused), and the others it reaches are merged into it
    if (it == iv_.end() || it->first > hi) {
      iv_.emplace_hint(it, lo, hi);
      return;
    }
    hi = std::max(hi, it->second);
    auto node = iv_.extract(it++);
    while (it != iv_.end() && it->first <= hi) {
      hi = std::max(hi, it->second);
      it = iv_.erase(it);
    }
    node.key() = lo;
    node.mapped() = hi;
    iv_.insert(it, std::move(node));
  }
  // The first element of [lo, hi) not in the set. Merged intervals leave a
  // gap right after each one, so one step past the interval holding lo
  // decides.
  std::optional<int64_t> firstMissing(int64_t lo, int64_t hi) const {
    auto it = iv_.upper_bound(lo);
    if (it != iv_.begin() && std::prev(it)->second > lo) lo = std::prev(it)->second;
    if (lo < hi) return lo;
    return std::nullopt;
  }
  // The first element of [lo, hi) in the set.
  std::optional<int64_t> firstIn(int64_t lo, int64_t hi) const {
    auto it = iv_.upper_bound(lo);
    if (it != iv_.begin() && std::prev(it)->second > lo) return lo;
    if (it != iv_.end() && it->first < hi) return it->first;
    return std::nullopt;
  }
  std::vector<std::pair<int64_t, int64_t>> intervals() const { return {iv_.begin(), iv_.end()}; }
  void remove(int64_t lo, int64_t hi) {
    if (lo >= hi) return;
    auto it = iv_.upper_bound(lo);
    if (it != iv_.begin() && std::prev(it)->second > lo) --it;
    while (it != iv_.end() && it->first < hi) {
      const auto [a, b] = *it;
      it = iv_.erase(it);
      if (a < lo) iv_.emplace(a, lo);
      if (b > hi) iv_.emplace(hi, b);
    }
  }

 private:
  std::map<int64_t, int64_t> iv_;  // lo -> hi
};

// The loop variables the data an op writes may depend on (Builder::
// viewWriteDataLoops): `unknown` where it was not traced (docs/rules/
// data.stale-read.md "A write its loop skips").
struct DataLoops {
  bool unknown = false;
  std::set<int> vars;  // ir::Schedule::loop_vars indices
  void add(const DataLoops& o) {
    unknown |= o.unknown;
    vars.insert(o.vars.begin(), o.vars.end());
  }
  bool reads(int var) const { return unknown || vars.count(var); }
};

struct ProcState {
  std::map<int, int64_t> waits_on_slot;     // stage= waits so far, per flat slot
  std::map<int, int64_t> arrivals_on_slot;  // stage= arrive-type ops so far, per flat slot
  std::map<int, int64_t> waits_on_slot_total;  // waits per flat slot, any mode (read epochs)
  int64_t blocking_syncs = 0;               // any wait / bar.sync so far
  bool grid_dep_waited = false;             // lm.grid_dep_wait() ran
  // derived expect_tx: batch (ir::TxPlan) -> its latest arrival's
  // instr index and phase (the batch's later loads add their bytes to it)
  std::map<int, std::pair<size_t, int64_t>> batches;
  // data identity: (space, view, index) -> ranges written so far by this
  // process, each with how many times (a multicast load writes the same
  // bytes of several CTAs)
  std::map<std::tuple<int, int, int64_t>, std::vector<Access::Written>> writes;
  // Per view index read: own_gen, the generation of this process's latest
  // write of the index since its last read of it (-1: none); own_ranges,
  // the ranges of those writes (a read's own bytes, Access::own_since).
  // The generation a read means is counted per byte range (BytesRead,
  // docs/rules/data.stale-read.md "Returns are counted per byte"): how
  // many times this process came back to *these bytes* of the index, not
  // to the index; `returns` the returns alone (no read-back). `plain`: the
  // same counts without the re-read rule (Builder::checkRereads replays
  // them where the rule does not hold).
  struct BytesRead {
    int64_t lo, hi;
    int64_t marker;           // the read marker at the last read of the range
    int64_t epoch, returns;   // -1: the process's own initial value, read back
    int64_t epoch_plain, returns_plain;
    // epoch = max(from_init, floor): the first read's count plus the
    // returns since (from_init) and the read-backs' own generations plus
    // the returns after each (floor, kNoFloor: none), so that a first
    // read found later to be no lap of the others can be taken off the
    // count exactly (Builder::discountFirstReadsOfSlotUpdates)
    int64_t from_init = 0, from_init_plain = 0;
    int64_t floor = kNoFloor, floor_plain = kNoFloor;
    int first_instr = -1;  // the program index of the process's first read of the range
    bool seeded = false;   // that first read found the process's own initial value
  };
  static constexpr int64_t kNoFloor = std::numeric_limits<int64_t>::min() / 4;
  struct ReadEpoch {
    int64_t marker = 0;
    int64_t own_gen = -1;
    std::vector<BytesRead> bytes;  // disjoint, sorted by lo
    // `bytes` as counted without the seed rule, once a read of the index
    // counted a seed (until then the two are equal): what the index's reads
    // mean if Builder::checkSeeds finds the seed overwritten
    std::optional<std::vector<BytesRead>> unseeded_bytes;
    std::vector<std::pair<int64_t, int64_t>> own_ranges;
    int64_t key_iter = -1;    // the keying loop's iteration of the last read (-1: none)
    int64_t bar_marker = 0;   // bar_syncs at the last read
    // the bytes of the last read if it read back bytes all its own (or
    // re-read such a read; empty otherwise)
    int64_t read_back_lo = 0, read_back_hi = 0;
    int last_instr = -1;      // the program index of the last read
  };
  std::map<std::pair<int, int64_t>, ReadEpoch> reads;
  int64_t bar_syncs = 0;  // lm.sync / cluster syncs so far (re-reads, Builder::checkRereads)
  // One read of a view index, in program order, for replaying its
  // generation without the re-read rule (Builder::checkRereads): the
  // instruction and access, and what tag() saw.
  struct ReadEvent {
    size_t instr, acc;
    bool reread;
    int64_t gen_plain, returns_plain;  // what the read means without the re-read rule
    int64_t m1, m2;  // a re-read: bar_syncs at the previous read and at this one
    int prev_instr;  // the previous read's program index (-1: none)
    bool loop_free;  // a re-read only by its key on the loop around it (its index names no loop variable)
    bool back;       // a read-back: the process wrote the index since its previous read of it
  };
  std::map<std::pair<int, int64_t>, std::vector<ReadEvent>> read_events;
  // data.uninitialized: regs index -> the elements this process wrote so far
  std::map<int, ElementSet> regs_written;
  // regs indices written in the body of a loop that ran no iteration
  std::set<int> regs_skipped;
  // data.stale-accumulator: regs index -> the elements whose value this
  // process stored out of registers and has not overwritten since, and
  // regs index -> the fragments (and their elements) copied or computed
  // into it since its last overwrite
  std::map<int, ElementSet> regs_stored;
  std::map<int, std::map<int, ElementSet>> regs_copies;
  std::map<int, int> regs_stored_at;  // regs index -> program index of its last store
  std::map<int, std::vector<const ir::Stmt*>> regs_stored_loops;  // the loops around that store
  // data.discarded-product: regs index -> the elements that hold an MMA
  // product this process has not read since, and the program index of the
  // last MMA into the fragment
  std::map<int, ElementSet> regs_unread;
  std::map<int, int> regs_product_at;
  // the elements the last MMA into each fragment wrote (productsUnreadAtExit)
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> regs_product_elements;
  // fragments whose product an op with another destination read (moved
  // out: a promotion, a copy, a store, an MMA operand), and of those, the
  // ones then started afresh (an init= MMA, or a write of their own such as
  // a fill): a temporary that is emptied and refilled (productsUnreadAtExit)
  std::set<int> regs_moved_out;
  std::set<int> regs_refilled;
};

class Builder {
 public:
  Builder(const ir::Schedule& s, const Binding& b, ir::Target t, const BuildLimits& lim)
      : s_(s), lim_(lim) {
    for (const ir::Assume& a : s_.assumes) lowerBoundedParams(a.cond, assumed_from_below_);
    sys_.schedule = &s;
    sys_.binding = b;
    sys_.target = t;
  }

  void setHook(const EvalHook* hook) { hook_ = hook; }
  void setSemantics(const BuildSemantics& sem) { sem_ = sem; }
  void setEmptyLoops(ReplacedEmptyLoops* e) { empty_loops_ = e; }

  System build() {
    resolveTarget();
    makeCluster();
    for (int c = 0; c < sys_.ctas; ++c) makeSlots(c);
    for (int c = 0; c < sys_.ctas; ++c) makeSpaces(c);
    tx_plan_ = ir::planDerivedTx(s_);
    findFillBarriers();
    findReadAndWrittenTensors();
    for (int c = 0; c < sys_.ctas; ++c)
      for (int r = 0; r < static_cast<int>(s_.roles.size()); ++r)
        for (int i = 0; i < s_.roles[r].instanceCount(); ++i) makeProcess(r, i, c);
    markStageLike();
    makeNamedBarriers();  // (resolveReads' barrier order reads them)
    checkSeeds();
    checkRereads();
    labelSharedLoadsByPhase();
    discountFirstReadsOfSlotUpdates();
    resolveReads();
    returns_by_range_.clear();
    orderGridDependencies();
    sim::splitStridedAccesses(sys_);
    markTmemHazards(sys_, tmem_facts_);
    return std::move(sys_);
  }

 private:
  const ir::Schedule& s_;
  BuildLimits lim_;
  System sys_;
  size_t total_ = 0;
  std::vector<int> tmem_space_;                        // cta -> TMEM space (-1: none)
  std::vector<std::vector<int>> smem_space_;           // cta -> pool -> space
  int cta_ = 0;                                        // the CTA of the process being built
  int space_cta_ = 0;                                  // the CTA whose memory access() names
  std::optional<std::set<int>> used_regs_;             // productUsed(): fragments some op reads
  std::pair<const Instr*, int> accumulating_read_{nullptr, -1};  // the MMA reading the accumulator it adds to
  TmemBuildFacts tmem_facts_;                          // for markTmemHazards (encoder/tmem_values.h)
  std::map<std::pair<int, int>, int> regs_space_;      // (regs, proc) -> space
  std::set<int> rw_tensors_;                           // tensor params some op reads and some op writes
  std::map<CoordSite, const ir::Expr*> block_coords_;  // coordinate -> its block term (globalCoord)
  std::map<const ir::ExprPtr*, LoopFold> loop_coords_;  // coordinate slot -> its fold (globalCoord)
  std::map<std::tuple<int, int, int>, int> global_space_;  // (param, rank, cta) -> space
  ir::TxPlan tx_plan_;                                 // derived expect_tx (ir/expect_tx.h)
  std::map<int, std::set<int>> fill_barriers_;         // view -> barriers its TMA loads name
  // (op, view) -> some index of that view >= stages. Per operand view: an MMA
  // that reads a tile by its one stage and a ring by iterations names the
  // tile's stage and the ring's iterations.
  std::map<std::pair<const Stmt*, int>, bool> reaches_stages_;
  ir::EvalEnv env_;
  int proc_ = -1;
  ProcState* ps_ = nullptr;
  std::map<std::string, int64_t> regs_state_ids_;  // regsStateId
  std::vector<std::pair<int, int64_t>> loops_;
  std::vector<int64_t> iter_serials_;  // per entry of loops_: a number unique to that iteration
  int64_t next_iter_serial_ = 0;
  int64_t body_serial_ = -1;           // a number unique to the process's body (outside every loop)
  bool key_loop_free_ = false;         // key_iter_ is the loop around the operand (its index names none)
  int64_t key_iter_ = -1;              // the keying loop iteration of the operand being added (addRef)
  size_t in_instr_ = 0, in_acc_ = 0;  // the instruction (program index) and access being tagged
  // A read's returns counted over each byte range it covers, keyed by
  // (process, instruction, access); its gen_returns is their highest. A
  // range its process seeded counts one fewer (docs/rules/data.stale-read.md
  // "A value its reader seeds, in part"). Build-only, as gen_returns.
  struct RangeReturns {
    int64_t lo, hi, returns, returns_plain;
    // as in ProcState::BytesRead
    int64_t from_init, from_init_plain, floor, floor_plain;
    int first_instr;
    bool seeded;
  };
  struct ReadRanges {
    int view;
    int64_t index, lo, hi;  // the read they were counted for
    std::vector<RangeReturns> ranges;
  };
  std::map<std::tuple<int, size_t, size_t>, ReadRanges> returns_by_range_;
  // view writes, for the re-read check: (space, proc, lo, hi, bar_syncs at the write)
  struct MarkedWrite {
    int space, proc;
    int64_t lo, hi, marker;
    int pc;      // its program index
    bool async;  // lands after its instruction (a TMA load, cp.async)
  };
  std::vector<MarkedWrite> marked_writes_;
  // first reads with pieces counted as seeded by their reader (checkSeeds)
  struct SeedEvent {
    int proc, instr, space;
    SeedKey key;
    std::vector<std::pair<int64_t, int64_t>> pieces;
  };
  std::vector<SeedEvent> seed_events_;
  // What a read of an index with a counted seed means without the seed
  // rule (tag()): checkSeeds puts it in place where the seed is overwritten.
  struct UnseededRead {
    size_t instr, acc;
    size_t event;  // its entry in the process's read_events_ of the index
    int64_t gen, returns, gen_plain, returns_plain;
    std::vector<RangeReturns> by_range;
  };
  std::map<SeedKey, std::vector<UnseededRead>> unseeded_reads_;
  // per process: its reads of each view index in program order (tag())
  std::vector<std::map<std::pair<int, int64_t>, std::vector<ProcState::ReadEvent>>> read_events_;
  std::vector<const ir::Stmt*> loop_stmts_;  // the loops around the op being built, outermost first
  bool in_bounds_ = false;            // evaluating a loop's bounds
  const EvalHook* hook_ = nullptr;    // buildSystemHooked
  BuildSemantics sem_;                // buildSystemHooked
  ReplacedEmptyLoops* empty_loops_ = nullptr;  // buildSystemHooked: a proof's build
  int replaced_loop_depth_ = 0;       // inside loops bounded by Binding::replace
  bool left_replaced_loop_ = false;   // this process has left such a loop
  std::set<int> replaced_vars_;       // the variables of such loops
  std::set<int> assumed_from_below_;  // parameters an lm.assume bounds from below (emptyTripAdmitted)
  // Each loop run: (process, the loops around it, its variable) -> its
  // start, step and trip count (skippedLoopWrite pairs loops by them).
  struct LoopRun {
    int64_t lo, step, trips;
  };
  using Loops = std::vector<std::pair<int, int64_t>>;
  std::map<std::tuple<int, Loops, int>, LoopRun> loop_runs_;
  std::map<int, const Stmt*> loop_stmt_of_;  // loop variable -> its loop

  // ------------------------------------------------------------ set-up

  // An unspecified target is inferred from what the schedule uses
  // (docs/semantics.md "Targets"): TMEM -> sm_100a, cp.async -> sm_80,
  // otherwise sm_90a.
  void resolveTarget() {
    if (sys_.target != ir::Target::Unspecified) return;
    if (s_.target != ir::Target::Unspecified) { sys_.target = s_.target; return; }
    bool cp = false;
    for (const auto& body : s_.bodies)
      ir::forEachOp(body.body, [&](const Stmt& st) { cp |= st.op.kind == OpKind::CpAsync; });
    sys_.target = !s_.tmems.empty() ? ir::Target::SM100a : cp ? ir::Target::SM80 : ir::Target::SM90a;
  }

  // Every CTA of one cluster is modelled when the schedule reaches across
  // it; beyond kMaxClusterCtas the state space is out of reach, and the
  // verdict is unknown rather than a check of fewer CTAs.
  static constexpr int kMaxClusterCtas = 4;
  void makeCluster() {
    if (!s_.cluster_ops) return;
    sys_.ctas = s_.clusterSize();
    if (sys_.ctas > kMaxClusterCtas)
      throw BuildError(fmt::format("a cluster of {} CTAs (the model checker models clusters of at most {})",
                                   sys_.ctas, kMaxClusterCtas));
  }
  std::string ctaSuffix(int c) const { return sys_.ctas > 1 ? fmt::format("@cta{}", c) : ""; }

  void makeSlots(int c) {
    for (int b = 0; b < static_cast<int>(s_.barriers.size()); ++b) {
      const ir::Barrier& bar = s_.barriers[b];
      if (c == 0) sys_.barrier_base.push_back(static_cast<int>(sys_.slots.size()));
      for (int k = 0; k < bar.count; ++k)
        sys_.slots.push_back({b, k, c, bar.init_count, fmt::format("{}[{}]{}", bar.name, k, ctaSuffix(c))});
    }
    if (c == 0) sys_.slots_per_cta = static_cast<int>(sys_.slots.size());
  }

  void makeSpaces(int c) {
    smem_space_.emplace_back();
    for (int p = 0; p < static_cast<int>(s_.pools.size()); ++p) {
      smem_space_[c].push_back(static_cast<int>(sys_.spaces.size()));
      sys_.spaces.push_back({MemSpace::Kind::Smem, p, -1, c, s_.pools[p].name + ctaSuffix(c), {}});
    }
    tmem_space_.push_back(-1);
    if (!s_.tmems.empty()) {
      tmem_space_[c] = static_cast<int>(sys_.spaces.size());
      sys_.spaces.push_back({MemSpace::Kind::Tmem, -1, -1, c, "tmem" + ctaSuffix(c), {}});
    }
  }

  void findFillBarriers() { fill_barriers_ = fillBarriers(s_); }

  // Named barriers are per CTA; lm.cluster_sync()'s barrier.cluster spans
  // every warp of every role of every CTA of the cluster (docs/semantics.md
  // "Clusters": a role that skips it blocks the others). It waits for every
  // non-exited thread of the cluster (PTX ISA, barrier.cluster): where the
  // lowered kernel ends with a block barrier (ir::kernelEndsWithBlockBarrier,
  // the TMEM dealloc's __syncthreads) a warp without a role does not exit
  // but waits there, never arriving, so it counts too; elsewhere it exits at
  // once and does not.
  void makeNamedBarriers() {
    sys_.named_per_cta = static_cast<int>(s_.named_barriers.size());
    for (int c = 0; c < sys_.ctas; ++c)
      for (int n = 0; n < sys_.named_per_cta; ++n) {
        const ir::NamedBarrier& nb = s_.named_barriers[n];
        int warps = 0;
        for (int r : nb.roles) warps += static_cast<int>(s_.roles[r].warps.size());
        sys_.named.push_back({n, warps, nb.name + ctaSuffix(c)});
      }
    sys_.ends_with_block_barrier = ir::kernelEndsWithBlockBarrier(s_);
    if (sys_.cluster_named < 0) return;
    int warps = 0;
    for (const Process& p : sys_.procs) warps += p.warps;
    std::string name = "cluster barrier";
    const std::vector<int> idle = rolelessWarpsAtEnd(sys_);
    if (!idle.empty()) {
      warps += sys_.ctas * static_cast<int>(idle.size());
      name += fmt::format(" (also warp{} {} of each CTA: no role, {} at the closing __syncthreads(), never "
                          "arriving)",
                          idle.size() == 1 ? "" : "s", fmt::join(idle, ", "), idle.size() == 1 ? "it waits" : "they wait");
    }
    sys_.named.push_back({-1, warps, name});
  }
  int clusterNamed() {
    if (sys_.cluster_named < 0) sys_.cluster_named = sys_.ctas * static_cast<int>(s_.named_barriers.size());
    return sys_.cluster_named;
  }

  void makeProcess(int role, int instance, int cta) {
    const ir::Role& r = s_.roles[role];
    Process p;
    p.role = role;
    p.instance = instance;
    p.cta = cta;
    cta_ = space_cta_ = cta;
    p.warps = r.warpsPerInstance();
    p.name = (r.instanceCount() > 1 ? fmt::format("{}[{}]", r.name, instance) : r.name) + ctaSuffix(cta);
    proc_ = static_cast<int>(sys_.procs.size());
    sys_.procs.push_back(std::move(p));
    ProcState st;
    ps_ = &st;
    env_ = ir::EvalEnv{};
    env_.params = sys_.binding.params;
    env_.replace = sys_.binding.replace;
    env_.replace_value = sys_.binding.replace_value;
    env_.replace_hits = &sys_.replace_hits;
    env_.params_read = &sys_.params_read;
    env_.instance = instance;
    // In a modelled cluster the binding's block index names the cluster:
    // CTA `cta` is block cluster * b + its coordinate within the cluster.
    int64_t rest = cta;
    for (int d = 0; d < 3; ++d) {
      const int64_t dim = sys_.ctas > 1 ? s_.cluster[d] : 1;
      env_.block_idx[d] = dim * sys_.binding.block_idx[d] + rest % dim;
      env_.grid_dim[d] = dim * sys_.binding.grid_dim[d];
      rest /= dim;
    }
    loops_.clear();
    loop_stmts_.clear();
    replaced_loop_depth_ = 0;
    left_replaced_loop_ = false;
    iter_serials_.clear();
    body_serial_ = next_iter_serial_++;
    for (const ir::RoleBody& body : s_.bodies)
      if (body.role == role) block(body.body);
    if (!hook_) productsUnreadAtExit();
    if (sem_.regs_digests) recordLostAtExit();  // (the exit itself: the last entry)
    read_events_.push_back(std::move(st.read_events));
    ps_ = nullptr;
  }

  // ------------------------------------------------------------ evaluation

  int64_t eval(const ir::ExprPtr& e, std::string_view what) {
    if (!e) throw BuildError(fmt::format("{} is missing", what));
    const int64_t hits_before = sys_.replace_hits;
    const ir::ExprPtr h = hook_ ? hooked(e) : e;
    auto v = ir::evaluate(*h, env_);
    if (!v) throw BuildError(fmt::format("{} ({}) does not evaluate for {}", what, ir::exprToString(*e, s_),
                                         bindingToString(s_, sys_.binding)));
    if ((sys_.replace_hits != hits_before || readsReplaced(*h)) && !in_bounds_) noteReplacedUse(e.get());
    // inside a loop the replaced expression bounds: every expression, the
    // bounds of loops nested in it too (lap induction checks each moves
    // with the period beyond its window; docs/z3.md)
    if (replaced_loop_depth_ > 0) {
      auto& body = sys_.replace_loop_exprs;
      if (std::find(body.begin(), body.end(), e.get()) == body.end()) body.push_back(e.get());
    }
    return *v;
  }

  // init= of an MMA into registers. It decides the register hazards
  // (data.uninitialized: the first run on an undefined slice;
  // data.stale-accumulator: a run adding to a slice stored out). It is
  // evaluated without being recorded as a use of the replaced expression or
  // of the loop body (eval), which would refuse per-tile `init=(k == 0)` in
  // persistent loops; the persistent proof checks instead that no init=
  // reads the tile's ring start (trip_proof.cpp checkRegsPathIndependent).
  int64_t evalInit(const ir::ExprPtr& e) {
    int64_t* hits = env_.replace_hits;
    env_.replace_hits = nullptr;
    auto v = hook_ ? ir::evaluate(*hooked(e), env_) : ir::evaluate(*e, env_);
    env_.replace_hits = hits;
    if (!v) throw BuildError(fmt::format("init= ({}) does not evaluate for {}", ir::exprToString(*e, s_),
                                         bindingToString(s_, sys_.binding)));
    return *v;
  }

  // e with every sub-expression the hook evaluates replaced by its value.
  // The hook is asked of every node, parents before their parts, as it
  // always was; only a node above a replaced part is copied (the rest stay
  // e's own: most nodes of a build's expressions, whose copies were a fifth
  // of a persistent proof's grid builds).
  ir::ExprPtr hooked(const ir::ExprPtr& e) const {
    if (auto v = (*hook_)(*e, env_)) return ir::makeConst(*v);
    std::shared_ptr<ir::Expr> copy;  // made at the first part that changes
    for (size_t i = 0; i < e->args.size(); ++i) {
      if (!e->args[i]) continue;
      ir::ExprPtr h = hooked(e->args[i]);
      if (h == e->args[i]) continue;
      if (!copy) copy = std::make_shared<ir::Expr>(*e);
      copy->args[i] = std::move(h);
    }
    if (copy) return copy;
    return e;
  }

  // Whether `e` (hooked: what the hook decides is a constant) holds the
  // replaced expression anywhere, read or not: `not (k > 30 and k_tiles >
  // 90)` never reads k_tiles in a window of 24 iterations (the `and` stops
  // at `k > 30`), and a use noted only where read was no use at all: the
  // lap induction then checked the guard neither as a read of the trip
  // count nor as a body expression, and proved the release it skips from
  // k = 31 on (helper sound40). A use is noted wherever the expression
  // holds it.
  bool readsReplaced(const ir::Expr& e) const {
    const ir::Expr* r = sys_.binding.replace;
    return r && ir::anySubExpr(e, [r](const ir::Expr& x) { return ir::sameExpr(x, *r); });
  }

  // Where the replaced expression (Binding::replace) is read outside loop
  // bounds (System::replace_uses).
  void noteReplacedUse(const ir::Expr* e) {
    System::ReplacedUse u;
    u.expr = e;
    u.region = replaced_loop_depth_ > 0 ? System::ReplacedUse::Body
               : left_replaced_loop_    ? System::ReplacedUse::Exit
                                        : System::ReplacedUse::Prefix;
    u.process = proc_;
    u.loop_vars = env_.loop_vars;
    for (int var : replaced_vars_) u.loop_vars.erase(var);  // those stay symbolic in the proof
    u.instance = env_.instance.value_or(0);
    auto& uses = sys_.replace_uses;
    if (std::find(uses.begin(), uses.end(), u) == uses.end()) uses.push_back(std::move(u));
  }

  Process& proc() { return sys_.procs[proc_]; }

  // ------------------------------------------------------------ control

  void block(const ir::Block& b) {
    for (const Stmt& st : b) {
      switch (st.kind) {
        case Stmt::Kind::Op: {
          const size_t first = proc().program.size();
          op(st);
          storedAccumulators(st, first);
          break;
        }
        case Stmt::Kind::If:
          block(eval(st.cond, "the condition") != 0 ? st.body : st.orelse);
          break;
        case Stmt::Kind::For: loop(st); break;
      }
    }
  }

  void loop(const Stmt& st) {
    const int64_t hits_before = sys_.replace_hits;
    in_bounds_ = true;
    int64_t lo = eval(st.lo, "the loop start"), hi = eval(st.hi, "the loop end");
    int64_t step = st.step ? eval(st.step, "the loop step") : 1;
    in_bounds_ = false;
    const bool replaced = sys_.replace_hits != hits_before;
    sys_.replace_hits_in_bounds += sys_.replace_hits - hits_before;
    if (step == 0) throw BuildError("a loop step is zero");
    replaced_loop_depth_ += replaced;
    if (replaced) replaced_vars_.insert(st.loop_var);
    // A loop that runs no iteration because a problem-size parameter is zero
    // or negative (K = 0) counts as writing the register fragments its body
    // writes (data.uninitialized, docs/semantics.md): a degenerate size, not
    // the schedule's order of writes (a trip-count proof's replaced bound is
    // such a size where every binding with that count is: emptyAtDegenerateSize,
    // empty_loop_sizes.h). These write nothing: a loop empty at positive sizes
    // (lm.range(0, K // 2) at K = 1), a loop empty whatever the sizes
    // (constant bounds, or an outer loop's variable: a triangular loop's
    // first row), and one whose bounds read a parameter that an lm.assume
    // bounds from below: the schedule admits that size (a grouped GEMM's
    // group with K = 0 under lm.assume(K >= 0)).
    if (!(step > 0 ? lo < hi : lo > hi) && !emptyTripAdmitted(st) && emptyAtDegenerateSize(st, replaced)) {
      markSkippedRegsWrites(st.body);
      markSkippedTmemWrites(st.body);
    }
    loop_stmts_.push_back(&st);
    loop_runs_[{proc_, loops_, st.loop_var}] = LoopRun{lo, step, tripsOf(lo, hi, step)};
    loop_stmt_of_[st.loop_var] = &st;
    for (int64_t v = lo; step > 0 ? v < hi : v > hi; v += step) {
      env_.loop_vars[st.loop_var] = v;
      loops_.push_back({st.loop_var, v});
      iter_serials_.push_back(next_iter_serial_++);
      block(st.body);
      iter_serials_.pop_back();
      loops_.pop_back();
    }
    loop_stmts_.pop_back();
    replaced_loop_depth_ -= replaced;
    left_replaced_loop_ |= replaced;
    env_.loop_vars.erase(st.loop_var);
  }

  static int64_t tripsOf(int64_t lo, int64_t hi, int64_t step) {
    if (step > 0) return lo < hi ? (hi - lo + step - 1) / step : 0;
    return lo > hi ? (lo - hi - step - 1) / -step : 0;
  }

  // ------------------------------------------------------------ data loops

  // The loop variables the data each view-writing op of the schedule may
  // depend on (skippedLoopWrite): those its expressions read (coordinates,
  // slots, slices, scalar operands) and those of what its register sources
  // may hold - every write into a fragment anywhere in its role's program,
  // before or after (a fixpoint over the role's ops, whatever their order
  // and guards: a rewrite the loop skips would read the fragment as a
  // later iteration leaves it). Unknown where a source is shared or tensor
  // memory (not traced), a global tensor the kernel also writes (its data
  // changes under the same coordinates), or the op is not a copy, fill,
  // TMA / cp.async load or element-wise op. Sound for its one use: data
  // that reads none of a loop's variables is the same at each of its
  // iterations, since an expression reads only parameters, loop variables
  // and per-process constants.
  std::map<const Stmt*, DataLoops> viewWriteDataLoops() const {
    std::map<const Stmt*, DataLoops> out;
    for (int r = 0; r < static_cast<int>(s_.roles.size()); ++r) {
      std::vector<const Stmt*> ops;
      std::map<const Stmt*, std::set<int>> around;  // each op's enclosing loops
      std::map<const Stmt*, LoopControl> control;   // and what picks their iterations
      for (const ir::RoleBody& body : s_.bodies)
        if (body.role == r) opsWithLoops(body.body, {}, {}, ops, around, control);
      std::map<int, DataLoops> regs = heldAcrossIterations(ops, around);  // regs index -> what it may hold
      for (bool grew = true; grew;) {
        grew = false;
        for (const Stmt* st : ops) {
          if (st->op.dst.kind != BufferRef::Kind::Regs) continue;
          DataLoops& into = regs[st->op.dst.index];
          const DataLoops before = into;
          into.add(withControl(opDataLoops(st->op, regs), control.at(st)));
          grew |= into.unknown != before.unknown || into.vars.size() != before.vars.size();
        }
      }
      for (const Stmt* st : ops)
        if (st->op.dst.kind == BufferRef::Kind::View) out[st] = withControl(opDataLoops(st->op, regs), control.at(st));
    }
    return out;
  }
  // The loops around an op, outermost first, each with the loop variables
  // its bounds read and those of the guards around the op whose innermost
  // loop read is it.
  using LoopControl = std::vector<std::pair<int, std::set<int>>>;
  static void opsWithLoops(const ir::Block& b, const std::vector<int>& loops, const LoopControl& ctl,
                           std::vector<const Stmt*>& ops, std::map<const Stmt*, std::set<int>>& around,
                           std::map<const Stmt*, LoopControl>& control) {
    for (const Stmt& st : b) {
      if (st.kind == Stmt::Kind::Op) {
        ops.push_back(&st);
        around[&st] = std::set<int>(loops.begin(), loops.end());
        control[&st] = ctl;
        continue;
      }
      std::vector<int> inner = loops;
      LoopControl inner_ctl = ctl;
      if (st.kind == Stmt::Kind::For) {
        inner.push_back(st.loop_var);
        inner_ctl.push_back({st.loop_var, {}});
        for (const ir::ExprPtr& e : {st.lo, st.hi, st.step}) addLoopVars(e, inner_ctl.back().second);
      } else {
        // a guard picks iterations of the innermost loop whose variable it
        // reads; of the loops inside that one it picks all or none
        std::set<int> reads;
        addLoopVars(st.cond, reads);
        for (size_t i = inner_ctl.size(); i-- > 0;)
          if (reads.count(inner_ctl[i].first)) {
            inner_ctl[i].second.insert(reads.begin(), reads.end());
            break;
          }
      }
      opsWithLoops(st.body, inner, inner_ctl, ops, around, control);
      opsWithLoops(st.orelse, inner, inner_ctl, ops, around, control);
    }
  }
  // Data that reads a loop's variable depends on which of its iterations
  // run the op, and so on what the bounds of that loop and of the loops
  // inside it (around the op), and the guards that pick among their
  // iterations, read (session 38: `for j in lm.range(t, t + 1): lm.copy(v,
  // T, coords=(j, 0))`, or `if j == t:` around it, holds tile t's row at
  // every t though no expression of the write reads t; so does a loop
  // `for k in lm.range(j, j + 1): if k == t:` inside the j loop). Only the
  // variables of loops outside the one read are added: at one of its
  // iterations the data is the same at every iteration of a loop inside
  // it that the data does not read (a row written under `if k == 0:` in
  // the K loop, from the tile's coordinates, reads t, not k). Closed
  // over: an added variable's loop adds its own in turn. A guard that
  // reads no variable of a loop nor of a loop inside it (`if t == 0:`
  // around or inside the j loop) is the same at each of its iterations:
  // it runs them all or none, the same data, and adds nothing (a lazy
  // table stays the same).
  static DataLoops withControl(DataLoops d, const LoopControl& ctl) {
    for (bool grew = true; grew;) {
      grew = false;
      std::set<int> outside;  // the variables of the loops outside the i-th
      for (size_t i = 0; i < ctl.size(); outside.insert(ctl[i++].first)) {
        if (!d.vars.count(ctl[i].first)) continue;
        for (size_t j = i; j < ctl.size(); ++j)
          for (int x : ctl[j].second)
            if (outside.count(x)) grew |= d.vars.insert(x).second;
      }
    }
    return d;
  }
  // A fragment holds one value at every iteration of a loop only where one
  // statement defines it from data the loop does not change. Written by
  // several statements, which one ran last may depend on the iteration
  // (guards: `if t % 2 == 0: lm.copy(v, T, coords=(0, 0)) else: ...(1, 0)`),
  // and a fragment its own definition reads (directly or through other
  // fragments: `lm.binary(v, v, 1.0, op="add")`, a running offset) carries
  // a value that changes per iteration though no expression reads the loop
  // variable: such a fragment may change per iteration of every loop
  // around any of its writes (session 37: both hid a skipped write). A
  // reduce's running values (value=, src2) are written too, by an op the
  // trace does not follow (unknown).
  std::map<int, DataLoops> heldAcrossIterations(const std::vector<const Stmt*>& ops,
                                                const std::map<const Stmt*, std::set<int>>& around) const {
    std::map<int, int> defs;                 // regs -> statements writing it
    std::map<int, std::set<int>> def_loops;  // regs -> loops around them
    std::map<int, std::set<int>> sources;    // regs -> fragments its writes read
    std::map<int, DataLoops> held;
    for (const Stmt* st : ops) {
      const ir::Op& o = st->op;
      if (o.kind == OpKind::Reduce && o.src2.kind == BufferRef::Kind::Regs) held[o.src2.index].unknown = true;
      if (o.dst.kind != BufferRef::Kind::Regs) continue;
      ++defs[o.dst.index];
      def_loops[o.dst.index].insert(around.at(st).begin(), around.at(st).end());
      for (const BufferRef* r : {&o.src, &o.src2})
        if (r->kind == BufferRef::Kind::Regs) sources[o.dst.index].insert(r->index);
    }
    for (const auto& [f, n] : defs) {
      std::set<int> seen, todo = sources[f];  // what f's value may be computed from
      while (!todo.empty()) {
        const int x = *todo.begin();
        todo.erase(todo.begin());
        if (!seen.insert(x).second) continue;
        for (int y : sources[x]) todo.insert(y);
      }
      if (n > 1 || seen.count(f)) held[f].vars.insert(def_loops[f].begin(), def_loops[f].end());
    }
    return held;
  }
  DataLoops opDataLoops(const ir::Op& o, std::map<int, DataLoops>& regs) const {
    DataLoops d;
    switch (o.kind) {
      case OpKind::Copy: case OpKind::Fill: case OpKind::Unary: case OpKind::Binary:
      case OpKind::TmaLoad: case OpKind::CpAsync: break;
      default: d.unknown = true; return d;
    }
    for (const ir::ExprPtr& e : o.coords) addLoopVars(e, d.vars);
    addLoopVars(o.fill_value, d.vars);
    for (const BufferRef* r : {&o.dst, &o.src, &o.src2}) {
      addLoopVars(r->slot, d.vars);
      addLoopVars(r->scalar, d.vars);
      for (const ir::Slice& sl : r->slices) {
        addLoopVars(sl.lo, d.vars);
        addLoopVars(sl.hi, d.vars);
      }
    }
    for (const BufferRef* r : {&o.src, &o.src2}) {
      if (r->kind == BufferRef::Kind::Regs) d.add(regs[r->index]);
      else if (r->kind == BufferRef::Kind::View || r->kind == BufferRef::Kind::Tmem) d.unknown = true;
      else if (r->kind == BufferRef::Kind::Param && rw_tensors_.count(r->index)) d.unknown = true;
    }
    return d;
  }
  static void addLoopVars(const ir::ExprPtr& e, std::set<int>& vars) {
    if (!e) return;
    if (e->kind == ir::ExprKind::LoopVar) vars.insert(e->index);
    for (const ir::ExprPtr& a : e->args) addLoopVars(a, vars);
  }

  Instr& emit(InstrKind k, const Stmt& st) {
    if (++total_ > lim_.max_instrs)
      throw BuildError(fmt::format("more than {} instructions after unrolling", lim_.max_instrs));
    Instr in;
    in.kind = k;
    in.stmt = &st;
    in.loops = loops_;
    if (!loops_.empty()) in.iteration = loops_.back().second;
    if (st.op.sel.mode == SlotSel::Mode::Iter) in.iteration = eval(st.op.sel.index, "iter=");
    if (sem_.regs_digests) {
      sys_.regs_digests.resize(sys_.procs.size());
      sys_.regs_digests[proc_].push_back(regsStateId());
      recordLostAtExit();
    }
    proc().program.push_back(std::move(in));
    return proc().program.back();
  }

  // The process's register bookkeeping as one number per distinct state of
  // this build (BuildSemantics::regs_digests): every field the register
  // hazards read or change, written out in full; only the program indices
  // kept for messages (regs_stored_at, regs_product_at's values) are left
  // out, and of regs_product_at only which fragments hold a product counts
  // (unreadProducts reads no more). Equal numbers are equal states.
  int64_t regsStateId() {
    std::string key;
    auto put = [&](int64_t v) { key += std::to_string(v) + ','; };
    auto putSet = [&](const ElementSet& e) {
      for (const auto& [lo, hi] : e.intervals()) put(lo), put(hi);
      key += ';';
    };
    const ProcState& ps = *ps_;
    for (const auto& [r, e] : ps.regs_written) put(r), putSet(e);
    key += '|';
    for (int r : ps.regs_skipped) put(r);
    key += '|';
    for (const auto& [r, e] : ps.regs_stored) put(r), putSet(e);
    key += '|';
    for (const auto& [into, from] : ps.regs_copies) {
      put(into);
      for (const auto& [r, e] : from) put(r), putSet(e);
      key += '/';
    }
    key += '|';
    for (const auto& [r, loops] : ps.regs_stored_loops) {
      put(r);
      for (const ir::Stmt* l : loops) key += fmt::format("{},", static_cast<const void*>(l));
    }
    key += '|';
    for (const auto& [r, e] : ps.regs_unread) put(r), putSet(e);
    key += '|';
    for (const auto& [r, at] : ps.regs_product_at) put(r);
    key += '|';
    for (const auto& [r, ivs] : ps.regs_product_elements) {
      put(r);
      for (const auto& [lo, hi] : ivs) put(lo), put(hi);
    }
    key += '|';
    for (int r : ps.regs_moved_out) put(r);
    key += '|';
    for (int r : ps.regs_refilled) put(r);
    return regs_state_ids_.try_emplace(std::move(key), static_cast<int64_t>(regs_state_ids_.size())).first->second;
  }

  // ------------------------------------------------------------ barrier slots

  struct SlotPhase {
    int slot = -1;         // flat
    int64_t phase = 0;
    bool counted = false;  // stage= without phase=: the phase is counted per instance
  };

  // The slot and meant phase an op names on barrier b (IR.md "Slots and phases").
  SlotPhase slotPhase(const SlotSel& sel, int b) {
    const ir::Barrier& bar = s_.barriers[b];
    SlotPhase sp;
    if (sel.mode == SlotSel::Mode::Iter) {
      int64_t e = eval(sel.index, "iter=");
      sp.slot = sys_.slotOf(b, ir::floorMod(e, bar.count).value(), cta_);
      sp.phase = ir::floorDiv(e, bar.count).value();
      return sp;
    }
    int64_t stage = sel.mode == SlotSel::Mode::Stage ? eval(sel.index, "stage=") : 0;
    if (stage < 0 || stage >= bar.count)
      throw BuildError(fmt::format("stage={} is out of range for barrier '{}' ({} slots)", stage, bar.name, bar.count));
    sp.slot = sys_.slotOf(b, stage, cta_);
    if (sel.phase) sp.phase = eval(sel.phase, "phase=");
    else sp.counted = true;
    return sp;
  }

  int64_t countedPhase(std::map<int, int64_t>& counter, const SlotPhase& sp) {
    return sp.counted ? counter[sp.slot]++ : sp.phase;
  }

  // ------------------------------------------------------------ buffers

  int regsSpace(int regs) {
    auto key = std::make_pair(regs, proc_);
    auto it = regs_space_.find(key);
    if (it != regs_space_.end()) return it->second;
    int id = static_cast<int>(sys_.spaces.size());
    sys_.spaces.push_back({MemSpace::Kind::Regs, regs, proc_, cta_, fmt::format("{}@{}", s_.regs[regs].name, proc().name), {}});
    regs_space_[key] = id;
    return id;
  }

  // ------------------------------------------------------------ global memory
  // docs/semantics.md "Global memory": the accesses of a global tensor that
  // the CTA both reads and writes (only a read and a write of one element
  // can race there: two stores are not reported, see accessesConflict), at
  // the element box its coordinates and tile shape place.

  void findReadAndWrittenTensors() {
    rw_tensors_ = readAndWrittenTensors(s_);
    if (sem_.translate_block_coords) block_coords_ = blockOwnedCoords(s_);
    if (sem_.translate_loop_coords) loop_coords_ = loopOwnedCoords(s_, kGlobalAddressBits);
  }

  // A coordinate of a global access. In a proof's build, one whose
  // dimension every access of the tensor names through one block term t
  // (blockOwnedCoords: t + g1, t + g2, ..., t >= 0 in every launch) is
  // evaluated with t at 0, reading no block index, where that leaves it >= 0:
  // the boxes of every block are this system's moved by t in that
  // dimension, none clipped at 0 (g >= 0 and t >= 0), so they overlap alike
  // (docs/z3.md "A block's own slice of a read-and-written global tensor").
  // Where g < 0 (a box a block could clip) it is evaluated as written, and
  // the read of the block index is recorded (a proof refuses it).
  // The coordinate is looked up where it is named (tensor, rank,
  // dimension): by its node alone, `t` owned in B's rows was placed at 0 in
  // C's rows too, where another access names row 1, and block 1's race
  // there was missed by a system that read no block index (helper sound44).
  // One whose tensor's accesses move together with a loop value
  // (loopOwnedCoords: c * v + g, g >= 0 for every instance, loop values
  // never sharing an element) is evaluated as g + |c| * (v mod M)
  // (docs/z3.md "A global tensor's rows per loop iteration"); it is keyed by
  // the op's coordinate slot for the same reason.
  int64_t globalCoord(int tensor, size_t rank, size_t dim, const ir::ExprPtr& e) {
    if (!e) return eval(e, "coords=");
    if (const auto loop = loop_coords_.find(&e); loop != loop_coords_.end()) return foldedCoord(e, loop->second);
    const auto it = block_coords_.find({tensor, rank, dim, e.get()});
    if (it == block_coords_.end()) return eval(e, "coords=");
    const int64_t rest = evalWithTermAtZero(e, *it->second);
    return rest >= 0 ? rest : eval(e, "coords=");
  }

  // g + |c| * (v mod M), >= 0 (loopOwnedCoords bounds g per instance): a
  // function of the loop value v alone, whatever the term evaluates to.
  int64_t foldedCoord(const ir::ExprPtr& e, const LoopFold& f) {
    const int64_t moved = eval(ir::ExprPtr(ir::ExprPtr{}, f.term), "coords=");  // c * v
    const int64_t lap = ir::floorMod(ir::floorDiv(moved, f.factor).value(), f.modulus).value();
    return evalWithTermAtZero(e, *f.term) + std::llabs(f.factor) * lap;
  }

  // `e` evaluated with its node `term` at 0 (and the other nodes as the
  // build's hook says).
  int64_t evalWithTermAtZero(const ir::ExprPtr& e, const ir::Expr& term_node) {
    const ir::Expr* term = &term_node;
    const EvalHook* outer = hook_;
    const EvalHook drop = [term, outer](const ir::Expr& x, const ir::EvalEnv& env) -> std::optional<int64_t> {
      if (&x == term) return 0;
      return outer && *outer ? (*outer)(x, env) : std::nullopt;
    };
    hook_ = &drop;
    int64_t rest = 0;
    try {
      rest = eval(e, "coords=");
    } catch (...) {
      hook_ = outer;
      throw;
    }
    hook_ = outer;
    return rest;
  }

  // Each dimension of a rank-N tensor gets kGlobalAddressBits / N bits of
  // the model address: a fixed layout (every system of the schedule places
  // an element at the same address, whatever its trip counts), injective
  // on coordinates below 2^bits. An access reaching past them is left out.
  static constexpr int kGlobalAddressBits = 62;
  static constexpr int64_t kMaxGlobalPlanes = 64;  // outer indices of one TMA box

  int globalSpace(int param, int rank) {
    auto key = std::make_tuple(param, rank, cta_);
    auto it = global_space_.find(key);
    if (it != global_space_.end()) return it->second;
    const int id = static_cast<int>(sys_.spaces.size());
    MemSpace sp{MemSpace::Kind::Global, param, -1, cta_, s_.params[param].name + ctaSuffix(cta_), {}};
    sp.extents.assign(static_cast<size_t>(rank), int64_t{1} << (kGlobalAddressBits / rank));
    sys_.spaces.push_back(std::move(sp));
    global_space_[key] = id;
    return id;
  }

  // The extents of an operand's (sliced) tile: a view slot or a register
  // fragment; nullopt for any other operand.
  std::optional<std::vector<int64_t>> tileShape(const BufferRef& ref) {
    std::vector<int64_t> dims;
    if (ref.kind == BufferRef::Kind::View) dims = shapeOf(s_.views[ref.index].shape);
    else if (ref.kind == BufferRef::Kind::Regs) dims = shapeOf(s_.regs[ref.index].shape);
    else return std::nullopt;
    for (size_t d = 0; d < ref.slices.size() && d < dims.size(); ++d) {
      const ir::Slice& sl = ref.slices[d];
      const auto lo = sl.lo ? std::optional(eval(sl.lo, "a slice start")) : std::nullopt;
      const auto hi = sl.hi ? std::optional(eval(sl.hi, "a slice end")) : std::nullopt;
      dims[d] = ir::slicedExtent(dims[d], lo, hi);
    }
    return dims;
  }

  // The element box of `tensor` an op's tile covers: [lo, hi) per tensor
  // dimension, nullopt where the model leaves the access out (a coordinate
  // that does not evaluate, a tile lowering does not place, coordinates past
  // the layout's bits) or empty (no element in bounds: coordinates below 0
  // name none).
  std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> globalBox(const ir::Op& o, int tensor,
                                                                                 const BufferRef& tile, bool tma) {
    const int rank = static_cast<int>(o.coords.size());
    const auto shape = tileShape(tile);
    if (!shape || rank < 1) return std::nullopt;
    const std::vector<int64_t> box = ir::opBoxShape(*shape, rank, tma);
    if (box.empty()) return std::nullopt;
    const int64_t limit = int64_t{1} << (kGlobalAddressBits / rank);
    std::vector<int64_t> lo(rank), hi(rank);
    for (int d = 0; d < rank; ++d) {
      int64_t c = 0;
      try {
        c = globalCoord(tensor, o.coords.size(), static_cast<size_t>(d), o.coords[d]);
      } catch (const BuildError&) {
        return std::nullopt;
      }
      lo[d] = std::max<int64_t>(c, 0);
      hi[d] = c + box[d];
      if (hi[d] > limit) return std::nullopt;
      if (hi[d] <= lo[d]) return std::make_pair(std::vector<int64_t>{}, std::vector<int64_t>{});
    }
    return std::make_pair(std::move(lo), std::move(hi));
  }

  // The accesses of an op's tensor operand: one strided access (rows x
  // columns) per index of the dimensions outside the last two. None where
  // the tensor is not both read and written by the CTA, or the box is left
  // out (globalBox).
  void addGlobal(Instr& in, const BufferRef& tensor, const BufferRef& tile, bool tma, bool write, Proxy proxy,
                 bool async) {
    const ir::Op& o = in.stmt->op;
    if (tensor.kind != BufferRef::Kind::Param || !rw_tensors_.count(tensor.index)) return;
    const auto box = globalBox(o, tensor.index, tile, tma);
    if (!box || box->first.empty()) return;
    const auto& [lo, hi] = *box;
    const int rank = static_cast<int>(lo.size());
    const int space = globalSpace(tensor.index, rank);
    const std::vector<int64_t>& ext = sys_.spaces[space].extents;
    const int inner = std::max(0, rank - 2);  // the dimensions of one plane: [inner, rank)
    int64_t planes = 1;
    for (int d = 0; d < inner; ++d) planes *= hi[d] - lo[d];
    if (planes > kMaxGlobalPlanes) return;
    std::vector<int64_t> at(lo.begin(), lo.begin() + inner);
    for (int64_t n = 0; n < planes; ++n) {
      int64_t base = 0;
      for (int d = 0; d < rank; ++d) base = base * ext[d] + (d < inner ? at[d] : lo[d]);
      Access a;
      a.space = space;
      a.write = write;
      a.proxy = proxy;
      a.async = async;
      const int64_t cols = hi[rank - 1] - lo[rank - 1];
      a.runs = rank >= 2 ? hi[rank - 2] - lo[rank - 2] : 1;
      a.stride = a.runs > 1 ? ext[rank - 1] : 0;
      a.lo = base;
      a.hi = base + (a.runs - 1) * a.stride + cols;
      std::vector<std::string> dims;
      for (int d = 0; d < rank; ++d)
        dims.push_back(d < inner ? fmt::format("{}", at[d]) : fmt::format("{}:{}", lo[d], hi[d]));
      a.what = fmt::format("{}[{}]", sys_.spaces[space].name, fmt::join(dims, ", "));
      in.accesses.push_back(std::move(a));
      for (int d = inner; d-- > 0;) {  // next plane, the last outer dimension fastest
        if (++at[d] < hi[d]) break;
        at[d] = lo[d];
      }
    }
  }

  std::vector<int64_t> shapeOf(const std::vector<ir::ExprPtr>& shape) {
    std::vector<int64_t> dims;
    for (const auto& d : shape) dims.push_back(eval(d, "a shape dimension"));
    return dims;
  }

  // Byte range of a (sliced) sub-tile of a row-major tile at `base`: the
  // bounding range, which is exact when only the outermost dimension is
  // sliced (the common case: rows per warpgroup). Also the exact element
  // count for transaction bytes, and the sub-tile's contiguous byte runs
  // when an inner dimension is sliced (`runs`, empty when the bounding range
  // is exact or the runs are more than kMaxTileRuns): a column band per warp
  // (`tile[0][:, 16 * w:16 * w + 16]`) touches only its columns of every row,
  // and two warps' bands do not overlap although their bounding ranges do.
  // When the runs are evenly spaced (always so for a 2-D tile sliced in
  // its columns), `nruns` and `stride` say so: the access is one strided
  // Access (bytesMeet decides overlap exactly), up to kMaxStridedRuns runs.
  static constexpr int64_t kMaxTileRuns = 256;
  static constexpr int64_t kMaxStridedRuns = int64_t{1} << 14;
  struct Tile {
    int64_t lo, hi, elems;
    std::string slices;
    std::vector<std::pair<int64_t, int64_t>> runs;
    int64_t nruns = 1, stride = 0;  // evenly spaced runs (nruns > 1), else 1
  };
  Tile tileRange(const std::vector<int64_t>& dims, const std::vector<ir::Slice>& slices, int64_t base, int esize) {
    std::vector<int64_t> lo(dims.size(), 0), hi = dims;
    std::string text;
    for (size_t d = 0; d < slices.size() && d < dims.size(); ++d) {
      if (slices[d].lo) lo[d] = std::clamp<int64_t>(eval(slices[d].lo, "a slice start"), 0, dims[d]);
      if (slices[d].hi) hi[d] = std::clamp<int64_t>(eval(slices[d].hi, "a slice end"), 0, dims[d]);
      if (hi[d] < lo[d]) hi[d] = lo[d];
      text += (d ? ", " : "") + (slices[d].lo || slices[d].hi ? fmt::format("{}:{}", lo[d], hi[d]) : std::string(":"));
    }
    int64_t elems = 1, first = 0, last = 0, stride = 1;
    for (size_t d = dims.size(); d-- > 0;) {
      elems *= hi[d] - lo[d];
      first += lo[d] * stride;
      last += (hi[d] - 1) * stride;
      stride *= dims[d];
    }
    Tile t{base + first * esize, base + (last + 1) * esize, elems, slices.empty() ? "" : "[" + text + "]", {}};
    if (elems == 0) {
      t.hi = t.lo;
      return t;
    }
    // The innermost dimension that is sliced: dimensions inside it are
    // whole, so each index of the dimensions outside it starts one run.
    size_t cut = dims.size();
    for (size_t d = dims.size(); d-- > 0;) {
      if (lo[d] != 0 || hi[d] != dims[d]) {
        cut = d;
        break;
      }
    }
    if (cut == dims.size() || cut == 0) return t;  // whole tile, or outermost rows only: contiguous
    int64_t nruns = 1;
    for (size_t d = 0; d < cut; ++d) nruns *= hi[d] - lo[d];
    if (nruns <= 1 || nruns > kMaxStridedRuns) return t;  // contiguous, or the bounding range (covers every run)
    int64_t inner = 1;  // elements of one step of dimension `cut`
    for (size_t d = cut + 1; d < dims.size(); ++d) inner *= dims[d];
    const int64_t run_elems = (hi[cut] - lo[cut]) * inner;
    std::vector<int64_t> idx(lo.begin(), lo.begin() + static_cast<std::ptrdiff_t>(cut));
    bool even = true;
    int64_t prev = 0;  // the previous run's start
    for (int64_t r = 0; r < nruns; ++r) {
      int64_t start = lo[cut] * inner, step = inner * dims[cut];
      for (size_t d = cut; d-- > 0;) {
        start += idx[d] * step;
        step *= dims[d];
      }
      const std::pair<int64_t, int64_t> run{base + start * esize, base + (start + run_elems) * esize};
      if (r == 1) t.stride = run.first - prev;
      else if (r > 1) even = even && run.first - prev == t.stride;
      prev = run.first;
      if (r < 2 || static_cast<int64_t>(t.runs.size()) < kMaxTileRuns || !even) t.runs.push_back(run);
      if (!even && nruns > kMaxTileRuns) break;
      for (size_t d = cut; d-- > 0;) {  // next index, last dimension fastest
        if (++idx[d] < hi[d]) break;
        idx[d] = lo[d];
      }
    }
    if (even) t.nruns = nruns;
    else t.stride = 0;
    if (static_cast<int64_t>(t.runs.size()) != nruns || nruns > kMaxTileRuns) t.runs.clear();
    return t;
  }

  // The accesses of a buffer operand; `index` overrides the view index (ops
  // that name their slot with stage=/iter=). Global tensors and scalars
  // have none; a view sub-tile sliced in an inner dimension that is written
  // has one per contiguous run (Tile::runs), every other operand one.
  std::vector<Access> access(const BufferRef& ref, std::optional<int64_t> index, bool write, Proxy proxy,
                             bool async, int64_t* bytes = nullptr) {
    Access a;
    a.write = write;
    a.proxy = proxy;
    a.async = async;
    switch (ref.kind) {
      case BufferRef::Kind::View: {
        const ir::View& v = s_.views[ref.index];
        auto dims = shapeOf(v.shape);
        int esize = ir::dtypeBytes(v.dtype);
        int64_t slot_bytes = esize;
        for (int64_t d : dims) slot_bytes *= d;
        int64_t offset = eval(v.offset, "a view offset");
        a.space = smem_space_[space_cta_][v.pool];
        a.view = ref.index;
        if (!index && ref.slot) index = eval(ref.slot, "a view slot");
        // A one-stage view used bare is its one slot, view[0] (IR.md), and
        // means the data of the lap it reads like any other slot access: a
        // whole-ring access would pin every read to lap 0 and call a tile
        // that is refilled every iteration stale (docs/rules/data.stale-read.md).
        if (!index && !ref.slot && v.stages == 1) index = 0;
        if (!index) {  // the whole ring
          a.lo = offset;
          a.hi = offset + slot_bytes * v.stages;
          a.index = -1;
          a.what = fmt::format("{} bytes [{}, {})", v.name, a.lo, a.hi);
          if (bytes) *bytes = a.hi - a.lo;
          return {a};
        }
        a.index = *index;
        int64_t base = offset + ir::floorMod(*index, v.stages).value() * slot_bytes;
        Tile t = tileRange(dims, ref.slices, base, esize);
        a.lo = t.lo;
        a.hi = t.hi;
        if (bytes) *bytes = t.elems * esize;
        a.what = fmt::format("{}[{}]{} bytes [{}, {})", v.name, ir::floorMod(*index, v.stages).value(), t.slices, a.lo, a.hi);
        // A column slice whose runs are evenly spaced is one strided access
        // when it is read (exact, and one access: the k-step column slices
        // the sm_80 GEMMs read, `a[k][:, 0:16]` over 128 rows, as an access
        // per run made every exploration step ~100x slower) or when it is
        // written past kMaxTileRuns runs; a written one up to that many runs,
        // and a read one whose runs are not evenly spaced, is one access per
        // run; past that, the bounding range (a superset of its bytes: it may
        // report a race or stale data the runs would not, never miss one).
        if (t.nruns > 1 && (!write || t.runs.empty())) {
          a.runs = t.nruns;
          a.stride = t.stride;
          a.what = fmt::format("{}[{}]{} bytes [{}, {}) ({} runs of {} bytes, {} apart)", v.name,
                               ir::floorMod(*index, v.stages).value(), t.slices, a.lo, a.hi, a.runs, a.runBytes(),
                               a.stride);
          return {a};
        }
        if (t.runs.empty()) return {a};
        std::vector<Access> out;
        for (size_t r = 0; r < t.runs.size(); ++r) {
          Access run = a;
          run.lo = t.runs[r].first;
          run.hi = t.runs[r].second;
          run.what = fmt::format("{}[{}]{} bytes [{}, {}) (run {} of {})", v.name,
                                 ir::floorMod(*index, v.stages).value(), t.slices, run.lo, run.hi, r + 1,
                                 t.runs.size());
          out.push_back(std::move(run));
        }
        return out;
      }
      case BufferRef::Kind::Regs: {
        // A fragment is private to its instance: its accesses meet only the
        // instance's own asynchronous ops (a tcgen05.ld or a register-A wgmma
        // in flight). Its bytes are an abstract layout, column-major here
        // (the first dimension fastest; any bijection would do): a column
        // slice (`r[:, 32 * c:32 * c + 32]`, the chunks of a TMEM read,
        // several in flight before one tcgen05.wait::ld) is one exact range,
        // and any other slice its bounding range, a superset of its elements,
        // so no overlap is missed. (Before: every slice was the whole
        // fragment, and chunked TMEM reads were a false sync.race.)
        auto dims = shapeOf(s_.regs[ref.index].shape);
        const int esize = ir::dtypeBytes(s_.regs[ref.index].dtype);
        const std::vector<int64_t> rdims(dims.rbegin(), dims.rend());
        std::vector<ir::Slice> rslices(dims.size());
        for (size_t d = 0; d < ref.slices.size() && d < dims.size(); ++d) rslices[dims.size() - 1 - d] = ref.slices[d];
        const Tile t = tileRange(rdims, rslices, 0, esize);
        a.space = regsSpace(ref.index);
        a.lo = t.lo;
        a.hi = std::max<int64_t>(t.hi, t.lo + 1);
        a.what = s_.regs[ref.index].name + (ref.slices.empty() ? std::string() : tileRange(dims, ref.slices, 0, esize).slices);
        return {a};
      }
      default: return {};
    }
  }

  // Generation of a write (how many earlier writes of this process carried
  // the same view index over overlapping bytes) and the generation a read
  // means (how many times this process has come back to that view index
  // after synchronizing). docs/semantics.md "Stale data".
  void tag(Access& a, const Stmt& st) {
    // A negative view index (smem_q[c - 1] at c = 0) is a real index: it
    // wraps to another slot and, like one >= stages, names an iteration (a
    // lap of the ring), not a stage. (A one-stage view used bare is slot 0,
    // see access(); no operand names a whole ring.)
    if (a.view < 0) return;
    const ir::View& v = s_.views[a.view];
    if (a.index >= v.stages || a.index < 0) reaches_stages_[{&st, a.view}] = true;
    else reaches_stages_.emplace(std::make_pair(&st, a.view), false);
    if (a.write) {
      marked_writes_.push_back({a.space, proc_, a.lo, a.hi, ps_->bar_syncs, static_cast<int>(in_instr_), a.async});
      auto key = std::make_tuple(a.space, a.view, a.index);
      auto& ranges = ps_->writes[key];
      a.gen = overlapCount(ranges, a.lo, a.hi);
      auto same = std::find_if(ranges.begin(), ranges.end(), [&](const auto& r) { return r.lo == a.lo && r.hi == a.hi; });
      if (same != ranges.end()) ++same->times;
      else ranges.push_back({a.lo, a.hi, 1});
      auto rd = ps_->reads.find(std::make_pair(a.view, a.index));
      if (rd != ps_->reads.end()) {
        rd->second.own_gen = std::max(rd->second.own_gen, a.gen);
        rd->second.own_ranges.push_back({a.lo, a.hi});
      }
      return;
    }
    // A reader comes back for new data after a wait on the slot that fills
    // this index (TMA-filled views), or after any wait / bar.sync - unless
    // it wrote the index itself since its last read of it: then it reads
    // its own data back (never stale, sim::staleData) or a write ordered
    // after its own, and means the lap of its own latest write there (not
    // less: a read-back keeps the reader's generations in step with its
    // writes', which lap induction needs: an epilogue that writes smem_c and
    // reads it back every tile). Counting that return as a new lap made a
    // reader that reads a slot, updates it and reads it back once per round
    // (Kokkos' inter-warp reduction: join into result[0], then value =
    // result[0]) mean two laps per round of a slot the others rewrite once
    // (docs/rules/data.stale-read.md "A read-back of its own update").
    int64_t marker = ps_->blocking_syncs;
    auto fb = fill_barriers_.find(a.view);
    if (fb != fill_barriers_.end()) {
      marker = 0;
      for (int b : fb->second) marker += ps_->waits_on_slot_total[sys_.slotOf(b, ir::floorMod(a.index, s_.barriers[b].count).value(), cta_)];
    }
    auto [it, fresh] = ps_->reads.try_emplace(std::make_pair(a.view, a.index));
    // A re-read (docs/rules/data.stale-read.md "A slot read twice per
    // round"): a read in the same iteration of its keying loop as the
    // process's previous read of the index, with no write of its own since,
    // is not a return: it means the previous read's generation. Tentative:
    // checkRereads keeps it only where barrier order puts no other write of
    // the bytes between the two reads, and replays the index's reads
    // without it otherwise.
    const bool ret = !fresh && it->second.marker != marker;
    // ... or a read after a read-back of the whole index (or after such a
    // re-read): it finds the reader's own data again unless another write
    // lies between, which checkRereads rules out (FlashInfer FilteredTopK's
    // warp 0 reads its rewritten histogram twice a round)
    const bool same_round = key_iter_ >= 0 && it->second.key_iter == key_iter_;
    const bool after_read_back = it->second.read_back_lo <= a.lo && a.hi <= it->second.read_back_hi;
    const bool reread = ret && it->second.own_gen < 0 && (same_round || after_read_back);
    const auto own = ps_->writes.find(std::make_tuple(a.space, a.view, a.index));
    const bool seeds = own != ps_->writes.end();
    // The index's bytes counted without the seed rule before this read,
    // where the two counts may part here (a first read of some bytes, with
    // own writes) or parted before: checkSeeds decides between them once
    // every process is built, so the system is built once.
    std::optional<std::vector<ProcState::BytesRead>> unseeded_before;
    unseeded_before.swap(it->second.unseeded_bytes);
    const bool parted = unseeded_before.has_value();
    if (!parted && seeds && !readBefore(it->second.bytes, a.lo, a.hi)) unseeded_before = it->second.bytes;
    BytesMeant meant =
        countReturns(it->second, a, marker, reread, seeds ? &own->second : nullptr, static_cast<int>(in_instr_));
    if (parted || !meant.seeded.empty())
      countUnseeded(it->second, a, marker, reread, std::move(*unseeded_before), ps_->read_events[it->first].size());
    if (!meant.seeded.empty())
      seed_events_.push_back({proc_, static_cast<int>(in_instr_), a.space, {proc_, a.view, a.index},
                              std::move(meant.seeded)});
    ps_->read_events[it->first].push_back({in_instr_, in_acc_, reread, meant.gen_plain, meant.returns_plain,
                                           it->second.bar_marker, ps_->bar_syncs, it->second.last_instr,
                                           reread && key_loop_free_ && !after_read_back, it->second.own_gen >= 0});
    it->second.last_instr = static_cast<int>(in_instr_);
    it->second.marker = marker;
    if (it->second.own_gen >= 0 && coveredByPairs(it->second.own_ranges, a.lo, a.hi))
      std::tie(it->second.read_back_lo, it->second.read_back_hi) = std::make_pair(a.lo, a.hi);
    else if (!(reread && after_read_back))
      std::tie(it->second.read_back_lo, it->second.read_back_hi) = std::make_pair(int64_t{0}, int64_t{0});
    it->second.own_gen = -1;
    it->second.key_iter = key_iter_;
    it->second.bar_marker = ps_->bar_syncs;
    a.gen = meant.gen;
    a.gen_returns = meant.returns;
    returns_by_range_[{proc_, in_instr_, in_acc_}] = {a.view, a.index, a.lo, a.hi, meant.by_range};
    a.own_since = std::move(it->second.own_ranges);
    it->second.own_ranges.clear();
    if (own != ps_->writes.end()) a.own_writes = own->second;
  }

  // Has the process read every byte of [lo, hi) of the index before
  // (`bytes`: its ranges read so far)? Then no byte is read for the first
  // time, and no seed is counted (countReturns).
  static bool readBefore(const std::vector<ProcState::BytesRead>& bytes, int64_t lo, int64_t hi) {
    for (const ProcState::BytesRead& r : bytes) {  // disjoint, sorted by lo
      if (r.hi <= lo) continue;
      if (r.lo > lo) return false;
      lo = r.hi;
      if (lo >= hi) return true;
    }
    return lo >= hi;
  }
  // What read `a` means without the seed rule, from the index's bytes so
  // counted before it (`before`), kept for checkSeeds (unseeded_reads_);
  // `event`: its entry in the process's read events of the index.
  void countUnseeded(ProcState::ReadEpoch& re, const Access& a, int64_t marker, bool reread,
                     std::vector<ProcState::BytesRead> before, size_t event) {
    std::swap(re.bytes, before);
    BytesMeant u = countReturns(re, a, marker, reread, nullptr, static_cast<int>(in_instr_));
    std::swap(re.bytes, before);
    re.unseeded_bytes = std::move(before);
    unseeded_reads_[{proc_, a.view, a.index}].push_back(
        {in_instr_, in_acc_, event, u.gen, u.returns, u.gen_plain, u.returns_plain, std::move(u.by_range)});
  }

  // What a read of `a`'s bytes means, counted per byte range
  // (docs/rules/data.stale-read.md "Returns are counted per byte"): over
  // each range, a return is a read at another marker than this process's
  // previous read of *that range* (DeepGEMM's per-tile scale row read one
  // column per K step: each column is read once a tile, so its reads mean
  // the tile, however many waits lie between the columns); a read-back
  // (the process wrote the index since its last read of it) means at least
  // its own latest write's generation, as before; a range read for the
  // first time means generation 0, or, if the process wrote all of it
  // itself and never read it, its own initial value: no lap of the other
  // writers, so the next return means their lap 0 (causal-conv1d's halo
  // carried to the next chunk, seeded by the reader). The read means the
  // highest count over its ranges (at least 0). A strided read is counted
  // over its bounding range (more returns: what the whole index counted).
  struct BytesMeant {
    int64_t gen = 0, returns = 0, gen_plain = 0, returns_plain = 0;
    std::vector<RangeReturns> by_range;
    std::vector<std::pair<int64_t, int64_t>> seeded;  // the pieces read first and counted as the reader's seed
  };
  // [lo, hi) cut where the process's own writes start or stop covering it:
  // (lo, hi, seeded) per piece, seeded where its own writes cover every
  // byte (a range read for the first time there holds its own initial
  // value). One piece, not seeded, without own writes.
  static std::vector<std::tuple<int64_t, int64_t, bool>> splitBySeed(const std::vector<Access::Written>* own_writes,
                                                                     int64_t lo, int64_t hi) {
    std::set<int64_t> cuts = {lo, hi};
    if (own_writes)
      for (const Access::Written& w : *own_writes) {
        if (w.lo > lo && w.lo < hi) cuts.insert(w.lo);
        if (w.hi > lo && w.hi < hi) cuts.insert(w.hi);
      }
    std::vector<std::tuple<int64_t, int64_t, bool>> pieces;
    for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
      const bool seeded = own_writes && coveredBy(*own_writes, *it, *std::next(it));
      if (!pieces.empty() && std::get<2>(pieces.back()) == seeded)
        std::get<1>(pieces.back()) = *std::next(it);
      else
        pieces.emplace_back(*it, *std::next(it), seeded);
    }
    return pieces;
  }
  static BytesMeant countReturns(ProcState::ReadEpoch& re, const Access& a, int64_t marker, bool reread,
                                 const std::vector<Access::Written>* own_writes, int instr) {
    // cut the ranges read so far at a's ends and fill its gaps with ranges
    // read for the first time (`first`)
    std::vector<std::pair<ProcState::BytesRead, bool>> next;
    std::vector<std::pair<int64_t, int64_t>> seeded_pieces;
    int64_t at = a.lo;
    auto first = [&](int64_t lo, int64_t hi) {
      for (const auto& [plo, phi, seeded] : splitBySeed(own_writes, lo, hi)) {
        const int64_t init = seeded ? -1 : 0;
        ProcState::BytesRead r{plo, phi, marker, init, init, init, init, init, init};
        r.first_instr = instr;
        r.seeded = seeded;
        next.push_back({r, true});
        if (seeded) seeded_pieces.push_back({plo, phi});
      }
    };
    for (const ProcState::BytesRead& r : re.bytes) {
      if (r.hi <= a.lo || r.lo >= a.hi) {
        next.push_back({r, false});
        continue;
      }
      auto part = [&](int64_t lo, int64_t hi) {
        ProcState::BytesRead x = r;
        x.lo = lo;
        x.hi = hi;
        next.push_back({x, false});
      };
      if (r.lo < a.lo) part(r.lo, a.lo);
      if (at < r.lo) first(at, r.lo);
      part(std::max(r.lo, a.lo), std::min(r.hi, a.hi));
      if (r.hi > a.hi) part(a.hi, r.hi);
      at = std::min(r.hi, a.hi);
    }
    if (at < a.hi) first(at, a.hi);
    std::sort(next.begin(), next.end(), [](const auto& x, const auto& y) { return x.first.lo < y.first.lo; });
    BytesMeant m;
    m.seeded = std::move(seeded_pieces);
    re.bytes.clear();
    for (auto& [r, is_first] : next) {
      if (r.lo >= a.lo && r.hi <= a.hi) {
        const bool ret = !is_first && r.marker != marker;
        if (re.own_gen >= 0) {  // a read-back
          r.epoch = std::max(r.epoch, re.own_gen);
          r.epoch_plain = std::max(r.epoch_plain, re.own_gen);
          r.floor = std::max(r.floor, re.own_gen);
          r.floor_plain = std::max(r.floor_plain, re.own_gen);
        } else if (ret) {
          r.epoch += reread ? 0 : 1;
          r.epoch_plain += 1;
          r.from_init += reread ? 0 : 1;
          r.from_init_plain += 1;
          r.floor += reread ? 0 : 1;
          r.floor_plain += 1;
        }
        // a return that reads back bytes it overwrote since its last read
        // finds its own data: no lap of the others' (FlashInfer's
        // FilteredTopK: warp 0 rewrites the whole histogram and reads it
        // back, the other warps clear their quarters once a round)
        const bool own_data = ret && coveredByPairs(re.own_ranges, r.lo, r.hi);
        r.returns += ret && !reread && !own_data ? 1 : 0;
        r.returns_plain += ret && !own_data ? 1 : 0;
        r.marker = marker;
        m.gen = std::max(m.gen, r.epoch);
        m.returns = std::max(m.returns, r.returns);
        m.gen_plain = std::max(m.gen_plain, r.epoch_plain);
        m.returns_plain = std::max(m.returns_plain, r.returns_plain);
        m.by_range.push_back({r.lo, r.hi, r.returns, r.returns_plain, r.from_init, r.from_init_plain, r.floor,
                              r.floor_plain, r.first_instr, r.seeded});
      }
      re.bytes.push_back(r);
    }
    return m;
  }

  void addAccess(Instr& in, std::vector<Access> as, const Stmt& st) {
    for (Access& a : as) {
      in_instr_ = static_cast<size_t>(&in - sys_.procs[proc_].program.data());
      in_acc_ = in.accesses.size();
      tag(a, st);
      in.accesses.push_back(std::move(a));
    }
  }

  // The accesses of an operand: a TMEM region (or slice) is one access per
  // lane quarter it touches (kTmemQuarterStride), every other operand at
  // most one. A global tensor operand of a grid dependency before the
  // process's lm.grid_dep_wait() marks the instruction.
  void addRef(Instr& in, const BufferRef& ref, bool write, Proxy proxy, bool async, const Stmt& st) {
    if (ref.kind == BufferRef::Kind::Param) return markGridDep(in, ref);
    if (ref.kind == BufferRef::Kind::Regs) {
      regsElements(in, ref, write, false);
      unreadProducts(in, ref, write, &st.op.dst);
    }
    if (ref.kind != BufferRef::Kind::Tmem) {
      // the keying loop of a view operand: the innermost loop whose
      // variable its index names (a re-read, tag()); an index that names
      // none (FlashMLA's `smem_s1[0]`, read twice a pair) is keyed on the
      // innermost loop around the operand (the process's body outside
      // every loop): two reads in one iteration of every loop around them.
      // A one-stage view used bare is its slot 0 (access()), an index that
      // names no loop, and is keyed so too (cuDF's batch metadata `meta`:
      // unkeyed, its second read of a batch was a return where `meta[0]`'s
      // was a re-read).
      key_iter_ = -1;
      key_loop_free_ = false;
      if (ref.kind == BufferRef::Kind::View && (ref.slot || s_.views[ref.index].stages == 1)) {
        key_iter_ = iter_serials_.empty() ? body_serial_ : iter_serials_.back();
        key_loop_free_ = true;
        for (size_t l = loops_.size(); l-- > 0;)
          if (ref.slot && ir::dependsOnLoopVar(*ref.slot, loops_[l].first)) {
            key_iter_ = iter_serials_[l];
            key_loop_free_ = false;
            break;
          }
      }
      addAccess(in, access(ref, std::nullopt, write, proxy, async), st);
      key_iter_ = -1;
      key_loop_free_ = false;
      return;
    }
    const ir::Tmem& tm = s_.tmems[ref.index];
    const int64_t cols = eval(tm.cols, "tmem cols="), width = eval(tm.width, "tmem width=");
    // rows are lanes (from lane 0); the last dimension's elements are packed
    // into 32-bit columns
    auto dims = shapeOf(tm.shape);
    int64_t rows = dims.empty() ? 128 : dims[0];
    int64_t r0 = 0, r1 = rows, c0 = cols, c1 = cols + width;
    auto bound = [&](const ir::ExprPtr& e, int64_t dflt, int64_t extent) {
      return e ? std::clamp<int64_t>(eval(e, "a TMEM slice bound"), 0, extent) : dflt;
    };
    if (!ref.slices.empty()) {
      r0 = bound(ref.slices[0].lo, 0, rows);
      r1 = std::max(r0, bound(ref.slices[0].hi, rows, rows));
    }
    if (ref.slices.size() > 1 && dims.size() > 1) {
      const int64_t n = dims.back(), eb = ir::dtypeBytes(tm.dtype);
      const int64_t e0 = bound(ref.slices[1].lo, 0, n), e1 = std::max(e0, bound(ref.slices[1].hi, n, n));
      c0 = cols + e0 * eb / 4;
      c1 = cols + (e1 * eb + 3) / 4;
    }
    for (const int64_t q : ir::tmemQuarters(r0, r1)) {
      Access a;
      a.write = write;
      a.proxy = proxy;
      a.async = async;
      a.space = tmem_space_[space_cta_];
      a.lo = q * kTmemQuarterStride + c0;
      a.hi = q * kTmemQuarterStride + c1;
      a.what = fmt::format("{} lanes [{}, {}) columns [{}, {})", tm.name, std::max(r0, 32 * q),
                           std::min(r1, 32 * q + 32), c0, c1);
      in.accesses.push_back(std::move(a));
    }
  }

  // ------------------------------------------------------------ register fragments

  // The element intervals [lo, hi) (row-major) that a register operand
  // names: its slices, clamped to the shape, exact per dimension (the
  // access itself covers the whole fragment: races and stale reads treat a
  // fragment as one).
  std::vector<std::pair<int64_t, int64_t>> regsIntervals(const BufferRef& ref) {
    const auto dims = shapeOf(s_.regs[ref.index].shape);
    if (dims.empty()) return {{0, 1}};
    std::vector<int64_t> lo(dims.size(), 0), hi = dims;
    for (size_t d = 0; d < ref.slices.size() && d < dims.size(); ++d) {
      if (ref.slices[d].lo) lo[d] = std::clamp<int64_t>(eval(ref.slices[d].lo, "a slice start"), 0, dims[d]);
      if (ref.slices[d].hi) hi[d] = std::clamp<int64_t>(eval(ref.slices[d].hi, "a slice end"), 0, dims[d]);
      if (hi[d] <= lo[d]) return {};
    }
    // The dimensions after `last` are taken whole, so each index of the
    // dimensions before it names one interval of `inner` elements per index
    // of `last` (adjacent ones merged: a whole (BM, 64) fragment is one
    // interval, not BM of them).
    size_t last = dims.size() - 1;
    int64_t inner = 1;
    while (last > 0 && lo[last] == 0 && hi[last] == dims[last]) inner *= dims[last--];
    // every index of the outer dimensions, each an interval of `last`
    std::vector<std::pair<int64_t, int64_t>> out;
    std::vector<int64_t> at(lo.begin(), lo.begin() + static_cast<std::ptrdiff_t>(last));
    while (true) {
      int64_t base = 0;
      for (size_t d = 0; d < last; ++d) base = base * dims[d] + at[d];
      base *= dims[last];
      out.push_back({(base + lo[last]) * inner, (base + hi[last]) * inner});
      size_t d = last;
      while (d > 0 && ++at[d - 1] == hi[d - 1]) {
        at[d - 1] = lo[d - 1];
        --d;
      }
      if (d == 0) return out;
    }
  }

  // A register fragment starts undefined in each instance: a read of
  // elements no earlier op of this process wrote marks the instruction
  // (its first such read); a write adds its elements (data.uninitialized).
  // Register fragments are private to the process and its program runs in
  // order, so what is written before an op does not depend on the
  // interleaving (an async write, a wgmma or tcgen05.ld, counts at issue:
  // reading it before its wait is a race, sync.race).
  void regsElements(Instr& in, const BufferRef& ref, bool write, bool accumulates) {
    ElementSet& done = ps_->regs_written[ref.index];
    for (const auto& [lo, hi] : regsIntervals(ref)) {
      if (write) {
        done.add(lo, hi);
        continue;
      }
      if (in.regs_hazard.regs_space >= 0 || ps_->regs_skipped.count(ref.index)) return;
      if (auto miss = done.firstMissing(lo, hi)) {
        in.regs_hazard = {regsSpace(ref.index), *miss, accumulates, false, false, elementName(ref.index, *miss)};
        return;
      }
    }
  }

  // Whether the loop's bounds read a parameter that is zero or negative in
  // this binding: only then is the empty loop a degenerate problem size
  // (K = 0). A loop empty at positive sizes (lm.range(0, K // 2) at K = 1:
  // the first MMA warp's half of a K split) is the schedule's own order of
  // writes and writes nothing (docs/rules/data.uninitialized.md). Reads
  // inside `skip` (the replaced expression) are not counted.
  bool boundsReadNonPositiveParam(const Stmt& loop, const ir::Expr* skip = nullptr) const {
    for (const auto& [param, value] : env_.params)
      if (value <= 0)
        for (const ir::ExprPtr& e : {loop.lo, loop.hi, loop.step})
          if (e && readsParamOutside(*e, param, skip)) return true;
    return false;
  }
  static bool readsParamOutside(const ir::Expr& e, int param, const ir::Expr* skip) {
    if (skip && ir::sameExpr(e, *skip)) return false;
    if (e.kind == ir::ExprKind::Param && e.index == param) return true;
    return std::any_of(e.args.begin(), e.args.end(),
                       [&](const ir::ExprPtr& a) { return a && readsParamOutside(*a, param, skip); });
  }

  // An empty loop at a degenerate size. Where the replaced expression
  // (a proof's trip count) is read by its bounds, the binding's values of
  // that expression's parameters are not the ones of the bindings the
  // system stands for: those say whether each of them is degenerate
  // (empty_loop_sizes.h; a count of 0 from lm.cdiv(K, 64) - 1 is K =
  // 1..64, a positive size, where the loop writes nothing).
  bool emptyAtDegenerateSize(const Stmt& loop, bool replaced) {
    if (!replaced) return boundsReadNonPositiveParam(loop);
    if (boundsReadNonPositiveParam(loop, sys_.binding.replace)) return true;
    if (!empty_loops_) return false;
    switch (empty_loops_->sizes) {
      case EmptyLoopSizes::Degenerate: return true;
      case EmptyLoopSizes::Positive: return false;
      case EmptyLoopSizes::Undecided: break;
    }
    empty_loops_->undecided_met = true;
    return false;
  }

  // A loop, empty for this binding, whose bounds read a parameter that an
  // lm.assume conjunct bounds from below by a constant (K >= 0, 0 < n,
  // n == 0): the schedule states which sizes it handles, and the binding
  // satisfies the assumptions, so the empty loop is one of them.
  // (The parameters are the schedule's: found once per build, in the
  // constructor, not at every empty loop.)
  bool emptyTripAdmitted(const Stmt& loop) const {
    for (const ir::ExprPtr& e : {loop.lo, loop.hi, loop.step})
      for (int p : assumed_from_below_)
        if (e && ir::readsSymbol(*e, ir::ExprKind::Param, p)) return true;
    return false;
  }

  // The parameters that a conjunct of `cond` compares with a constant from
  // below: P >= c, P > c, c <= P, c < P, P == c.
  static void lowerBoundedParams(const ir::ExprPtr& cond, std::set<int>& out) {
    if (!cond) return;
    using K = ir::ExprKind;
    const ir::Expr& e = *cond;
    if (e.kind == K::And) {
      for (const ir::ExprPtr& a : e.args) lowerBoundedParams(a, out);
      return;
    }
    if (e.args.size() != 2 || !e.args[0] || !e.args[1]) return;
    const ir::Expr& l = *e.args[0];
    const ir::Expr& r = *e.args[1];
    const auto param = [](const ir::Expr& x) { return x.kind == K::Param; };
    const auto constant = [](const ir::Expr& x) { return x.kind == K::Const; };
    if ((e.kind == K::Ge || e.kind == K::Gt || e.kind == K::Eq) && param(l) && constant(r)) out.insert(l.index);
    if ((e.kind == K::Le || e.kind == K::Lt || e.kind == K::Eq) && constant(l) && param(r)) out.insert(r.index);
  }

  // An MMA that accumulates (init= absent or false) into elements whose
  // value was already stored out of registers — copied to shared, global
  // or tensor memory, directly or through the fragments it was copied or
  // computed into (acc -> out -> C) — and not overwritten since adds this
  // tile's products to the previous tile's result (data.stale-accumulator):
  // a persistent kernel whose init= fires on the first tile only. Only
  // MMAs are checked, and any other write clears the mark, an in-place one
  // too: a running max or a rescale by exp(-inf) = 0 may restart a value
  // on purpose, and a scan's carried prefix is stored and kept going.
  void storedAccumulators(const Stmt& st, size_t first) {
    const ir::Op& o = st.op;
    const auto isRegs = [](const BufferRef& r) { return r.kind == BufferRef::Kind::Regs; };
    if (o.dst.kind == BufferRef::Kind::None) return;
    if (!isRegs(o.dst)) {
      if (o.kind == OpKind::Mma) return;  // a tcgen05 MMA's register operands stay where they are
      for (const BufferRef* src : {&o.src, &o.src2})
        if (isRegs(*src)) markStored(src->index, regsIntervals(*src), static_cast<int>(first), 0);
      return;
    }
    if (o.kind == OpKind::Mma && mmaAccumulates(o)) return;  // mma() checked it (staleAccumulator)
    // an overwrite: the elements hold a new value, and nothing copied from
    // them before holds it any more
    const auto written = regsIntervals(o.dst);
    for (const auto& [lo, hi] : written) ps_->regs_stored[o.dst.index].remove(lo, hi);
    for (auto& [into, from] : ps_->regs_copies) {
      auto it = from.find(o.dst.index);
      if (it != from.end())
        for (const auto& [lo, hi] : written) it->second.remove(lo, hi);
    }
    auto& links = ps_->regs_copies[o.dst.index];
    links.clear();
    if (o.kind == OpKind::Mma) return;  // a new product, not a copy of its operands
    for (const BufferRef* src : {&o.src, &o.src2})
      if (isRegs(*src) && src->index != o.dst.index)
        for (const auto& [lo, hi] : regsIntervals(*src)) links[src->index].add(lo, hi);
  }

  // The elements of fragment `regs` are stored out, and with them what was
  // copied into them (a few fragments deep: acc -> out -> C).
  void markStored(int regs, const std::vector<std::pair<int64_t, int64_t>>& elements, int at, int depth) {
    for (const auto& [lo, hi] : elements) ps_->regs_stored[regs].add(lo, hi);
    ps_->regs_stored_at[regs] = at;
    ps_->regs_stored_loops[regs] = loop_stmts_;
    if (depth >= 4) return;
    auto it = ps_->regs_copies.find(regs);
    if (it == ps_->regs_copies.end()) return;
    for (const auto& [from, set] : it->second)
      if (from != regs) markStored(from, set.intervals(), at, depth + 1);
  }

  // An accumulating MMA into elements stored out since their last write,
  // where the store is outside the MMA's innermost loop: the loop reduces
  // into acc and its result was stored after an earlier run of it. A store
  // inside that loop is a running value stored as it goes (a chunked
  // scan's state, h += k^T v stored per chunk), not a finished tile.
  void staleAccumulator(Instr& in, const BufferRef& acc) {
    if (in.regs_hazard.regs_space >= 0 || loop_stmts_.empty()) return;
    const auto& store_loops = ps_->regs_stored_loops[acc.index];
    if (std::find(store_loops.begin(), store_loops.end(), loop_stmts_.back()) != store_loops.end()) return;
    const ElementSet& stored = ps_->regs_stored[acc.index];
    for (const auto& [lo, hi] : regsIntervals(acc)) {
      auto hit = stored.firstIn(lo, hi);
      if (!hit) continue;
      in.regs_hazard = {regsSpace(acc.index), *hit, true, true, false, elementName(acc.index, *hit),
                        ps_->regs_stored_at[acc.index]};
      return;
    }
  }

  // An MMA product in registers must be read before it is overwritten
  // (data.discarded-product): an op of this process that reads elements
  // (a copy or compute source, an MMA operand or accumulated accumulator,
  // a store, a running reduce's destination) marks them read; a write of
  // elements that hold an unread product (an MMA with init= true, a fill, a
  // copy or compute destination, a tcgen05.ld) loses it. An MMA's write
  // leaves its elements holding an unread product. Reads are added before
  // the op's writes (addRef order), so an in-place update reads first.
  // Like the other register hazards it is decided here, per process in
  // program order, and every engine reports it when the op runs.
  // `dst`: the destination of the op that reads (none: an MMA reading the
  // accumulator it adds to).
  void unreadProducts(Instr& in, const BufferRef& ref, bool write, const BufferRef* dst = nullptr) {
    if (!productUsed(ref.index)) return;
    ElementSet& unread = ps_->regs_unread[ref.index];
    const auto elements = regsIntervals(ref);
    if (!write) {
      for (const auto& [lo, hi] : elements) unread.remove(lo, hi);
      if (!dst) accumulating_read_ = {&in, ref.index};
      else if (ps_->regs_product_at.count(ref.index) && !(dst->kind == BufferRef::Kind::Regs && dst->index == ref.index))
        ps_->regs_moved_out.insert(ref.index);
      return;
    }
    if (in.regs_hazard.regs_space < 0)
      for (const auto& [lo, hi] : elements)
        if (auto hit = unread.firstIn(lo, hi)) {
          in.regs_hazard = {regsSpace(ref.index), *hit, false, false, true, elementName(ref.index, *hit),
                            ps_->regs_product_at[ref.index]};
          break;
        }
    const bool product = in.kind == InstrKind::Mma;
    for (const auto& [lo, hi] : elements) {
      if (product)
        unread.add(lo, hi);
      else
        unread.remove(lo, hi);
    }
    // a temporary emptied by a write of its own (`lm.fill(tmp, 0.0)`, then
    // MMAs that add to it) is restarted as surely as by an init= MMA
    // (attack50: the FP8 promotion so spelt, its residue dropped, was proved)
    if (!product && ps_->regs_moved_out.count(ref.index)) ps_->regs_refilled.insert(ref.index);
    if (product) {
      ps_->regs_product_at[ref.index] = static_cast<int>(&in - proc().program.data());
      ps_->regs_product_elements[ref.index] = elements;
      const bool accumulates = accumulating_read_ == std::pair<const Instr*, int>{&in, ref.index};
      if (!accumulates && ps_->regs_moved_out.count(ref.index)) ps_->regs_refilled.insert(ref.index);
    }
  }

  // Whether the instance exiting now would lose fragment `regs`'s last MMA
  // product, `unread` its elements holding an unread product
  // (productsUnreadAtExit's rule, below). Reads the state only.
  bool productLostAtExit(int regs, const ElementSet& unread) {
    if (!productUsed(regs) || !ps_->regs_refilled.count(regs)) return false;
    const auto written = ps_->regs_product_elements.find(regs);
    if (written == ps_->regs_product_elements.end() || written->second.empty()) return false;
    return std::all_of(written->second.begin(), written->second.end(),
                       [&](const auto& w) { return !unread.firstMissing(w.first, w.second); });
  }

  // BuildSemantics::regs_digests: whether an exit of the instance here (just
  // before the instruction being added, or at the end of its program) would
  // lose a product (System::regs_lost_at_exit). A proof's build judges no
  // exit (productsUnreadAtExit runs in a plain build only), so a proof that
  // decides the register hazards on true runs reads it at each tile count's
  // exit (review51: a residue left unread only by the last tile was proved).
  void recordLostAtExit() {
    bool lost = false;
    for (const auto& [regs, unread] : ps_->regs_unread) lost = lost || productLostAtExit(regs, unread);
    sys_.regs_lost_at_exit.resize(sys_.procs.size());
    sys_.regs_lost_at_exit[proc_].push_back(lost ? 1 : 0);
  }

  // An MMA product the instance never reads before it exits is lost as
  // surely as one overwritten (data.discarded-product): CUTLASS's FP8
  // two-level accumulation without its residue promotion leaves the last
  // interval's products in the temporary fragment. Judged where the
  // fragment is used (productUsed), where no element of the last MMA's
  // product was read after it (a read of some of it is an epilogue that
  // keeps the rows it needs: a small-M tile's padding rows are never
  // stored), and only in a plain build, whose program ends where the
  // instance exits (a proof's build, hook_, may end a window short of it).
  // The hazard goes on the last instruction after the product that carries
  // none, and every engine reports it when that instruction runs, as it
  // reports an overwrite.
  // Only a fragment the instance used as a temporary (its product moved out
  // to another destination, then an MMA started it afresh) is judged: an
  // accumulator updated in place and never moved out (a mainloop model
  // without its epilogue: FlashAttention-2's `o`, rescaled in the loop), or
  // one whose epilogue a guard skips in this instance (a block past M), is
  // not a product this instance was seen to collect (review49, session 49).
  void productsUnreadAtExit() {
    std::vector<Instr>& program = proc().program;
    for (const auto& [regs, unread] : ps_->regs_unread) {
      if (!productLostAtExit(regs, unread)) continue;
      const std::optional<int64_t> hit = ps_->regs_product_elements.at(regs).front().first;
      const int product_at = ps_->regs_product_at[regs];
      for (int pc = static_cast<int>(program.size()) - 1; pc > product_at; --pc) {
        if (program[static_cast<size_t>(pc)].regs_hazard.regs_space >= 0) continue;
        Instr::RegsHazard& h = program[static_cast<size_t>(pc)].regs_hazard;
        h = {regsSpace(regs), *hit, false, false, true, elementName(regs, *hit), product_at, true};
        break;
      }
    }
  }

  // Whether the schedule uses fragment `regs`'s value at all: some op
  // anywhere reads it as a source (a copy, compute, store or MMA operand).
  // A fragment no op reads (a schedule that models the mainloop and leaves
  // the epilogue out) has no modelled consumer, so whether its product is
  // used cannot be told and data.discarded-product stays silent on it: the
  // rule is about a kernel that does use its result losing part of it.
  bool productUsed(int regs) {
    if (!used_regs_) {
      used_regs_.emplace();
      for (const auto& body : s_.bodies)
        ir::forEachOp(body.body, [&](const Stmt& st) {
          for (const BufferRef* src : {&st.op.src, &st.op.src2})
            if (src->kind == BufferRef::Kind::Regs) used_regs_->insert(src->index);
        });
    }
    return used_regs_->count(regs) > 0;
  }

  void markSkippedRegsWrites(const ir::Block& body) {
    ir::forEachOp(body, [&](const Stmt& st) {
      const ir::Op& o = st.op;
      if (o.dst.kind == BufferRef::Kind::Regs) ps_->regs_skipped.insert(o.dst.index);
      if (o.kind == OpKind::Reduce && o.src2.kind == BufferRef::Kind::Regs) ps_->regs_skipped.insert(o.src2.index);
    });
  }

  // The TMEM columns an op of the body writes (whole allocations: the
  // slices may name loop variables that never got a value), for
  // markTmemHazards' empty-loop decision.
  void markSkippedTmemWrites(const ir::Block& body) {
    if (tmem_space_[space_cta_] < 0) return;
    ir::forEachOp(body, [&](const Stmt& st) {
      if (st.op.dst.kind != BufferRef::Kind::Tmem) return;
      const ir::Tmem& tm = s_.tmems[st.op.dst.index];
      const int64_t cols = eval(tm.cols, "tmem cols=");
      tmem_facts_.skipped.push_back({tmem_space_[space_cta_], cols, cols + eval(tm.width, "tmem width=")});
    });
  }

  // "acc element (0, 64)"
  std::string elementName(int regs, int64_t element) {
    const auto dims = shapeOf(s_.regs[regs].shape);
    std::vector<int64_t> at(dims.size(), 0);
    for (size_t d = dims.size(); d-- > 0;) {
      at[d] = dims[d] > 0 ? element % dims[d] : 0;
      element = dims[d] > 0 ? element / dims[d] : 0;
    }
    return fmt::format("{} element ({})", s_.regs[regs].name, fmt::join(at, ", "));
  }

  void markGridDep(Instr& in, const BufferRef& ref) {
    if (ref.kind != BufferRef::Kind::Param || ps_->grid_dep_waited || in.grid_dep_early >= 0) return;
    for (const ir::GridDependency& d : s_.grid_deps)
      if (d.param == ref.index) in.grid_dep_early = ref.index;
  }

  // griddepcontrol.wait returns once the preceding grid has completed and
  // its memory operations are visible to the whole current grid (PTX ISA,
  // griddepcontrol), so an access is also safe when its process is ordered
  // after ANOTHER process's lm.grid_dep_wait() - CUTLASS's sm90 kernels
  // wait in the producer warp only, and their consumers read epilogue
  // inputs after the mainloop hand-off. A least fixpoint over the built
  // (straight-line) programs: process p is ordered from index from[p] on:
  //  * its own wait;
  //  * a pass of an mbarrier wait on a slot whose every arrival (arrive,
  //    expect_tx, derived expect_tx, tcgen05.commit) is issued at an ordered
  //    point, and whose meant phase implies a completed phase (phase 0, or
  //    >= 2: a phase-1 wait also passes on a slot that never completed, by
  //    parity; negative phases pass at once);
  //  * likewise the pass of a wait on a phase that a TMA load issued at an
  //    ordered point completes bytes on: the phase cannot complete before
  //    those bytes land (a phase that completes short of the bytes aimed at
  //    it is sync.tx-imbalance, reported by the model checker). A producer
  //    that arms a slot and loads the weights before griddepcontrol.wait and
  //    the activations after it hands its consumers an ordered phase;
  //  * the end of a named-barrier generation that cannot complete without
  //    an ordered arrival: no unordered bar.arrive on it (the only op that
  //    arrives twice in one generation), and some process whose arrivals on
  //    it are all ordered and without whose warps the others fall short.
  // The accesses marked grid_dep_early from that index on are cleared.
  void orderGridDependencies() {
    if (s_.grid_deps.empty()) return;
    const int P = static_cast<int>(sys_.procs.size());
    constexpr int kNever = std::numeric_limits<int>::max();
    std::vector<int> from(P, kNever);
    for (int p = 0; p < P; ++p)
      if (sys_.procs[p].grid_dep_wait_at >= 0) from[p] = sys_.procs[p].grid_dep_wait_at;
    auto arrival = [](const Instr& in) {
      return in.slot >= 0 && (in.kind == InstrKind::Arrive || in.kind == InstrKind::ExpectTx ||
                              in.kind == InstrKind::MmaCommit);
    };
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<char> slot_ordered(sys_.slots.size(), 1);
      std::set<std::pair<int, int64_t>> tx_ordered;  // (slot, phase) an ordered TMA load lands on
      const size_t N = sys_.named.size();
      std::vector<char> unordered_bar_arrive(N, 0);
      std::vector<std::vector<char>> all_ordered(N, std::vector<char>(P, 1)), arrives(N, std::vector<char>(P, 0));
      for (int p = 0; p < P; ++p) {
        const auto& prog = sys_.procs[p].program;
        for (int pc = 0; pc < static_cast<int>(prog.size()); ++pc) {
          const Instr& in = prog[pc];
          const bool ordered = pc >= from[p];
          if (arrival(in) && !ordered) slot_ordered[in.slot] = 0;
          if (in.kind == InstrKind::TmaLoad && in.slot >= 0 && ordered) tx_ordered.emplace(in.slot, in.phase);
          if (in.named >= 0 && (in.kind == InstrKind::SyncArrive || in.kind == InstrKind::BarArrive)) {
            arrives[in.named][p] = 1;
            if (!ordered) all_ordered[in.named][p] = 0;
            if (!ordered && in.kind == InstrKind::BarArrive) unordered_bar_arrive[in.named] = 1;
          }
        }
      }
      std::vector<char> named_ordered(N, 0);
      for (size_t n = 0; n < N; ++n) {
        if (unordered_bar_arrive[n]) continue;
        int64_t warps = 0;
        for (int p = 0; p < P; ++p)
          if (arrives[n][p]) warps += sys_.procs[p].warps;
        for (int q = 0; q < P && !named_ordered[n]; ++q)
          if (arrives[n][q] && all_ordered[n][q] && warps - sys_.procs[q].warps < sys_.named[n].expected_warps)
            named_ordered[n] = 1;
      }
      for (int p = 0; p < P; ++p) {
        const auto& prog = sys_.procs[p].program;
        for (int pc = 0; pc < std::min(from[p], static_cast<int>(prog.size())); ++pc) {
          const Instr& in = prog[pc];
          const bool waits = in.kind == InstrKind::Wait && in.slot >= 0 &&
                             (slot_ordered[in.slot] || tx_ordered.count({in.slot, in.phase})) &&
                             (in.phase == 0 || in.phase >= 2);
          const bool syncs = in.kind == InstrKind::SyncWait && in.named >= 0 && named_ordered[in.named];
          if ((waits || syncs) && pc + 1 < from[p]) {
            from[p] = pc + 1;  // strictly earlier: the fixpoint terminates
            changed = true;
            break;
          }
        }
      }
    }
    for (int p = 0; p < P; ++p) {
      auto& prog = sys_.procs[p].program;
      for (int pc = from[p]; pc < static_cast<int>(prog.size()); ++pc) prog[pc].grid_dep_early = -1;
    }
  }

  // ------------------------------------------------------------ ops

  bool asyncMma() const { return sys_.target != ir::Target::SM80; }

  void op(const Stmt& st) {
    const ir::Op& o = st.op;
    switch (o.kind) {
      case OpKind::Wait: return wait(st);
      case OpKind::Arrive: {
        SlotPhase sp = slotPhase(o.sel, o.barrier);
        if (o.cta) sp.slot += (clusterRank(o.cta, "cta=") - cta_) * sys_.slots_per_cta;
        Instr& in = emit(InstrKind::Arrive, st);
        in.slot = sp.slot;
        in.phase = countedPhase(ps_->arrivals_on_slot, sp);
        in.count = o.count ? eval(o.count, "count=") : 1;
        return;
      }
      case OpKind::ExpectTx: {
        SlotPhase sp = slotPhase(o.sel, o.barrier);
        Instr& in = emit(InstrKind::ExpectTx, st);
        in.slot = sp.slot;
        in.phase = countedPhase(ps_->arrivals_on_slot, sp);
        in.count = 1;
        in.bytes = eval(o.bytes, "bytes");
        return;
      }
      case OpKind::TmaLoad: return tmaLoad(st);
      case OpKind::TmaStore: {
        Instr& in = emit(InstrKind::TmaStore, st);
        addAccess(in, access(o.src, viewIndex(o.sel), false, Proxy::Async, true), st);
        markGridDep(in, o.dst);
        // its global write lasts until a tma_store_wait retires its group
        // (docs/semantics.md "Global memory": what .read leaves open)
        addGlobal(in, o.dst, o.src, true, true, Proxy::Async, true);
        return;
      }
      case OpKind::CpAsync: {
        Instr& in = emit(InstrKind::CpAsync, st);
        addAccess(in, access(o.dst, viewIndex(o.sel), true, Proxy::Generic, true), st);
        markGridDep(in, o.src);
        addGlobal(in, o.src, o.dst, false, false, Proxy::Generic, true);
        return;
      }
      case OpKind::TmemLoad:
      case OpKind::TmemStore: {
        // tcgen05.ld / tcgen05.st: both sides are in flight until the wait
        Instr& in = emit(o.kind == OpKind::TmemLoad ? InstrKind::TmemLoad : InstrKind::TmemStore, st);
        addRef(in, o.src, false, Proxy::Generic, true, st);
        addRef(in, o.dst, true, Proxy::Generic, true, st);
        return;
      }
      case OpKind::TmemLoadWait: emit(InstrKind::TmemLoadWait, st); return;
      case OpKind::TmemStoreWait: emit(InstrKind::TmemStoreWait, st); return;
      // griddepcontrol.wait orders this process's later global accesses
      // after the preceding grid; launch_dependents only lets the next grid
      // start early (its own wait still waits for all of this grid), so
      // neither is an instruction of the model.
      case OpKind::GridDepWait:
        if (!ps_->grid_dep_waited)
          sys_.procs[proc_].grid_dep_wait_at = static_cast<int>(sys_.procs[proc_].program.size());
        ps_->grid_dep_waited = true;
        return;
      case OpKind::LaunchDependents: return;
      case OpKind::TmaStoreCommit: emit(InstrKind::StoreCommit, st); return;
      case OpKind::CpAsyncCommit: emit(InstrKind::CpAsyncCommit, st); return;
      case OpKind::TmaStoreWait: pendingWait(InstrKind::StoreWait, st); return;
      case OpKind::CpAsyncWait: pendingWait(InstrKind::CpAsyncWait, st); return;
      case OpKind::MmaWait: pendingWait(InstrKind::MmaWait, st); return;
      case OpKind::Mma: return mma(st);
      case OpKind::MmaCommit: {
        Instr& in = emit(InstrKind::MmaCommit, st);
        if (o.barrier >= 0 && asyncMma()) {
          SlotPhase sp = slotPhase(o.sel, o.barrier);
          in.slot = sp.slot;
          in.phase = countedPhase(ps_->arrivals_on_slot, sp);
          in.count = 1;
        }
        return;
      }
      case OpKind::Sync: {
        emit(InstrKind::SyncArrive, st).named = namedOf(o.named_barrier);
        emit(InstrKind::SyncWait, st).named = namedOf(o.named_barrier);
        ++ps_->blocking_syncs;
        ++ps_->bar_syncs;
        return;
      }
      case OpKind::BarArrive: emit(InstrKind::BarArrive, st).named = namedOf(o.named_barrier); return;
      case OpKind::ClusterSync: {
        emit(InstrKind::SyncArrive, st).named = clusterNamed();
        emit(InstrKind::SyncWait, st).named = clusterNamed();
        ++ps_->blocking_syncs;
        ++ps_->bar_syncs;
        return;
      }
      case OpKind::FenceProxy: emit(InstrKind::Fence, st); return;
      case OpKind::Copy:
      case OpKind::Fill:
      case OpKind::Unary:
      case OpKind::Binary:
      case OpKind::Reduce: return generic(st);
    }
  }

  int namedOf(int nb) const { return cta_ * static_cast<int>(s_.named_barriers.size()) + nb; }

  // A cluster rank an op names (cta=, a bit of multicast=): one of the
  // modelled CTAs. A schedule without cluster ops models one CTA, its own.
  int clusterRank(const ir::ExprPtr& e, std::string_view what) {
    const int64_t r = eval(e, what);
    const int64_t n = s_.clusterSize();
    if (r < 0 || r >= n)
      throw BuildError(fmt::format("{} names cluster rank {}, outside the cluster of {} CTA{}", what, r, n,
                                   n == 1 ? "" : "s"));
    return static_cast<int>(r);
  }
  std::vector<int> multicastTargets(const ir::ExprPtr& e) {
    const int64_t mask = eval(e, "multicast=");
    const int64_t n = s_.clusterSize();
    if (mask < 1 || mask >= (int64_t{1} << n))
      throw BuildError(fmt::format("multicast={} names no CTA or one outside the cluster of {} CTA{}", mask, n,
                                   n == 1 ? "" : "s"));
    std::vector<int> out;
    for (int c = 0; c < n; ++c)
      if (mask >> c & 1) out.push_back(c);
    return out;
  }

  std::optional<int64_t> viewIndex(const SlotSel& sel) {
    if (sel.mode == SlotSel::Mode::None) return 0;
    return eval(sel.index, sel.mode == SlotSel::Mode::Iter ? "iter=" : "stage=");
  }

  void wait(const Stmt& st) {
    const ir::Op& o = st.op;
    if (o.sel.mode == SlotSel::Mode::Iter && eval(o.sel.index, "iter=") < 0) return;  // passes at once
    SlotPhase sp = slotPhase(o.sel, o.barrier);
    Instr& in = emit(InstrKind::Wait, st);
    in.slot = sp.slot;
    in.phase = countedPhase(ps_->waits_on_slot, sp);
    ++ps_->waits_on_slot_total[sp.slot];
    ++ps_->blocking_syncs;
  }

  void pendingWait(InstrKind k, const Stmt& st) {
    Instr& in = emit(k, st);
    in.pending = st.op.pending ? eval(st.op.pending, "pending=") : 0;
  }

  // A multicast load (multicast=mask) lands the same box in the same view
  // slot of every CTA of the mask and completes its bytes on the same
  // barrier slot of each: one TmaLoad per destination, each landing on its
  // own. Its derived expect_tx counts the box once per CTA of the mask:
  // every CTA of the mask is meant to issue its own share to all of them
  // (docs/semantics.md "Clusters"; what actually lands is what the
  // exploration counts, so a share that is not issued shows).
  void tmaLoad(const Stmt& st) {
    const ir::Op& o = st.op;
    SlotPhase sp = slotPhase(o.sel, o.barrier);
    const std::vector<int> targets = o.multicast ? multicastTargets(o.multicast) : std::vector<int>{cta_};
    int64_t bytes = 0;
    // view[e].tma_load names its view slot by e (ref.slot), else iter=/stage= do
    const std::optional<int64_t> index = o.dst.slot ? std::nullopt : viewIndex(o.sel);
    auto acc = access(o.dst, index, true, Proxy::Async, true, &bytes);
    int64_t phase = sp.phase;
    if (tx_plan_.batchOf(&st)) {
      phase = derivedExpect(st, sp, bytes * static_cast<int64_t>(o.multicast ? targets.size() : 1));
    } else if (sp.counted) {
      phase = std::max<int64_t>(ps_->arrivals_on_slot[sp.slot] - 1, 0);
    }
    for (int t : targets) {
      space_cta_ = t;
      auto dst = t == cta_ ? acc : access(o.dst, index, true, Proxy::Async, true);
      space_cta_ = cta_;
      Instr& in = emit(InstrKind::TmaLoad, st);
      in.slot = sp.slot + (t - cta_) * sys_.slots_per_cta;
      in.phase = phase;
      in.bytes = bytes;
      addAccess(in, dst, st);
      markGridDep(in, o.src);
      // the issuing CTA reads the box once, at the issue (docs/semantics.md
      // "Global memory": an in-flight load is compared by its shared-memory
      // write only)
      if (t == targets.front()) addGlobal(in, o.src, o.dst, true, false, Proxy::Async, false);
    }
  }

  // One derived expect_tx per batch of the plan (ir/expect_tx.h), issued
  // right before the batch's first load; the batch's later loads (the same
  // straight-line code, the same slot selector) add their bytes to it.
  int64_t derivedExpect(const Stmt& st, const SlotPhase& sp, int64_t bytes) {
    const int batch = tx_plan_.batch_of.at(&st);
    if (!tx_plan_.headedBy(&st)) {
      auto it = ps_->batches.find(batch);
      if (it != ps_->batches.end()) {
        proc().program[it->second.first].bytes += bytes;
        return it->second.second;
      }
    }
    const int64_t phase = sp.counted ? ps_->arrivals_on_slot[sp.slot]++ : sp.phase;
    Instr& in = emit(InstrKind::ExpectTx, st);
    in.derived = true;
    in.slot = sp.slot;
    in.phase = phase;
    in.count = 1;
    in.bytes = bytes;
    ps_->batches[batch] = {proc().program.size() - 1, phase};
    return phase;
  }

  void mma(const Stmt& st) {
    const ir::Op& o = st.op;
    bool async = asyncMma();
    Proxy smem_proxy = async ? Proxy::Async : Proxy::Generic;
    Instr& in = emit(InstrKind::Mma, st);
    auto operand = [&](const BufferRef& r) {
      addRef(in, r, false, r.kind == BufferRef::Kind::View ? smem_proxy : Proxy::Generic, async, st);
    };
    operand(o.src);
    operand(o.src2);
    // without init= (or where it is false) the MMA adds to what acc holds:
    // that must be defined (data.uninitialized) and not already stored out
    // (data.stale-accumulator); the first hazard found is the one reported
    if (o.dst.kind == BufferRef::Kind::Regs && mmaAccumulates(o)) {
      regsElements(in, o.dst, false, true);
      staleAccumulator(in, o.dst);
      unreadProducts(in, o.dst, false, nullptr);  // it reads the product it adds to
    }
    if (o.dst.kind == BufferRef::Kind::Tmem && mmaAccumulates(o))
      tmem_facts_.accumulating.insert({proc_, static_cast<int>(proc().program.size()) - 1});
    addRef(in, o.dst, true, Proxy::Generic, async, st);
  }

  bool mmaAccumulates(const ir::Op& o) { return !(o.init && evalInit(o.init) != 0); }

  void generic(const Stmt& st) {
    const ir::Op& o = st.op;
    Instr& in = emit(InstrKind::Generic, st);
    addRef(in, o.src, false, Proxy::Generic, false, st);
    if (o.kind == OpKind::Binary || o.kind == OpKind::Reduce) addRef(in, o.src2, false, Proxy::Generic, false, st);
    const bool running = o.kind == OpKind::Reduce && o.src2.kind != ir::BufferRef::Kind::None;
    if (running) addRef(in, o.dst, false, Proxy::Generic, false, st);  // folds into dst
    addRef(in, o.dst, true, Proxy::Generic, false, st);
    if (running) addRef(in, o.src2, true, Proxy::Generic, false, st);
    if (o.kind == OpKind::Copy) {
      addGlobal(in, o.src, o.dst, false, false, Proxy::Generic, false);
      addGlobal(in, o.dst, o.src, false, true, Proxy::Generic, false);
    }
  }

  // An op whose view index never reaches its view's stages names stages,
  // not iterations: its index is compared modulo stages.
  void markStageLike() {
    for (Process& p : sys_.procs)
      for (Instr& in : p.program)
        for (Access& a : in.accesses)
          if (a.view >= 0) a.stage_like = !reaches_stages_[{in.stmt, a.view}];
  }

  // A re-read (tag()) means the generation of the process's previous read
  // of the index: the second read of a slot in one iteration of the loop
  // that keys it, the slot read once per round and once more after a
  // barrier (PyTorch's embedding_backward_feature_kernel reads
  // indices_batch[c] before and after a __syncthreads() in chunk c; each
  // return counted as a new lap made the second read mean the next
  // batch's data: a false data.stale-read, docs/rules/data.stale-read.md
  // "A slot read twice per round"). It is kept only where the two reads
  // provably see the same bytes: the reader and every other process that
  // writes over the read's bytes synchronize through one named barrier
  // only (lm.sync on it, on no other, no mbarrier wait, nobody runs
  // lm.bar_arrive on it), so the k-th lm.sync of each completes the same
  // barrier generation, and no such write is made at a barrier count
  // between the previous read's and this one's (a synchronous write at
  // either end is unordered with that read and races: countedApart), or
  // (session 44) where the order
  // the barriers fix puts every such write before the previous read or
  // after this one (orderedApart: mbarriers, several named barriers).
  // Otherwise the reads of that
  // index by that process are replayed as before, every return a new lap:
  // a slot overwritten between the two reads of a round is not covered by
  // the rule. The reads' meaning per round is unchanged: the first read of
  // the next iteration of the keying loop is a new return.
  // The seed rule (docs/rules/data.stale-read.md "A value its reader seeds,
  // in part") takes a first read of bytes the reader wrote all of for its
  // own initial value, no lap of the other writers, and so lowers every
  // later return's meaning there by one. That holds only where no other
  // process's write of those bytes can land between the reader's own writes
  // and that read: an updater's write before the loop (a pre-update) is
  // what the first read finds, its lap 0, and the lowered count hid a
  // skipped update (attack52: such a broken stencil was proved). So each
  // other write over a seeded piece must be ordered (BarrierOrder) after the
  // read, or before every write of the reader's own over its bytes before
  // the read; else every read of those view indices means what it means
  // without the rule (tag() counted both).
  void checkSeeds() {
    std::set<SeedKey> dropped;
    std::map<int, std::vector<const MarkedWrite*>> by_space;
    if (!seed_events_.empty())
      for (const MarkedWrite& w : marked_writes_) by_space[w.space].push_back(&w);
    for (const SeedEvent& e : seed_events_)
      if (!dropped.count(e.key) && !seedStands(e, by_space[e.space])) dropped.insert(e.key);
    seed_events_.clear();
    for (const SeedKey& key : dropped) countWithoutSeeds(key);
    unseeded_reads_.clear();
  }
  // The reads of `key`'s index as tag() counted them without the seed rule:
  // their meaning, their replay without the re-read rule (checkRereads) and
  // their counts per range (discountFirstReadsOfSlotUpdates, resolveReads).
  void countWithoutSeeds(const SeedKey& key) {
    const auto& [p, view, index] = key;
    for (UnseededRead& u : unseeded_reads_[key]) {
      Access& a = sys_.procs[p].program[u.instr].accesses[u.acc];
      a.gen = u.gen;
      a.gen_returns = u.returns;
      ProcState::ReadEvent& e = read_events_[p].at({view, index}).at(u.event);
      e.gen_plain = u.gen_plain;
      e.returns_plain = u.returns_plain;
      returns_by_range_.at({p, u.instr, u.acc}).ranges = std::move(u.by_range);
    }
  }
  bool seedStands(const SeedEvent& e, const std::vector<const MarkedWrite*>& writes) {
    auto meets = [](const MarkedWrite& w, int64_t lo, int64_t hi) { return w.lo < hi && lo < w.hi; };
    for (const auto& [lo, hi] : e.pieces)
      for (const MarkedWrite* w : writes) {
        if (w->proc == e.proc || !meets(*w, lo, hi)) continue;
        const BarrierOrder* order = barrierOrder();
        if (!order || w->async) return false;
        if (order->before(e.proc, e.instr, w->proc, w->pc)) continue;  // after the read
        for (const MarkedWrite* own : writes)
          if (own->proc == e.proc && own->pc < e.instr && meets(*own, std::max(lo, w->lo), std::min(hi, w->hi)) &&
              !order->before(w->proc, w->pc, e.proc, own->pc))
            return false;
      }
    return true;
  }

  void checkRereads() {
    std::set<int> arrived_alone;  // named barriers some process bar.arrives on
    for (const Process& pr : sys_.procs)
      for (const Instr& in : pr.program)
        if (in.kind == InstrKind::BarArrive) arrived_alone.insert(in.named);
    std::vector<int> aligned(sys_.procs.size(), -1);  // the one named barrier of each process
    auto alignedOf = [&](size_t p) {
      int nb = -1;
      for (const Instr& in : sys_.procs[p].program) {
        if (in.kind == InstrKind::Wait) return -1;
        if (in.kind != InstrKind::SyncArrive && in.kind != InstrKind::SyncWait) continue;
        if (nb >= 0 && in.named != nb) return -1;
        nb = in.named;
      }
      return nb >= 0 && !arrived_alone.count(nb) ? nb : -1;
    };
    bool computed = false;
    std::map<int, std::vector<const MarkedWrite*>> by_space;
    for (size_t p = 0; p < read_events_.size(); ++p)
      for (const auto& [key, events] : read_events_[p]) {
        bool any = false, ok = true;
        for (const auto& e : events) {
          if (!e.reread) continue;
          if (!computed) {
            computed = true;
            for (size_t q = 0; q < sys_.procs.size(); ++q) aligned[q] = alignedOf(q);
            for (const MarkedWrite& w : marked_writes_) by_space[w.space].push_back(&w);
          }
          any = true;
          const Access& a = sys_.procs[p].program[e.instr].accesses[e.acc];
          ok = (countedApart(static_cast<int>(p), a, e, aligned, by_space[a.space]) ||
                orderedApart(static_cast<int>(p), a, e, by_space[a.space])) &&
               (!e.loop_free || laterRoundsAfter(static_cast<int>(p), e, key, a));
          if (!ok) break;
        }
        if (!any || ok) continue;
        for (const auto& e : events) {  // what tag() counted without the rule
          Access& a = sys_.procs[p].program[e.instr].accesses[e.acc];
          a.gen = e.gen_plain;
          a.gen_returns = e.returns_plain;
          if (auto r = returns_by_range_.find({static_cast<int>(p), e.instr, e.acc}); r != returns_by_range_.end())
            for (RangeReturns& x : r->second.ranges) {
              x.returns = x.returns_plain;
              x.from_init = x.from_init_plain;
              x.floor = x.floor_plain;
            }
        }
      }
    read_events_.clear();
    marked_writes_.clear();
  }
  // No other process's write of the re-read's bytes lies between it and
  // the previous read: all synchronize through one named barrier only and
  // no such write is made at a barrier count between the previous read's
  // and this one's (session 27)... A synchronous write at the count of
  // either read is in that read's interval: with one named barrier, which
  // every one of them passes at each count together, there is a run in
  // which they are unordered, and sync.race reports them; in a run without
  // a finding the write is no part of what the re-read finds. (Counting
  // such an index's returns instead made cuDF's batch metadata, rewritten
  // with no leading block.sync() while the last batch's second re-read may
  // still run, a data.stale-read at batch 0, found before the race and
  // hiding it from the explicit engine's short search past a finding.)
  // An asynchronous write (a cp.async, landing later) is placed by no count.
  static bool countedApart(int p, const Access& a, const ProcState::ReadEvent& e, const std::vector<int>& aligned,
                           const std::vector<const MarkedWrite*>& writes) {
    if (aligned[p] < 0) return false;
    for (const MarkedWrite* w : writes) {
      if (w->proc == p || !touches(a, w->lo, w->hi)) continue;
      const bool racing = !w->async && (w->marker == e.m1 || w->marker == e.m2);
      if (aligned[w->proc] != aligned[p] || (w->marker >= e.m1 && w->marker <= e.m2 && !racing)) return false;
    }
    return true;
  }
  // ... or each such write is ordered before the previous read or after
  // this one by the order the barriers fix (encoder/barrier_order.h,
  // session 44: a slot read twice per round across an mbarrier wait, or
  // with several named barriers). A write that lands after its
  // instruction is not placed by it.
  bool orderedApart(int p, const Access& a, const ProcState::ReadEvent& e,
                    const std::vector<const MarkedWrite*>& writes) {
    if (e.prev_instr < 0) return false;
    const BarrierOrder* order = barrierOrder();
    if (!order) return false;
    for (const MarkedWrite* w : writes)
      if (w->proc != p && touches(a, w->lo, w->hi) &&
          (w->async || !(order->before(w->proc, w->pc, p, e.prev_instr) ||
                         order->before(p, static_cast<int>(e.instr), w->proc, w->pc))))
        return false;
    return true;
  }
  // An index that names no loop variable (keyed on the loop around the
  // read, session 45) names no round either: there, each other process's
  // write over the re-read's bytes that the barriers order after it must be
  // at a later iteration of a loop of the read's, paired as the skip rule
  // pairs them (FlashMLA's sScale1: the writer's next write is the next
  // pair's). A write later in the same round means the reader came before
  // its turn and read the last round's data twice
  // (TurnTaking.AReaderBeforeItsTurnIsStale): counted as before. A writer
  // of the reader's own role is admitted only where the reader's peers
  // read the index alike (peersReadAlike): a slot its own role writes may
  // be meant to change between the two reads by an update of one of them
  // that is missing (Kokkos' join whose write-back is lost,
  // StaleRead.ReadBackOfItsOwnUpdateMeansItsWrite): counted as before.
  bool laterRoundsAfter(int p, const ProcState::ReadEvent& e, const std::pair<int, int64_t>& key, const Access& a) {
    const BarrierOrder* order = barrierOrder();
    if (!order) return false;
    const int pc = static_cast<int>(e.instr);
    const Instr& in = sys_.procs[p].program[pc];
    indexViewWrites();
    const std::vector<LoopPos> pos = positions(p, in.loops);
    bool later = true;
    const int role = sys_.procs[p].role;
    std::optional<bool> alike;  // peersReadAlike, asked once a writer of the role is met
    forEachViewWriteOver(a, [&](const ViewWrite& w) {
      if (!later || !bytesMeet(a, w.bytes)) return;
      if (sys_.procs[w.proc].role == role && !alike) alike = peersReadAlike(p, e, key);
      if (sys_.procs[w.proc].role == role && !*alike) later = false;
      else if (order->before(p, pc, w.proc, w.pc)) later = !in.loops.empty() && standing(in.loops, pos, role, w).after;
    });
    return later;
  }
  // Whether the re-read is how the reader's role reads the index, not a
  // step of the reader's own: at least one other instance of the role (in
  // the reader's CTA) runs the re-read's statement at the same loop
  // iterations, and each that does read the index last at the previous
  // read's statement and iterations and reads it again there without a
  // return (a re-read, or a read-back of its own write); each that runs the
  // previous read's statement runs the re-read's too. cuDF's batch metadata
  // (PR #17985, written bare): thread 0 writes it once a batch, every warp
  // reads it after each of the batch's barriers, warp 0's second read a
  // re-read after its read-back - the same statement means the same round
  // for every instance. Kokkos' join whose write-back is lost is not
  // alike: warp 4 reads result[0] for the join, alone, and the other warps'
  // reads for the sum are their first of the call; counting its return
  // there reports the lost update (the slot accesses of the two programs
  // are otherwise the same: docs/known-limits.md).
  bool peersReadAlike(int p, const ProcState::ReadEvent& e, const std::pair<int, int64_t>& key) const {
    if (e.prev_instr < 0) return false;
    const Process& reader = sys_.procs[p];
    const Instr& now = reader.program[e.instr];
    const Instr& prev = reader.program[static_cast<size_t>(e.prev_instr)];
    auto sameRun = [](const Instr& x, const Instr& y) { return x.stmt == y.stmt && x.loops == y.loops; };
    int alike = 0;
    for (size_t q = 0; q < sys_.procs.size(); ++q) {
      const Process& peer = sys_.procs[q];
      if (static_cast<int>(q) == p || peer.role != reader.role || peer.cta != reader.cta) continue;
      auto events = read_events_[q].find(key);
      if (events == read_events_[q].end()) continue;
      bool at_prev = false;
      const ProcState::ReadEvent* at_now = nullptr;
      for (const ProcState::ReadEvent& x : events->second) {
        at_prev = at_prev || sameRun(peer.program[x.instr], prev);
        if (sameRun(peer.program[x.instr], now)) at_now = &x;
      }
      if (!at_now) {
        if (at_prev) return false;
        continue;
      }
      if (at_now->prev_instr < 0 || !sameRun(peer.program[static_cast<size_t>(at_now->prev_instr)], prev) ||
          !(at_now->reread || at_now->back))
        return false;
      ++alike;
    }
    return alike > 0;
  }

  // A TMA-filled view whose loads several processes share (session 45):
  // each loader's count of its writes of an index is no common currency
  // (FlashMLA's sK1 V-right tile: warpgroup 0 loads it at each batch's
  // start, warpgroup 1 reloads it per pair, and warpgroup 1's read after
  // the batch's first wait meant its count of returns, lap 2, where
  // warpgroup 0's load is its lap 1: a false data.stale-read). Where every
  // write through the view is a stage-named TMA load completing on the
  // slot that fills its index (one barrier, a slot per stage) and no other
  // view reads its bytes as a second view, the data of each load is the
  // phase it completes on, and a stage-named read by a process that waits
  // on that slot means the phase of its latest wait there. In every run
  // without a finding the read finds that phase's load, or data ordered
  // after it: the load lands before the phase completes (else
  // sync.tx-imbalance), the wait passes after that (else
  // sync.stale-phase), and a write of the bytes between the landing and
  // the read either races with one of them (sync.race) or is ordered
  // between them - a load of a later phase, or a write through another
  // view, stale by its view. An older phase's data is stale to it.
  void labelSharedLoadsByPhase() {
    for (const auto& [view, barriers] : fill_barriers_) {
      if (barriers.size() != 1) continue;
      const int b = *barriers.begin();
      if (s_.barriers[b].count != s_.views[view].stages) continue;
      auto fillSlot = [&](const Access& x) {
        return sys_.slotOf(b, ir::floorMod(x.index, s_.barriers[b].count).value(), sys_.spaces[x.space].cta);
      };
      std::set<int> loaders;
      bool ok = true;
      std::vector<std::pair<int, int>> places;  // (process, program index) of the view's accesses
      for (size_t p = 0; p < sys_.procs.size() && ok; ++p)
        for (size_t pc = 0; pc < sys_.procs[p].program.size() && ok; ++pc) {
          const Instr& in = sys_.procs[p].program[pc];
          for (const Access& x : in.accesses) {
            if (x.view != view) continue;
            ok = ok && x.stage_like && x.index >= 0 &&
                 (!x.write || (in.kind == InstrKind::TmaLoad && in.slot == fillSlot(x)));
            if (x.write) loaders.insert(static_cast<int>(p));
            places.push_back({static_cast<int>(p), static_cast<int>(pc)});
          }
        }
      if (!ok || loaders.size() < 2 || readAsASecondView(view)) continue;
      for (const auto& [p, pc] : places) {
        Instr& in = sys_.procs[p].program[pc];
        for (Access& x : in.accesses) {
          if (x.view != view) continue;
          if (x.write) {
            x.gen = in.phase;
          } else if (const std::optional<int64_t> phase = latestWaitPhase(p, pc, fillSlot(x))) {
            x.gen = *phase;
            x.gen_returns = *phase;
            returns_by_range_.erase({p, static_cast<size_t>(pc), static_cast<size_t>(&x - in.accesses.data())});
          }
        }
      }
    }
  }
  // Whether a view that no instance writes reads bytes that `view` writes
  // (it would compare their data by laps).
  bool readAsASecondView(int view) const {
    std::set<int> written;
    std::vector<const Access*> view_writes;
    for (const Process& pr : sys_.procs)
      for (const Instr& in : pr.program)
        for (const Access& x : in.accesses)
          if (x.write && x.view >= 0) {
            written.insert(x.view);
            if (x.view == view) view_writes.push_back(&x);
          }
    for (const Process& pr : sys_.procs)
      for (const Instr& in : pr.program)
        for (const Access& r : in.accesses)
          if (!r.write && r.view >= 0 && r.view != view && !written.count(r.view) &&
              std::any_of(view_writes.begin(), view_writes.end(), [&](const Access* w) { return bytesMeet(r, *w); }))
            return true;
    return false;
  }

  // What a read means, from what the other instances write over its bytes
  // (docs/semantics.md "Stale data"):
  //  * view_written: whether any instance (the reader too) writes through
  //    the read's own view there. If none does, the read is a second view
  //    of bytes written through another one, and means their data by laps.
  //  * a stage-like read's generation counts the reader's returns to its
  //    slot after synchronizing; that each return means a newer lap is a
  //    guess about the writers, wrong when they write the bytes fewer times
  //    (a tile written once and read on every iteration holds lap 0 for
  //    good). A read can mean only a lap that is written: at most the
  //    highest lap another instance writes over any of its bytes (through
  //    its own view when view_written, else through any view). The capped
  //    generation is the least lap the read means: sim::staleData accepts
  //    a newer lap (written before the synchronization the read follows,
  //    else the write races), so a writer that writes the slot more often
  //    than the reader reads it (a reduction's result over a partial) is
  //    covered too. Iteration-like reads name their data by index and keep it;
  //    their generation is the least one they mean as well, capped the same
  //    way: at most the highest generation another instance writes of that
  //    index (through the read's view, by iteration) over its bytes. A
  //    reader that comes back to an index more often than any one instance
  //    rewrites it (a tree reduction that relays one slot through several
  //    writers, each writing it once: apex's cuWelfordMuSigma2) reads the
  //    last data written there, which is what it waited for.
  // (space, proc, view, lo, hi) -> highest lap written there
  using Tops = std::map<std::tuple<int, int, int, int64_t, int64_t>, int64_t>;
  // (space, view, index) -> (proc, lo, hi, highest generation) of the
  // iteration-like writes of that index
  using TopGens = std::map<std::tuple<int, int, int64_t>, std::vector<std::tuple<int, int64_t, int64_t, int64_t>>>;
  void resolveReads() {
    Tops top;
    // iteration-like writes: (space, proc, view, index, lo, hi) -> highest generation
    std::map<std::tuple<int, int, int, int64_t, int64_t, int64_t>, int64_t> top_gen;
    for (size_t p = 0; p < sys_.procs.size(); ++p)
      for (const Instr& in : sys_.procs[p].program)
        for (const Access& a : in.accesses)
          if (a.write && a.view >= 0) {
            const int64_t lap = a.index >= 0 ? dataLap(s_, a) : 0;
            auto [it, fresh] = top.try_emplace({a.space, static_cast<int>(p), a.view, a.lo, a.hi}, lap);
            if (!fresh) it->second = std::max(it->second, lap);
            if (a.index >= 0 && !a.stage_like) {
              auto [g, gfresh] = top_gen.try_emplace({a.space, static_cast<int>(p), a.view, a.index, a.lo, a.hi}, a.gen);
              if (!gfresh) g->second = std::max(g->second, a.gen);
            }
          }
    // (indexed for the reads below: a scan of every write per read is
    // quadratic in the system's size, most of a large system's build)
    WrittenLaps laps;
    for (const auto& [key, lap] : top) {
      const auto& [space, proc, view, lo, hi] = key;
      laps.add(space, lo, hi, {proc, view, lap});
    }
    TopGens gens;
    for (const auto& [key, gen] : top_gen) {
      const auto& [space, proc, view, index, lo, hi] = key;
      gens[{space, view, index}].emplace_back(proc, lo, hi, gen);
    }
    for (size_t p = 0; p < sys_.procs.size(); ++p)
      for (size_t pc = 0; pc < sys_.procs[p].program.size(); ++pc) {
        Instr& in = sys_.procs[p].program[pc];
        std::vector<Access> pieces;  // reads split by byte range (below)
        for (Access& a : in.accesses) {
          if (a.write || a.view < 0) continue;
          laps.overlapping(a.space, a.lo, a.hi, [&](const WrittenLaps::Entry& e) {
            if (e.value.view == a.view && touches(a, e.lo, e.hi)) a.view_written = true;
          });
          const int64_t cap = capOver(static_cast<int>(p), a, laps);
          if (!sem_.cap_read_generations) {
            a.gen = uncappedGeneration(a);
            continue;
          }
          if (a.index >= 0 && !a.stage_like) {
            capIterationRead(static_cast<int>(p), a, gens);
            continue;
          }
          if (!(a.index >= 0 && a.stage_like && cap >= 0)) continue;
          const Access whole = a;  // (the split below keeps a's first range in a)
          const size_t first_piece = pieces.size();
          capStageRead(static_cast<int>(p), in, a, cap, laps, pieces);
          handOver(static_cast<int>(p), static_cast<int>(pc), in, whole, a, pieces, first_piece);
        }
        for (Access& x : pieces) in.accesses.push_back(std::move(x));
        for (Access& a : in.accesses) {  // build-only
          a.gen_returns = -1;
          a.own_since.clear();
          a.own_writes.clear();
        }
      }
  }
  // What a read means without the caps (BuildSemantics::
  // cap_read_generations off, a proof's build): at least every generation
  // the capped build gives any byte of it, so that a run clean without the
  // caps is clean with them (docs/z3.md "The empty tiles' copies read
  // without the caps"). The caps change nothing but read generations (and
  // cut a read into pieces by byte range), and every capped value is a
  // min() of the read's count (a.gen: its returns, max(epoch, own writes)
  // on a read-back) or, in a piece, of its returns (gen_returns), which a
  // read-back over part of its bytes may count above a.gen; sim::staleData
  // is monotone in a read's generation (stale iff lap(w) < gen(r) for a
  // stage-named read, iff w.index != r.index || w.gen < r.gen for two
  // iteration-named ones; the other pairs do not read it). A read of
  // bytes its own process rewrote since its last read of the index, all of
  // them, means its own data (kOwnDataOnly): any other process's data
  // there is stale, whatever the caps would make of it; such a read then
  // means no lap that moves with the writes after it (the empty tiles'
  // zero tile staged through bytes the later tiles load).
  static int64_t uncappedGeneration(const Access& a) {
    if (!a.own_since.empty() && coveredByPairs(a.own_since, a.lo, a.hi)) return kOwnDataOnly;
    return std::max(a.gen, a.gen_returns);
  }
  // An iteration-named read: at most the highest generation another
  // instance writes of that index over its bytes (rb11a).
  static void capIterationRead(int p, Access& a, const TopGens& gens) {
    int64_t gcap = -1;
    if (auto g = gens.find({a.space, a.view, a.index}); g != gens.end())
      for (const auto& [proc, lo, hi, gen] : g->second)
        if (proc != p && touches(a, lo, hi)) gcap = std::max(gcap, gen);
    if (gcap >= 0) a.gen = std::min(a.gen, gcap);
  }

  // Calls f(lap, same_view) on each lap another instance writes over the
  // read's bytes (its own data is never stale): the writes capOver and
  // lowestLapOver read.
  template <class F>
  static void forEachOtherLap(int p, const Access& a, const WrittenLaps& laps, F&& f) {
    laps.overlapping(a.space, a.lo, a.hi, [&](const WrittenLaps::Entry& e) {
      if (e.value.proc != p && touches(a, e.lo, e.hi)) f(e.value.lap, e.value.view == a.view);
    });
  }
  // The highest lap another instance writes over the read's bytes
  // (through its own view where some instance writes it), -1: none.
  static int64_t capOver(int p, const Access& a, const WrittenLaps& laps) {
    int64_t own = -1, any = -1;
    forEachOtherLap(p, a, laps, [&](int64_t lap, bool same_view) {
      any = std::max(any, lap);
      if (same_view) own = std::max(own, lap);
    });
    return a.view_written ? own : any;
  }
  // The lowest lap another instance writes over some of the read's bytes
  // (as capOver counts them): a part of the read below it is capped at
  // most there (splitByWrittenLaps).
  // (Each entry of `laps` is a (process, view, byte range)'s highest lap:
  // resolveReads and lapsNotAfter merge them so.)
  static int64_t lowestLapOver(int p, const Access& a, const WrittenLaps& laps) {
    int64_t low = std::numeric_limits<int64_t>::max();
    forEachOtherLap(p, a, laps, [&](int64_t lap, bool same_view) {
      if (!a.view_written || same_view) low = std::min(low, lap);
    });
    return low;
  }
  // Whether a capped stage-like read finds its bytes left over from an
  // earlier iteration of a loop it shares with their writers (the writers'
  // ops inside that loop, none at the read's iteration): the cap stands
  // for a table written fewer times than it is read (written once, before
  // the loop); a write the writer's program puts in the loop writes the
  // slot per iteration, and an iteration that skips it leaves the older
  // iteration's data, which the read does not mean (docs/rules/
  // data.stale-read.md "A write its loop skips", session 35: DeepGEMM's
  // B-scale row written on a CTA's first tile only, named by its slot).
  // The read then means what it counts (its returns), uncapped.
  // A writer's loop pairs with the read's (pairedAt) as one loop statement
  // (instances of one role) or, across roles, as loops of the same trip
  // counts (each role's tile loop over the CTA's tiles; session 36). The
  // earlier write is a skip only where its data may change per iteration
  // of that loop (viewWriteDataLoops: it reads its variable): a table loaded lazily
  // under `if t == 0:` from coordinates no iteration changes would be
  // written again with the same data, so skipping it leaves nothing stale.
  struct LoopPos {
    int64_t trips, ordinal;  // of a loop run, and the iteration's place in it
  };
  struct ViewWrite {
    int proc;                   // the writing process
    int pc;                     // its program index
    Loops loops;                // the writing instruction's
    std::vector<LoopPos> pos;   // per entry of loops
    Access bytes;               // the write
    int64_t lap;                // of its data (as in `top`)
    DataLoops data;             // what its data may depend on
  };
  bool skippedLoopWrite(int p, const Instr& in, const Access& a) {
    if (in.loops.empty()) return false;
    indexViewWrites();
    const int pc = static_cast<int>(&in - sys_.procs[p].program.data());
    // the others' writes of the read's bytes in loops, and the reader's
    // own before it (`mine`)
    std::vector<const ViewWrite*> over, mine;
    forEachViewWriteOver(a, [&](const ViewWrite& w) {
      if (w.loops.empty() || (a.view_written && w.bytes.view != a.view) || !bytesMeet(a, w.bytes)) return;
      if (w.proc != p) over.push_back(&w);
      else if (w.pc < pc) mine.push_back(&w);
    });
    const std::vector<LoopPos> pos = positions(p, in.loops);
    const ReadAt read{p, pc, in.loops, pos, barrierOrder()};
    for (size_t d = 0; d < in.loops.size() && !over.empty(); ++d)
      if (skippedAt(read, d, sys_.procs[p].role, over, mine, a)) return true;
    return false;
  }
  // The read skippedAt looks at: its process, program index, loops and
  // their positions, and the barrier order (null where there is none).
  struct ReadAt {
    int p, pc;
    const Loops& at;
    const std::vector<LoopPos>& pos;
    const BarrierOrder* order;
  };
  // The read's instances at each earlier iteration of its loop at depth d
  // (the loops outside it at the read's iterations): the loop variable's
  // value -> the program index of the last instance there.
  std::map<int64_t, int> readInstancesBefore(const ReadAt& r, size_t d) const {
    std::map<int64_t, int> out;
    const std::vector<Instr>& prog = sys_.procs[r.p].program;
    const ir::Stmt* stmt = prog[r.pc].stmt;
    for (int q = r.pc - 1; q >= 0; --q) {
      const Instr& in = prog[q];
      if (in.stmt != stmt || in.loops.size() <= d || in.loops[d].first != r.at[d].first ||
          in.loops[d].second == r.at[d].second || !std::equal(r.at.begin(), r.at.begin() + d, in.loops.begin()))
        continue;
      out.try_emplace(in.loops[d].second, q);  // (scanning backward: the last instance first)
    }
    return out;
  }
  // The writes `earlier` (at earlier iterations of the read's loop at depth
  // d) that the read means instead of a write at its own iteration: the
  // loop body writes after it reads (a stencil's update after its
  // neighbourhood read), so the read means the iteration before's write,
  // and its own iteration's write (after it) is none of its data. A last
  // iteration that leaves the write out (read by no one) then skips
  // nothing the read means (helper attack53, session 53: the two-warp
  // stencil with `if it + 1 < n:` around its update was a false
  // data.stale-read, docs/known-limits.md "data.stale-read: a stencil whose
  // last round skips its update"). Only where every such write is of the
  // read's loop statement (an instance of its role) and lies after the
  // read's instance at its own iteration in the barriers' order (a write
  // before the read in the body, skipped, would leave the iteration
  // before's data: none is then returned), and of those the ones at the
  // iteration just before the read's, ordered before the read.
  std::vector<const ViewWrite*> writtenSinceThePreviousRead(const ReadAt& r, size_t d,
                                                            const std::vector<std::pair<const ViewWrite*, bool>>& earlier) const {
    if (!r.order || r.pos[d].ordinal == 0) return {};
    const std::map<int64_t, int> reads = readInstancesBefore(r, d);
    std::vector<const ViewWrite*> out;
    for (const auto& [w, by_statement] : earlier) {
      const auto read = reads.find(w->loops[d].second);
      if (!by_statement || read == reads.end() || !r.order->before(r.p, read->second, w->proc, w->pc)) return {};
      if (w->pos[d].ordinal + 1 == r.pos[d].ordinal && r.order->before(w->proc, w->pc, r.p, r.pc)) out.push_back(w);
    }
    return out;
  }
  // Whether, among the writes `over` in a loop paired with the read's loop
  // at depth d, one whose data that loop may change is at an earlier
  // iteration, by a process that runs the read's iteration, over bytes of
  // the read that no write at the read's iteration covers. Per byte: a
  // row whose halves two writers write, one of them on the first tile
  // only, has the other half written at every iteration (session 37: a
  // write at the read's iteration over other bytes hid the skip). The
  // reader's own writes before it at its iteration (`mine`) cover their
  // bytes too: there the read finds its own data, never the skipped write
  // (session 50: rocSOLVER's potf2 column, whose rows each wave rescales
  // before reading the column whole inside the rank-1 update's loop). So
  // do the writes of the iteration before that the read means where the
  // body writes after it reads (writtenSinceThePreviousRead, session 53).
  bool skippedAt(const ReadAt& r, size_t d, int role, const std::vector<const ViewWrite*>& over,
                 const std::vector<const ViewWrite*>& mine, const Access& a) const {
    const Loops& at = r.at;
    const std::vector<LoopPos>& pos = r.pos;
    ElementSet here;  // the read's bytes written at its iteration
    std::vector<const ViewWrite*> earlier;
    std::vector<std::pair<const ViewWrite*, bool>> before;  // every write paired at an earlier iteration, by statement?
    for (const ViewWrite* w : over) {
      const std::optional<Paired> order = pairedAt(at, pos, d, role, *w);
      if (!order) continue;
      if (order->order == 0 && !order->unsure) forEachRun(w->bytes, [&](int64_t lo, int64_t hi) { here.add(lo, hi); });
      else if (order->order < 0) {
        before.emplace_back(w, order->by_statement && !order->unsure);
        if (w->data.reads(w->loops[d].first) && (!order->by_statement || runsIteration(w->proc, at, d)))
          earlier.push_back(w);
      }
    }
    for (const ViewWrite* w : mine) {
      const std::optional<Paired> order = pairedAt(at, pos, d, role, *w);
      if (order && order->order == 0 && !order->unsure) forEachRun(w->bytes, [&](int64_t lo, int64_t hi) { here.add(lo, hi); });
    }
    auto uncovered = [&] {
      bool any = false;
      for (const ViewWrite* w : earlier)
        forEachRun(w->bytes, [&](int64_t wlo, int64_t whi) {
          forEachRun(a, [&](int64_t alo, int64_t ahi) {
            const int64_t lo = std::max(wlo, alo), hi = std::min(whi, ahi);
            any = any || (lo < hi && here.firstMissing(lo, hi));
          });
        });
      return any;
    };
    if (!uncovered()) return false;
    const std::vector<const ViewWrite*> meant = writtenSinceThePreviousRead(r, d, before);
    if (meant.empty()) return true;
    for (const ViewWrite* w : meant) forEachRun(w->bytes, [&](int64_t lo, int64_t hi) { here.add(lo, hi); });
    return uncovered();
  }
  // Where write w's loop at depth d pairs with the read's (`at`, `pos`):
  // how its iteration compares with the read's (-1 earlier, 0 the same,
  // 1 later).
  //  * one loop statement at the same iterations of the loops outside it,
  //    compared by value (by_statement);
  //  * else, for a writer of another role, loops with the same bounds
  //    (sameExpr start, end and step) and trip counts at each depth down
  //    to d (each role's `for t in lm.range(0, my_tiles)` over the CTA's
  //    tiles), at the same ordinals outside it, compared by ordinal (its
  //    process runs the read's iteration). Not loops of one role, nor
  //    loops whose bounds differ: a prologue's `lm.range(0, 2)` and a
  //    main loop's `lm.range(0, n_blocks)` run the same count by chance
  //    (xformers' fixed prologue at Kv = 65, a false alarm the gate caught).
  //  * `unsure`: some depth's bounds neither shown equal nor different
  //    (Z3 gave up). Such a pairing counts only where it is the strict
  //    direction: a write at an earlier iteration may be a skip
  //    (skippedAt), never a write that covers the read's iteration or a
  //    later lap to leave out (standing).
  struct Paired {
    int order;
    bool by_statement;
    bool unsure = false;
  };
  using Equality = ValueEquality;
  std::optional<Paired> pairedAt(const Loops& at, const std::vector<LoopPos>& pos, size_t d, int reader_role,
                                 const ViewWrite& w) const {
    if (w.loops.size() <= d) return std::nullopt;
    const auto sign = [](int64_t x, int64_t y) { return x < y ? -1 : x > y ? 1 : 0; };
    if (std::equal(at.begin(), at.begin() + d + 1, w.loops.begin(),
                   [](const auto& x, const auto& y) { return x.first == y.first; }) &&
        std::equal(at.begin(), at.begin() + d, w.loops.begin()))
      return Paired{sign(w.loops[d].second, at[d].second), true};
    if (sys_.procs[w.proc].role == reader_role) return std::nullopt;
    ir::LoopVarRename paired_vars;  // the writer's loop variables outside depth j -> the read's
    bool unsure = false;
    for (size_t j = 0; j <= d; ++j) {
      if (w.pos[j].trips != pos[j].trips || (j < d && w.pos[j].ordinal != pos[j].ordinal)) return std::nullopt;
      const Equality eq = sameBounds(at[j].first, w.loops[j].first, paired_vars);
      if (eq == Equality::Different) return std::nullopt;
      unsure = unsure || eq == Equality::Unknown;
      paired_vars[w.loops[j].first] = at[j].first;
    }
    return Paired{sign(w.pos[d].ordinal, pos[d].ordinal), false, unsure};
  }
  // Whether loops `var` (the read's) and `other` (the writer's) have the
  // same start, end and step for every allowed value of the free symbols,
  // compared by value (encoder/value_equality.h, shared with the trip
  // proof's respelled bounds), not by spelling: a writer's
  // `lm.range(0, n + 0)` or `lm.range(0, 1 * n)` is the reader's
  // `lm.range(0, n)` (session 37, sound37b: compared by sameExpr, the pair
  // went unseen and a skipped write with it). The writer's variables of
  // the loops paired outside it (`rename`) read as the read's: at equal
  // ordinals of loops of equal start and step they hold the same values.
  // Cached per pair (and renaming): the answer depends on nothing else.
  // Where neither the canonical form nor a sample assignment decides
  // (k-means' `lm.range(0, 2)` against `lm.range(0, my_tiles)` differs at
  // N = 1; `lm.cdiv(N, 64)` and `(N + 63) // 64` are one form), Z3 does,
  // under the facts (1 s and 2M resource units a query); Unknown where it
  // cannot.
  Equality sameBounds(int var, int other, const ir::LoopVarRename& rename) const {
    auto key = std::make_tuple(var, other, rename);
    if (auto it = same_bounds_.find(key); it != same_bounds_.end()) return it->second;
    if (!bounds_comparer_)
      bounds_comparer_ = std::make_unique<ValueComparer>(s_, kBoundQueryLimits);
    const Equality eq = bounds_comparer_->compareLoops(*loop_stmt_of_.at(var), *loop_stmt_of_.at(other), rename);
    same_bounds_.emplace(std::move(key), eq);
    return eq;
  }
  mutable std::map<std::tuple<int, int, ir::LoopVarRename>, Equality> same_bounds_;
  mutable std::unique_ptr<ValueComparer> bounds_comparer_;
  // Whether process q's run of the loop at depth d of `at` (at its
  // iterations outside it) has the iteration at[d].
  bool runsIteration(int q, const Loops& at, size_t d) const {
    auto it = loop_runs_.find({q, Loops(at.begin(), at.begin() + d), at[d].first});
    if (it == loop_runs_.end()) return false;
    const LoopRun& r = it->second;
    const int64_t off = at[d].second - r.lo;
    return off % r.step == 0 && off / r.step >= 0 && off / r.step < r.trips;
  }
  // Each entry of `loops` (an instruction of process q): its loop run's
  // trip count and the iteration's ordinal in it.
  std::vector<LoopPos> positions(int q, const Loops& loops) const {
    std::vector<LoopPos> out;
    Loops outside;
    for (const auto& [var, v] : loops) {
      const LoopRun& r = loop_runs_.at({q, outside, var});
      out.push_back({r.trips, (v - r.lo) / r.step});
      outside.push_back({var, v});
    }
    return out;
  }
  // Every view write, per space (indexed on the first stage-like read in a
  // loop that a write of another instance caps).
  void indexViewWrites() {
    if (view_writes_indexed_) return;
    view_writes_indexed_ = true;
    const std::map<const Stmt*, DataLoops> data = viewWriteDataLoops();
    for (size_t q = 0; q < sys_.procs.size(); ++q)
      for (size_t pc = 0; pc < sys_.procs[q].program.size(); ++pc) {
        const Instr& w = sys_.procs[q].program[pc];
        auto d = data.find(w.stmt);
        for (const Access& x : w.accesses)
          if (x.write && x.view >= 0) {
            view_write_ranges_.add(x.space, x.lo, x.hi, view_writes_.size());
            view_writes_.push_back({static_cast<int>(q), static_cast<int>(pc), w.loops, positions(static_cast<int>(q), w.loops), x,
                                    x.index >= 0 ? dataLap(s_, x) : 0,
                                    d != data.end() ? d->second : DataLoops{true, {}}});
          }
      }
  }
  // Calls f on each view write whose bounding range meets the read's (in
  // no particular order: its callers' answers do not depend on one).
  template <class F>
  void forEachViewWriteOver(const Access& a, F&& f) const {
    view_write_ranges_.overlapping(a.space, a.lo, a.hi,
                                   [&](const RangeIndex<size_t>::Entry& e) { f(view_writes_[e.value]); });
  }
  bool view_writes_indexed_ = false;
  std::vector<ViewWrite> view_writes_;    // every view write, in program order
  RangeIndex<size_t> view_write_ranges_;  // view_writes_ by space and byte range

  // A first read that is no lap of the slot's updaters (docs/rules/
  // data.stale-read.md "A row seeded by one instance, updated from the
  // slot by another", session 52). The seed rule ("Returns are counted
  // per byte") takes a range's first read off the count of the other
  // writers' laps where the reader wrote the range itself. The same holds
  // where another instance seeded it (every write over it ordered before
  // that first read is a seed) and every later write over it by the other
  // instances is computed from the slot as read no earlier than that first
  // read (a data path through the writer's registers to a read of the
  // slot that the barriers do not order before it): an in-place update of
  // the slot that answers a round's reads (a stencil, a relaxation, a
  // flood fill) can be no data that round's reads meant, since no order of
  // the same computations puts it before them. The next return then means
  // the updaters' lap 0, as for a seed of the reader's own. Not so for a
  // write of data the updater had before the reads (llama.cpp's
  // kqmax_shared entry loaded from the tile's scores, written one barrier
  // late): its data path reaches no read of the slot, so the reader that
  // came before it still means its lap and is reported. A process that
  // both seeds the range and updates it later counts its seed as its lap
  // 0 (the reader means its first update next): no discount there.
  void discountFirstReadsOfSlotUpdates() {
    std::map<std::tuple<int, int, int, int64_t, int64_t, int64_t>, bool> memo;  // (p, first read, view, index, lo, hi)
    // (p, space, lo, hi) -> the range cut at the others' writes' ends: a
    // range is read again in every round (the cut was most of the search)
    std::map<std::tuple<int, int, int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> pieces;
    // A discount needs a seeder and an updater of the read's own slot
    // (space, view, index), two processes other than the reader that write
    // it synchronously (firstReadIsNoLapOfTheUpdates: `plain`), the updater
    // also reading it (computedFromTheSlotNotBefore: its data path ends at
    // a read of the slot). A read whose slot has none is skipped before the
    // writes are indexed and any piece is cut: most builds have no such
    // slot (the search ran on every build; docs/ci.md, session 53).
    const std::map<std::tuple<int, int, int64_t>, SlotWriters> slots = updatedSlots();
    auto mayBeDiscounted = [&](int p, const Access& a) {
      const auto it = slots.find({a.space, a.view, a.index});
      if (it == slots.end() || it->second.writers.size() - it->second.writers.count(p) < 2) return false;
      const std::set<int>& up = it->second.updaters;
      return std::any_of(up.begin(), up.end(), [&](int q) { return q != p; });
    };
    for (auto& [key, e] : returns_by_range_) {
      const auto& [p, pc, acc] = key;
      Access& a = sys_.procs[p].program[pc].accesses[acc];
      if (!a.stage_like || a.index < 0 || e.view != a.view || e.index != a.index) continue;
      if (!mayBeDiscounted(p, a)) continue;
      bool changed = false;
      std::vector<RangeReturns> ranges;
      for (const RangeReturns& x : e.ranges) {
        if (x.seeded || (x.returns < 1 && x.from_init < 1)) {  // nothing to take off
          ranges.push_back(x);
          continue;
        }
        // per piece between the others' writes' ends: each has its own
        // seeders and updaters (a row seeded by one warp and updated by
        // another, beside a row where the two are other warps)
        auto [cut, cut_fresh] = pieces.try_emplace({p, a.space, x.lo, x.hi});
        if (cut_fresh) cut->second = piecesBetweenOtherWrites(p, a, x.lo, x.hi);
        for (const auto& [lo, hi] : cut->second) {
          auto [m, fresh] = memo.try_emplace({p, x.first_instr, a.view, a.index, lo, hi}, false);
          if (fresh) m->second = firstReadIsNoLapOfTheUpdates(p, x.first_instr, a, lo, hi);
          RangeReturns piece = x;
          piece.lo = lo;
          piece.hi = hi;
          if (m->second) {
            --piece.returns;
            --piece.returns_plain;
            --piece.from_init;
            --piece.from_init_plain;
            changed = true;
          }
          ranges.push_back(piece);
        }
      }
      if (!changed) continue;
      e.ranges = std::move(ranges);
      // what countReturns gives, from the counts that are left
      a.gen = 0;
      a.gen_returns = 0;
      for (const RangeReturns& x : e.ranges) {
        a.gen = std::max({a.gen, x.from_init, x.floor});
        a.gen_returns = std::max(a.gen_returns, x.returns);
      }
    }
  }
  // The processes that write a view slot (space, view, index)
  // synchronously, and those of them that also read it (the possible
  // updaters of discountFirstReadsOfSlotUpdates).
  struct SlotWriters {
    std::set<int> writers, updaters;
  };
  // Per view slot with at least two such writers and an updater.
  std::map<std::tuple<int, int, int64_t>, SlotWriters> updatedSlots() const {
    using Slot = std::tuple<int, int, int64_t>;
    std::map<Slot, std::set<int>> writers;
    for (size_t q = 0; q < sys_.procs.size(); ++q)
      for (const Instr& in : sys_.procs[q].program)
        for (const Access& x : in.accesses)
          if (x.write && !x.async && x.view >= 0 && x.index >= 0)
            writers[{x.space, x.view, x.index}].insert(static_cast<int>(q));
    for (auto it = writers.begin(); it != writers.end();) it = it->second.size() < 2 ? writers.erase(it) : std::next(it);
    std::map<Slot, SlotWriters> updated;
    if (writers.empty()) return updated;
    for (size_t q = 0; q < sys_.procs.size(); ++q)
      for (const Instr& in : sys_.procs[q].program)
        for (const Access& x : in.accesses) {
          if (x.write || x.view < 0 || x.index < 0) continue;
          const auto w = writers.find({x.space, x.view, x.index});
          if (w == writers.end() || !w->second.count(static_cast<int>(q))) continue;
          SlotWriters& sw = updated[w->first];
          if (sw.writers.empty()) sw.writers = w->second;
          sw.updaters.insert(static_cast<int>(q));
        }
    return updated;
  }
  // [lo, hi) cut at the ends of the other processes' writes of read a's
  // view inside it.
  std::vector<std::pair<int64_t, int64_t>> piecesBetweenOtherWrites(int p, const Access& a, int64_t lo, int64_t hi) {
    indexViewWrites();
    std::set<int64_t> cuts = {lo, hi};
    view_write_ranges_.overlapping(a.space, lo, hi, [&](const RangeIndex<size_t>::Entry& e) {
      const ViewWrite& w = view_writes_[e.value];
      if (w.proc == p) return;
      if (w.bytes.lo > lo && w.bytes.lo < hi) cuts.insert(w.bytes.lo);
      if (w.bytes.hi > lo && w.bytes.hi < hi) cuts.insert(w.bytes.hi);
    });
    std::vector<std::pair<int64_t, int64_t>> out;
    for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) out.emplace_back(*it, *std::next(it));
    return out;
  }
  // Whether process p's first read (program index `first`) of bytes
  // [lo, hi) of read `a`'s slot found only other instances' seeds there
  // and every later write there by the others is an update of the slot
  // computed from it as read no earlier than that first read.
  bool firstReadIsNoLapOfTheUpdates(int p, int first, const Access& a, int64_t lo, int64_t hi) {
    indexViewWrites();
    Access range = a;
    range.lo = lo;
    range.hi = hi;
    range.runs = 1;
    range.stride = 0;
    std::vector<const ViewWrite*> others;
    bool plain = true;  // synchronous writes through the read's view only
    forEachViewWriteOver(range, [&](const ViewWrite& w) {
      if (w.proc == p || !bytesMeet(range, w.bytes)) return;
      plain = plain && !w.bytes.async && w.bytes.view == a.view && w.bytes.index == a.index;
      others.push_back(&w);
    });
    if (!plain || others.empty()) return false;
    const BarrierOrder* order = barrierOrder();
    if (!order) return false;
    std::set<int> seeders, updaters;
    std::vector<const ViewWrite*> updates;
    for (const ViewWrite* w : others) {
      if (order->before(w->proc, w->pc, p, first)) {
        seeders.insert(w->proc);
      } else {
        updaters.insert(w->proc);
        updates.push_back(w);
      }
    }
    if (seeders.empty() || updates.empty()) return false;
    for (int q : updaters)
      if (seeders.count(q)) return false;
    return std::all_of(updates.begin(), updates.end(), [&](const ViewWrite* w) {
      return answersTheRoundsReads(*order, *w, updates, range, p, first);
    });
  }
  // Whether update w is computed from the slot as the round it answers
  // read it (session 53, helper stale53): from a read of the slot that
  // the barriers do not order before the earliest of the reader's reads of
  // the range that w answers - its reads ordered before w with no other
  // update between them and w (answeredReadsStart). Comparing with the
  // reader's first read alone (session 52) took a writer one barrier late
  // for an update: a row computed from the previous round's read (a
  // software-pipelined update written after the round's reads) reached a
  // read that is not ordered before the first read, yet its data was there
  // before the round's reads, which meant it (as the kqmax_shared entry
  // loaded before the reads: docs/rules/data.stale-read.md "A writer one
  // barrier late, computed from the slot").
  bool answersTheRoundsReads(const BarrierOrder& order, const ViewWrite& w, const std::vector<const ViewWrite*>& updates,
                             const Access& range, int p, int first) const {
    const int start = answeredReadsStart(order, w, updates, range, p, first);
    return start >= 0 && computedFromTheSlotNotBefore(order, w, range, p, start);
  }
  // The earliest of process p's reads of `range` (from instruction `first`
  // on) that update w answers: of its reads that the barriers order before
  // w, the last (`latest`) and those before it that no other update lies
  // between (ordered after the read and before `latest`). -1 where no read
  // of p is ordered before w (then w is unordered with the first read: a
  // race, and no update that answers it).
  int answeredReadsStart(const BarrierOrder& order, const ViewWrite& w, const std::vector<const ViewWrite*>& updates,
                         const Access& range, int p, int first) const {
    std::vector<int> reads;  // p's reads of the range ordered before w, in program order
    const auto& prog = sys_.procs[p].program;
    for (int pc = first; pc < static_cast<int>(prog.size()) && order.before(p, pc, w.proc, w.pc); ++pc)
      if (std::any_of(prog[pc].accesses.begin(), prog[pc].accesses.end(),
                      [&](const Access& x) { return !x.write && x.space == range.space && bytesMeet(range, x); }))
        reads.push_back(pc);
    if (reads.empty()) return -1;
    const int latest = reads.back();
    auto separated = [&](int r) {
      return std::any_of(updates.begin(), updates.end(), [&](const ViewWrite* u) {
        return u != &w && order.before(p, r, u->proc, u->pc) && order.before(u->proc, u->pc, p, latest);
      });
    };
    // separated reads are a prefix: a read before a separated one is ordered before the same update
    const auto start = std::find_if_not(reads.begin(), reads.end(), separated);
    return start != reads.end() ? *start : latest;
  }
  // Whether write w's data is computed (through its process's registers)
  // from a read of `a`'s slot that the barriers do not order before
  // instruction `first` of process p. Each register range is traced to
  // its latest writers before the instruction that reads it.
  bool computedFromTheSlotNotBefore(const BarrierOrder& order, const ViewWrite& w, const Access& a, int p,
                                    int first) const {
    const int q = w.proc;
    const auto& prog = sys_.procs[q].program;
    std::vector<std::tuple<int, int, int64_t, int64_t>> wanted;  // (reading instruction, regs space, lo, hi)
    std::set<int> seen;
    // the reads of instruction pc: true if one reads the slot unordered
    // before `first`; its register operands are traced further
    auto readsOf = [&](int pc) {
      if (!seen.insert(pc).second) return false;
      for (const Access& x : prog[pc].accesses) {
        if (x.write) continue;
        if (x.space == a.space && x.view == a.view && x.index == a.index && !order.before(q, pc, p, first)) return true;
        if (sys_.spaces[x.space].kind == MemSpace::Kind::Regs) wanted.emplace_back(pc, x.space, x.lo, x.hi);
      }
      return false;
    };
    if (readsOf(w.pc)) return true;
    while (!wanted.empty()) {
      const auto [at, space, lo, hi] = wanted.back();
      wanted.pop_back();
      ElementSet left;  // the range's bytes whose latest writer is not found yet
      left.add(lo, hi);
      for (int pc = at - 1; pc >= 0 && left.firstIn(lo, hi); --pc)
        for (const Access& x : prog[pc].accesses) {
          if (!x.write || x.space != space || !left.firstIn(x.lo, x.hi)) continue;
          if (readsOf(pc)) return true;
          left.remove(x.lo, x.hi);
        }
    }
    return false;
  }

  // The laps the others write over the read's bytes (as in `top`) less the
  // writes for a later iteration of a loop they pair with (pairedAt): a
  // read at tile 0 does not mean a lap first written at tile 1 (a table
  // written per tile at its K loop's first iteration, re-read every K
  // iteration, session 36). A write at a later iteration of the loop at
  // depth d is left out only where another write is at the read's
  // iteration of every loop down to d, not after it, and the same at each
  // iteration of a deeper loop of the read's (Standing::invariant): the
  // read's own iteration has its write, and its returns in the deeper loop
  // re-read it. A table written at the tile's last K iteration, read at
  // the first, keeps the tile's write (it means that lap, and finds the
  // previous tile's); a reader that comes back to a slot twice in one
  // iteration, after a barrier, with no write in between, still means the
  // next lap (the lower bound of docs/known-limits.md: Kokkos' join whose
  // write-back is lost, StaleRead.ReadBackOfItsOwnUpdateMeansItsWrite).
  // nullopt where none is left out, or no other write is left.
  std::optional<WrittenLaps> lapsNotAfter(int p, const Instr& in, const Access& a) {
    if (in.loops.empty()) return std::nullopt;
    indexViewWrites();
    const std::vector<LoopPos> pos = positions(p, in.loops);
    std::vector<std::pair<const ViewWrite*, Standing>> over;
    int reread = -1;  // the deepest loop in which the read re-reads a write not after it
    forEachViewWriteOver(a, [&](const ViewWrite& w) {
      if (w.proc == p || !touches(a, w.bytes.lo, w.bytes.hi)) return;
      over.push_back({&w, standing(in.loops, pos, sys_.procs[p].role, w)});
      const Standing& st = over.back().second;
      if (!st.after) reread = std::max(reread, st.invariant);
    });
    bool left_out = false;
    // (process, view, lo, hi) -> the highest lap kept: lowestLapOver reads
    // each such range's highest lap, as resolveReads' own index holds it
    std::map<std::tuple<int, int, int64_t, int64_t>, int64_t> highest;
    for (const auto& [w, st] : over) {
      if (st.after && reread > static_cast<int>(st.same)) {
        left_out = true;
        continue;
      }
      auto [it, fresh] = highest.try_emplace({w->proc, w->bytes.view, w->bytes.lo, w->bytes.hi}, w->lap);
      if (!fresh) it->second = std::max(it->second, w->lap);
    }
    WrittenLaps out;
    for (const auto& [key, lap] : highest) {
      const auto& [proc, view, lo, hi] = key;
      out.add(a.space, lo, hi, {proc, view, lap});
    }
    if (!left_out || capOver(p, a, out) < 0) return std::nullopt;
    return out;
  }
  // How write w stands to the read (`at`, `pos`): at how many of its
  // loops (outermost first) it is at the read's iteration, and whether it
  // is at a later iteration of the next one.
  // `invariant`: the deepest of those loops or the next one (below the
  // read's) in which the write's data is the same at each iteration the
  // read is at - the write is not in it, or its data does not read its
  // variable - so the read's returns in it re-read the write; -1: none.
  struct Standing {
    size_t same = 0;
    bool after = false;
    int invariant = -1;
  };
  Standing standing(const Loops& at, const std::vector<LoopPos>& pos, int role, const ViewWrite& w) const {
    Standing st;
    std::optional<Paired> order;
    for (; st.same < at.size(); ++st.same) {
      order = pairedAt(at, pos, st.same, role, w);
      if (order && order->unsure) order.reset();  // not shown paired: nothing left out for it
      if (!order || order->order != 0) break;
    }
    st.after = st.same < at.size() && order && order->order > 0;
    for (size_t e = std::min(st.same, at.size() - 1) + 1; e-- > 0 && st.invariant < 0;) {
      const bool in_loop = e < st.same || (order && order->order < 0);
      if (!in_loop || !w.data.reads(w.loops[e].first)) st.invariant = static_cast<int>(e);
    }
    return st;
  }
  // A stage-like read's generation from its returns, capped by the laps
  // the others write (resolveReads above); split by byte range where its
  // ranges mean different laps.
  void capStageRead(int p, const Instr& in, Access& a, int64_t cap, const WrittenLaps& laps,
                    std::vector<Access>& pieces) {
    const int64_t meant = a.gen;
    // no lap written after the read's iteration of a loop it pairs with
    const std::optional<WrittenLaps> before = lapsNotAfter(p, in, a);
    const int64_t bound = before ? capOver(p, a, *before) : cap;
    // (per byte: a part of the read whose writers' laps are all below it is capped there)
    const int64_t lowest = std::min(bound, lowestLapOver(p, a, before ? *before : laps));
    if (meant > lowest && skippedLoopWrite(p, in, a)) return;  // means its returns
    a.gen = std::min(meant, bound);
    if (in.kind == InstrKind::Generic) splitByWrittenLaps(p, in, a, meant, before ? *before : laps, pieces);
  }

  // A write handed over in barrier order (docs/rules/data.stale-read.md,
  // session 44): where the barriers alone order every write over the
  // read's bytes with the read, the read finds one write in every run that
  // has no race - the latest ordered before it. If that write is new to
  // the reader (its previous read of the bytes is ordered before it), of
  // the read's round (the same iteration of every loop of the read, paired
  // as the skip rule pairs them) or of the round of a write of the
  // reader's own since that previous read (it answers the reader: FlashMLA's
  // row max sM), and its process writes the bytes no more in that round,
  // the write is what the synchronization hands the reader: the read means
  // at most its lap. Two warps that take turns on one word
  // (`ss[0]`, each writes it once a round and each reads it after the
  // other's write) read the other's lap r at round r, where counting the
  // returns made the second read of a round mean lap r + 1 (MLX's
  // contiguous_scan with a stage index; docs/known-limits.md). A read
  // that finds the write its previous read found (no new write between:
  // Kokkos' join whose write-back is lost, a table written on the first
  // tile only), or a write whose process writes again later in the round
  // (the reader came before its turn: kqmax_shared's entry written one
  // barrier late), keeps what it counts.
  void handOver(int p, int pc, const Instr& in, const Access& whole, Access& a, std::vector<Access>& pieces,
                size_t first_piece) {
    int64_t highest = a.gen;
    for (size_t i = first_piece; i < pieces.size(); ++i) highest = std::max(highest, pieces[i].gen);
    if (highest <= 0 || !olderLapWritten(p, whole, highest)) return;  // nothing it could find is stale
    const std::optional<int64_t> lap = handedLap(p, pc, in, whole, highest);
    if (!lap) return handOverByRange(p, pc, in, whole, a, pieces, first_piece);
    a.gen = std::min(a.gen, *lap);
    for (size_t i = first_piece; i < pieces.size(); ++i) pieces[i].gen = std::min(pieces[i].gen, *lap);
  }
  // The same per byte range, where no one write covers the read: a
  // column each wave rewrites its rows of, read whole (rocSOLVER's
  // potf2_simple: every range's latest write in barrier order is of the
  // read's round, by a process that wrote the column fewer times than the
  // reader came back to it). Cut at the others' writes' ends, each range
  // means at most the lap of the write handed to it; the read is split
  // where the ranges then mean different laps. Contiguous reads only.
  void handOverByRange(int p, int pc, const Instr& in, const Access& whole, Access& a, std::vector<Access>& pieces,
                       size_t first_piece) {
    if (whole.runs != 1) return;
    std::set<int64_t> cuts = {whole.lo, whole.hi};
    forEachViewWriteOver(whole, [&](const ViewWrite& w) {
      if (w.proc == p || w.bytes.runs != 1) return;
      if (w.bytes.lo > whole.lo && w.bytes.lo < whole.hi) cuts.insert(w.bytes.lo);
      if (w.bytes.hi > whole.lo && w.bytes.hi < whole.hi) cuts.insert(w.bytes.hi);
    });
    if (cuts.size() <= 2) return;
    std::vector<Access*> parts = {&a};
    for (size_t i = first_piece; i < pieces.size(); ++i) parts.push_back(&pieces[i]);
    for (Access* x : parts) {
      if (x->runs != 1) return;
      cuts.insert(x->lo);
      cuts.insert(x->hi);
    }
    std::vector<std::tuple<int64_t, int64_t, int64_t>> runs;  // (lo, hi, generation meant)
    bool lowered = false;
    for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
      const int64_t lo = *it, hi = *std::next(it);
      auto holder = std::find_if(parts.begin(), parts.end(), [&](const Access* x) { return x->lo <= lo && hi <= x->hi; });
      if (holder == parts.end()) return;
      int64_t g = (*holder)->gen;
      Access range = whole;
      range.lo = lo;
      range.hi = hi;
      if (g > 0)
        if (const std::optional<int64_t> lap = handedLap(p, pc, in, range, g)) {
          g = std::min(g, *lap);
          lowered = true;
        }
      if (!runs.empty() && std::get<2>(runs.back()) == g && std::get<1>(runs.back()) == lo) std::get<1>(runs.back()) = hi;
      else runs.emplace_back(lo, hi, g);
    }
    if (!lowered) return;
    pieces.resize(first_piece);
    splitInto(a, runs, pieces);
  }
  // Whether another process writes the read's view over its bytes at a
  // lap below `gen` (else no write it can find is stale to it).
  bool olderLapWritten(int p, const Access& a, int64_t gen) {
    indexViewWrites();
    bool older = false;
    forEachViewWriteOver(a, [&](const ViewWrite& w) {
      older = older || (w.proc != p && w.bytes.view == a.view && w.lap < gen && bytesMeet(a, w.bytes));
    });
    return older;
  }
  // The lap of the write handed to read `a` (instruction pc of process p),
  // nullopt where none is (handOver above) or where it is not below `gen`
  // (the read means no more than it finds: nothing to lower).
  std::optional<int64_t> handedLap(int p, int pc, const Instr& in, const Access& a, int64_t gen) {
    if (a.async || !a.view_written) return std::nullopt;
    const BarrierOrder* order = barrierOrder();
    if (!order) return std::nullopt;
    const ViewWrite* last = nullptr;  // the latest write of another process ordered before the read
    std::vector<const ViewWrite*> own, after;
    bool unordered = false;
    forEachViewWriteOver(a, [&](const ViewWrite& w) {
      if (unordered || !bytesMeet(a, w.bytes)) return;
      if (w.proc == p) own.push_back(&w);
      else if (w.bytes.async || w.bytes.view != a.view) unordered = true;
      else if (order->before(w.proc, w.pc, p, pc)) {
        if (!last || order->before(last->proc, last->pc, w.proc, w.pc)) last = &w;
        else unordered = unordered || !order->before(w.proc, w.pc, last->proc, last->pc);
      } else if (order->before(p, pc, w.proc, w.pc)) after.push_back(&w);
      else unordered = true;
    });
    if (unordered || !last || last->lap >= gen || last->bytes.runs != 1 || last->bytes.lo > a.lo ||
        last->bytes.hi < a.hi)
      return std::nullopt;
    // no write of its own over the bytes since that write (it would read its own data)
    for (const ViewWrite* w : own)
      if (w->pc < pc && !order->before(p, w->pc, last->proc, last->pc)) return std::nullopt;
    // new to the reader: its previous read of the bytes is ordered before the write
    const int prev = previousRead(p, pc, a);
    if (prev >= 0 && !order->before(p, prev, last->proc, last->pc)) return std::nullopt;
    // the round it answers: the read's, or that of a write of the reader's
    // own since its previous read (which the write follows: the two take
    // turns, FlashMLA's row max sM)
    const int role = sys_.procs[p].role;
    if (endsRound(in.loops, positions(p, in.loops), role, *last, after)) return last->lap;
    for (const ViewWrite* w : own)
      if (w->pc > prev && w->pc < pc && endsRound(w->loops, w->pos, role, *last, after)) return last->lap;
    return std::nullopt;
  }
  // The phase of process p's latest wait on `slot` before instruction pc.
  std::optional<int64_t> latestWaitPhase(int p, int pc, int slot) {
    if (waits_by_slot_.empty()) {
      waits_by_slot_.resize(sys_.procs.size());
      for (size_t q = 0; q < sys_.procs.size(); ++q)
        for (size_t i = 0; i < sys_.procs[q].program.size(); ++i) {
          const Instr& w = sys_.procs[q].program[i];
          if (w.kind == InstrKind::Wait) waits_by_slot_[q][w.slot].push_back({static_cast<int>(i), w.phase});
        }
    }
    auto it = waits_by_slot_[p].find(slot);
    if (it == waits_by_slot_[p].end()) return std::nullopt;
    auto after = std::lower_bound(it->second.begin(), it->second.end(), std::make_pair(pc, std::numeric_limits<int64_t>::min()));
    if (after == it->second.begin()) return std::nullopt;
    return std::prev(after)->second;
  }
  // per process: slot -> (program index, phase) of its waits, in program order
  std::vector<std::map<int, std::vector<std::pair<int, int64_t>>>> waits_by_slot_;

  // Whether write `last` is of the round of an access at `at` (the same
  // iteration of each of its loops, paired as the skip rule pairs them)
  // and its process writes the bytes no more in that round among the
  // writes `after` the read.
  bool endsRound(const Loops& at, const std::vector<LoopPos>& pos, int role, const ViewWrite& last,
                 const std::vector<const ViewWrite*>& after) const {
    if (!at.empty() && standing(at, pos, role, last).same < at.size()) return false;
    for (const ViewWrite* w : after)
      if (w->proc == last.proc && (at.empty() || !standing(at, pos, role, *w).after)) return false;
    return true;
  }
  // The program index of process p's latest read before pc of a byte of
  // `a`, -1: none.
  int previousRead(int p, int pc, const Access& a) const {
    const auto& prog = sys_.procs[p].program;
    for (int q = pc - 1; q >= 0; --q)
      for (const Access& x : prog[q].accesses)
        if (!x.write && x.space == a.space && bytesMeet(a, x)) return q;
    return -1;
  }
  // The order the barriers fix (encoder/barrier_order.h), computed once;
  // null where it is not.
  const BarrierOrder* barrierOrder() {
    if (!barrier_order_computed_) {
      barrier_order_computed_ = true;
      barrier_order_ = BarrierOrder::of(sys_);
    }
    return barrier_order_ ? &*barrier_order_ : nullptr;
  }
  bool barrier_order_computed_ = false;
  std::optional<BarrierOrder> barrier_order_;

  // The returns a read counted over [lo, hi): the highest over the ranges
  // it covers there (a range its process seeded counts one fewer, never
  // below 0), else the whole read's.
  int64_t returnsOver(int p, const Instr& in, const Access& a, int64_t lo, int64_t hi) const {
    const size_t pc = static_cast<size_t>(&in - sys_.procs[p].program.data());
    const auto ranges = returns_by_range_.find({p, pc, static_cast<size_t>(&a - in.accesses.data())});
    if (ranges == returns_by_range_.end()) return a.gen_returns;
    const ReadRanges& e = ranges->second;
    if (e.view != a.view || e.index != a.index || e.lo != a.lo || e.hi != a.hi) return a.gen_returns;
    bool any = false;
    int64_t r = 0;
    for (const RangeReturns& x : e.ranges)
      if (rangesOverlap(x.lo, x.hi, lo, hi)) {
        any = true;
        r = std::max(r, x.returns);
      }
    return any ? std::min(r, a.gen_returns) : a.gen_returns;
  }
  // What a read means, per byte range (docs/rules/data.stale-read.md "A
  // buffer read whole, rewritten in part", session 23). A generic read
  // whose bytes the other instances write up to different laps -
  // kqmax_shared[j][0..31] set to -inf once by warp 0, then entry w
  // rewritten by warp w every KV tile, and all 32 read back by every warp
  // every tile (llama.cpp's vector FlashAttention) - means, over each
  // range:
  //  * the read-back's generation only over the bytes its own process
  //    wrote since its last read of the index; over the others, the count
  //    of its returns there (warp 0's own entry is one write ahead of the
  //    other warps' entries: its -inf fill of the whole row; a row the
  //    reader seeded counts one return fewer, returnsOver);
  //  * at most the highest lap the other instances write there (the
  //    entries nobody rewrites hold lap 0 for good).
  // `a` keeps its first range; the others are appended (`pieces`) as reads
  // of the same op. Split only where the ranges mean different laps: a
  // read whose ranges all mean one lap stays one access (meaning that lap).
  void splitByWrittenLaps(int p, const Instr& in, Access& a, int64_t meant, const WrittenLaps& laps,
                          std::vector<Access>& pieces) const {
    // (lo, hi, generation meant) per elementary range; ranges no other
    // instance writes keep the whole read's (they hold its own data or
    // none, which no generation changes). A strided read is cut run by run.
    std::vector<std::tuple<int64_t, int64_t, int64_t>> runs;
    bool cut = false;
    forEachRun(a, [&](int64_t rlo, int64_t rhi) {
    std::set<int64_t> cuts = {rlo, rhi};
    for (const auto& [lo, hi] : a.own_since) {
      if (lo > rlo && lo < rhi) cuts.insert(lo);
      if (hi > rlo && hi < rhi) cuts.insert(hi);
    }
    laps.overlapping(a.space, rlo, rhi, [&](const WrittenLaps::Entry& e) {
      if (e.value.proc == p || (a.view_written && e.value.view != a.view)) return;
      if (e.lo > rlo && e.lo < rhi) cuts.insert(e.lo);
      if (e.hi > rlo && e.hi < rhi) cuts.insert(e.hi);
    });
    cut = cut || cuts.size() > 2;
    for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
      const int64_t lo = *it, hi = *std::next(it);
      int64_t cap = -1;
      laps.overlapping(a.space, lo, hi, [&](const WrittenLaps::Entry& e) {
        if (e.value.proc == p || (a.view_written && e.value.view != a.view)) return;
        cap = std::max(cap, e.value.lap);
      });
      const bool own = a.gen_returns < 0 || std::any_of(a.own_since.begin(), a.own_since.end(), [&](const auto& r) {
                         return rangesOverlap(r.first, r.second, lo, hi);
                       });
      // a read-back means the lap of its own latest write over this range
      // (its writes there, counted), not of its latest write over the
      // index: a reader that resets the whole buffer and rewrites its own
      // entry writes the index twice per round but each other entry once
      const int64_t own_lap = overlapCount(a.own_writes, lo, hi) - 1;
      const int64_t back = own_lap >= 0 ? std::min(meant, own_lap) : meant;
      const int64_t g = cap >= 0 ? std::min(own ? back : returnsOver(p, in, a, lo, hi), cap) : a.gen;
      if (!runs.empty() && std::get<2>(runs.back()) == g && std::get<1>(runs.back()) == lo)
        std::get<1>(runs.back()) = hi;
      else
        runs.emplace_back(lo, hi, g);
    }
    });
    const bool one_lap =
        std::all_of(runs.begin(), runs.end(), [&](const auto& r) { return std::get<2>(r) == std::get<2>(runs[0]); });
    // A strided read is cut already, run by run: its runs may mean
    // different laps though no write cuts any run (a column slice over
    // rows that other instances update and rows written once: session 52,
    // docs/rules/data.stale-read.md "A column slice over rows written
    // different numbers of times").
    if (!cut && (a.runs <= 1 || one_lap)) return;
    // ranges that all mean one lap keep the read one access, meaning that
    // lap: a read-back's own generation over bytes its process did not
    // rewrite (every wave rewrites its rows of a column another wrote
    // whole, then reads the column back) is no more than a piece's would be
    if (one_lap) {
      a.gen = std::min(a.gen, std::get<2>(runs[0]));
      return;
    }
    splitInto(a, runs, pieces);
  }
  // Read `a` cut into `runs` ((lo, hi, generation meant), ascending): `a`
  // keeps the first, the others are appended to `pieces` as reads of the
  // same op. A strided read's pieces are contiguous.
  static void splitInto(Access& a, const std::vector<std::tuple<int64_t, int64_t, int64_t>>& runs,
                        std::vector<Access>& pieces) {
    const std::string name = a.what.substr(0, a.what.find(" bytes ["));
    auto piece = [&](Access& x, const std::tuple<int64_t, int64_t, int64_t>& r) {
      std::tie(x.lo, x.hi, x.gen) = r;
      x.runs = 1;
      x.stride = 0;
      x.what = fmt::format("{} bytes [{}, {})", name, x.lo, x.hi);
    };
    for (size_t k = 1; k < runs.size(); ++k) {
      Access x = a;
      piece(x, runs[k]);
      pieces.push_back(std::move(x));
    }
    piece(a, runs[0]);
  }
};

}  // namespace

std::optional<Binding> uniformBinding(const ir::Schedule& s, const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    Binding b;
    ir::EvalEnv env;
    for (size_t i = 0; i < s.params.size(); ++i)
      if (s.params[i].type == ir::ParamType::I32) b.params[static_cast<int>(i)] = env.params[static_cast<int>(i)] = v;
    const bool allowed = std::all_of(s.assumes.begin(), s.assumes.end(), [&](const ir::Assume& a) {
      const std::optional<int64_t> r = ir::evaluate(*a.cond, env);
      return !r || *r;
    });
    if (allowed) return b;
  }
  return std::nullopt;
}

std::map<int, std::set<int>> fillBarriers(const ir::Schedule& s) {
  std::map<int, std::set<int>> fill;
  for (const auto& body : s.bodies)
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      if (st.op.kind == ir::OpKind::TmaLoad) fill[st.op.dst.index].insert(st.op.barrier);
    });
  return fill;
}

// ---------------------------------------------------------------- public

bool touches(const Access& a, int64_t lo, int64_t hi) {
  if (!(a.lo < hi && lo < a.hi)) return false;
  if (a.runs <= 1) return true;
  // the first run that ends after lo starts before hi, or none does
  const int64_t k = std::max<int64_t>(0, ir::floorDiv(lo - a.lo - a.runBytes(), a.stride).value() + 1);
  return k < a.runs && a.lo + k * a.stride < hi;
}

std::set<int> readAndWrittenTensors(const ir::Schedule& s) {
  std::set<int> read, written, out;
  auto note = [](std::set<int>& into, const BufferRef& r) {
    if (r.kind == BufferRef::Kind::Param) into.insert(r.index);
  };
  for (const auto& body : s.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const ir::Op& o = st.op;
      if (o.kind == OpKind::Copy || o.kind == OpKind::TmaStore) note(written, o.dst);
      if (o.kind == OpKind::Copy || o.kind == OpKind::TmaLoad || o.kind == OpKind::CpAsync) note(read, o.src);
    });
  std::set_intersection(read.begin(), read.end(), written.begin(), written.end(), std::inserter(out, out.end()));
  return out;
}

std::string globalElementName(const MemSpace& space, int64_t address) {
  std::vector<int64_t> at(space.extents.size());
  for (size_t d = at.size(); d-- > 0;) {
    at[d] = address % space.extents[d];
    address /= space.extents[d];
  }
  return fmt::format("{} element ({})", space.name, fmt::join(at, ", "));
}

std::vector<int> rolelessWarpsAtEnd(const System& sys) {
  std::vector<int> idle;
  if (!sys.ends_with_block_barrier || !sys.schedule) return idle;
  const ir::Schedule& s = *sys.schedule;
  std::vector<bool> used(static_cast<size_t>(std::max(0, s.warpCount())), false);  // the launched block's warps
  for (const ir::Role& r : s.roles)
    for (int w : r.warps)
      if (w >= 0 && w < static_cast<int>(used.size())) used[w] = true;
  for (size_t w = 0; w < used.size(); ++w)
    if (!used[w]) idle.push_back(static_cast<int>(w));
  return idle;
}

bool accessesConflict(const System& sys, const Access& a, const Access& b) {
  if (!(a.write || b.write)) return false;
  return !(a.write && b.write && sys.spaces[a.space].kind == MemSpace::Kind::Global);
}

bool bytesMeet(const Access& a, const Access& b) {
  if (!(a.lo < b.hi && b.lo < a.hi)) return false;
  if (a.runs <= 1) return touches(b, a.lo, a.hi);
  if (b.runs <= 1) return touches(a, b.lo, b.hi);
  if (a.stride == b.stride) {
    // run k of a meets run l of b iff d + m * s lies in (-rb, ra), with
    // d = b.lo - a.lo, m = l - k in [-(a.runs - 1), b.runs - 1]
    const int64_t s = a.stride, d = b.lo - a.lo, ra = a.runBytes(), rb = b.runBytes();
    const int64_t m0 = std::max(ir::floorDiv(-rb - d, s).value() + 1, 1 - a.runs);
    const int64_t m1 = std::min(ir::floorDiv(ra - d - 1, s).value(), b.runs - 1);
    return m0 <= m1;
  }
  const Access& few = a.runs <= b.runs ? a : b;
  const Access& other = a.runs <= b.runs ? b : a;
  bool met = false;
  forEachRun(few, [&](int64_t lo, int64_t hi) { met = met || touches(other, lo, hi); });
  return met;
}

int64_t dataLap(const ir::Schedule& s, const Access& a) {
  return a.stage_like ? a.gen : ir::floorDiv(a.index, s.views[a.view].stages).value();
}

std::string bindingToString(const ir::Schedule& s, const Binding& b) {
  std::string out;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) {
    auto it = b.params.find(p);
    if (it == b.params.end()) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", s.params[p].name, it->second);
  }
  for (int d = 0; d < 3; ++d) {
    if (b.block_idx[d] != 0) out += fmt::format("{}block_idx({})={}", out.empty() ? "" : ", ", d, b.block_idx[d]);
    if (b.grid_dim[d] != 1) out += fmt::format("{}grid_dim({})={}", out.empty() ? "" : ", ", d, b.grid_dim[d]);
  }
  return out;
}

bool System::remote(int p, int pc) const {
  const Instr& in = procs[p].program[pc];
  const int here = procs[p].cta;
  if (in.slot >= 0 && (in.kind == InstrKind::Arrive || in.kind == InstrKind::TmaLoad) && slots[in.slot].cta != here)
    return true;
  return false;
}

size_t System::instrCount() const {
  size_t n = 0;
  for (const Process& p : procs) n += p.program.size();
  return n;
}

std::optional<System> buildSystem(const ir::Schedule& s, const Binding& b, ir::Target target, std::string* error,
                                  const BuildLimits& lim) {
  try {
    return Builder(s, b, target, lim).build();
  } catch (const BuildError& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

std::optional<System> buildSystemHooked(const ir::Schedule& s, const Binding& b, ir::Target target,
                                        const EvalHook& hook, std::string* error, const BuildSemantics& sem,
                                        ReplacedEmptyLoops* empty_loops) {
  try {
    Builder builder(s, b, target, {});
    builder.setHook(hook ? &hook : nullptr);
    builder.setSemantics(sem);
    builder.setEmptyLoops(empty_loops);
    return builder.build();
  } catch (const BuildError& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

std::string_view instrKindName(InstrKind k) {
  switch (k) {
    case InstrKind::Wait: return "wait";
    case InstrKind::Arrive: return "arrive";
    case InstrKind::ExpectTx: return "expect_tx";
    case InstrKind::TmaLoad: return "tma_load";
    case InstrKind::TmaStore: return "tma_store";
    case InstrKind::StoreCommit: return "tma_store_commit";
    case InstrKind::StoreWait: return "tma_store_wait";
    case InstrKind::CpAsync: return "cp_async";
    case InstrKind::CpAsyncCommit: return "cp_async_commit";
    case InstrKind::CpAsyncWait: return "cp_async_wait";
    case InstrKind::Mma: return "mma";
    case InstrKind::MmaCommit: return "mma_commit";
    case InstrKind::MmaWait: return "mma_wait";
    case InstrKind::SyncArrive: return "sync.arrive";
    case InstrKind::SyncWait: return "sync.wait";
    case InstrKind::BarArrive: return "bar_arrive";
    case InstrKind::Fence: return "fence_proxy";
    case InstrKind::Generic: return "generic";
    case InstrKind::TmemLoad: return "tmem_load";
    case InstrKind::TmemStore: return "tmem_store";
    case InstrKind::TmemLoadWait: return "tmem_load_wait";
    case InstrKind::TmemStoreWait: return "tmem_store_wait";
  }
  return "?";
}

std::string opText(const ir::Schedule& s, const ir::Stmt& st) {
  const ir::SourceRange& r = st.op.range.valid() ? st.op.range : st.range;
  if (r.valid() && r.file) {
    std::string_view line = r.file->lineText(r.line);
    size_t from = r.col > 0 ? static_cast<size_t>(r.col - 1) : 0;
    if (from < line.size()) {
      size_t to = (r.end_line == r.line && r.end_col > r.col) ? static_cast<size_t>(r.end_col - 1) : line.size();
      return std::string(line.substr(from, to - from));
    }
  }
  return fmt::format("lm.{}(...)", ir::opName(st.op.kind));
}

std::string instrToString(const System& sys, int proc, int pc) {
  const Process& p = sys.procs[proc];
  const Instr& in = p.program[pc];
  std::string out = fmt::format("{} pc={} {}", p.name, pc, instrKindName(in.kind));
  if (in.derived) out += " (derived)";
  if (in.slot >= 0) out += fmt::format(" {} phase {}", sys.slots[in.slot].name, in.phase);
  if (in.kind == InstrKind::Arrive && in.count != 1) out += fmt::format(" count {}", in.count);
  if (in.bytes) out += fmt::format(" bytes {}", in.bytes);
  if (in.named >= 0) out += " " + sys.named[in.named].name;
  if (in.kind == InstrKind::StoreWait || in.kind == InstrKind::CpAsyncWait || in.kind == InstrKind::MmaWait)
    out += fmt::format(" pending {}", in.pending);
  if (in.grid_dep_early >= 0) out += fmt::format(" (before grid_dep_wait: {})", sys.schedule->params[in.grid_dep_early].name);
  if (in.regs_hazard.regs_space >= 0) out += fmt::format(" (reads unwritten {})", in.regs_hazard.what);
  for (const Access& a : in.accesses)
    out += fmt::format(" {}{}{} {}", a.write ? "W" : "R", a.async ? "~" : "", a.proxy == Proxy::Async ? "a" : "",
                       a.what) +
           (a.view >= 0 ? fmt::format(" #{}g{}", a.index, a.gen) : "");
  if (!in.loops.empty()) {
    out += " (";
    for (size_t i = 0; i < in.loops.size(); ++i)
      out += fmt::format("{}{}={}", i ? ", " : "", sys.schedule->loop_vars[in.loops[i].first].name, in.loops[i].second);
    out += ")";
  }
  return out;
}

std::optional<std::string> notEncodedInZ3(const System& sys, bool tmem_async) {
  for (const Process& p : sys.procs)
    for (const Instr& in : p.program) {
      if (!tmem_async && (in.kind == InstrKind::TmemLoad || in.kind == InstrKind::TmemStore ||
                          in.kind == InstrKind::TmemLoadWait || in.kind == InstrKind::TmemStoreWait))
        return std::string("asynchronous TMEM loads / stores (lm.tmem_load, lm.tmem_store) are not encoded yet");
      if (in.grid_dep_early >= 0) return std::string("grid dependencies (lm.grid_dependency) are not encoded yet");
    }
  return std::nullopt;
}

std::string systemToString(const System& sys) {
  std::string out = fmt::format("target {} {}\n", ir::targetName(sys.target), bindingToString(*sys.schedule, sys.binding));
  for (const BarrierSlot& b : sys.slots) out += fmt::format("slot {} init_count {}\n", b.name, b.init_count);
  for (const NamedBarrier& n : sys.named) out += fmt::format("named {} warps {}\n", n.name, n.expected_warps);
  for (int p = 0; p < static_cast<int>(sys.procs.size()); ++p)
    for (int pc = 0; pc < static_cast<int>(sys.procs[p].program.size()); ++pc) out += instrToString(sys, p, pc) + "\n";
  return out;
}

}  // namespace cake::encoder
