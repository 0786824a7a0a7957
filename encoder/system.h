// The flat transition system of a schedule: the reference semantics of cake
// (docs/semantics.md says it in words; encoder/simulator.h explores it).
//
// buildSystem() takes an ir::Schedule plus concrete values for its scalar
// parameters (and block_idx / grid_dim) and produces
//
//   * one Process per role instance, whose program is a straight-line list
//     of concrete Instrs: loops are fully unrolled, `if`s decided, every
//     slot, phase, byte range and count evaluated. A process's state is
//     therefore just its pc (plus its open async groups, see simulator.h);
//   * the mbarrier slots (one per barrier per slot) with their init_count;
//   * the named barriers with the number of warps that complete a
//     generation;
//   * the memory spaces (one per smem pool, one for TMEM, one per register
//     fragment per instance, one per global tensor the CTA both reads and
//     writes) in which every access is a byte range (a global tensor's: an
//     element range). Views that alias share their pool's space, so their
//     ranges overlap.
//
// Everything that lowering derives and that changes the semantics is made
// explicit here, so an engine never has to re-derive it:
//   * a wait on a negative iteration produces no Instr (it passes at once);
//   * the phase of stage= ops without phase= is counted per instance;
//   * derived expect_tx: for a (role, barrier) pair with TMA loads and no
//     explicit lm.expect_tx, one ExpectTx Instr (one arrival + the summed box
//     bytes) is inserted before the first TMA load of each batch of the plan
//     that lowering emits too (ir/expect_tx.h: consecutive loads of one
//     statement list with the same barrier and selector);
//   * lm.sync(nb) becomes two Instrs: SyncArrive then SyncWait.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/schedule.h"

namespace cake::encoder {

// Concrete values of everything an Expr may refer to besides loop variables
// and lm.instance().
struct Binding {
  std::map<int, int64_t> params;      // ir::Schedule::params index -> value
  int64_t block_idx[3] = {0, 0, 0};
  int64_t grid_dim[3] = {1, 1, 1};
  // Trip-count proof (encoder/trip_proof.h): evaluate with this expression
  // replaced by `replace_value` (ir::EvalEnv::replace).
  const ir::Expr* replace = nullptr;
  int64_t replace_value = 0;
};
// "K=128, M=64" (parameters only, in declaration order; grid parts when not
// the defaults).
std::string bindingToString(const ir::Schedule& s, const Binding& b);

// ------------------------------------------------------------------ memory

struct MemSpace {
  enum class Kind { Smem, Tmem, Regs, Global };
  Kind kind = Kind::Smem;
  int index = -1;      // pool / -1 for TMEM / regs index / tensor parameter
  int process = -1;    // Regs: the owning process
  int cta = 0;         // Smem / Tmem / Global: the cluster rank whose memory
                       // (Global: whose accesses) it is
  std::string name;    // "pool", "tmem", "acc@consumers[1]", "P"
  // Global: the extent of each dimension of the tensor's model layout
  // (row-major, outermost first; docs/semantics.md "Global memory"): an
  // element's address is its row-major index in these extents.
  std::vector<int64_t> extents;
};

enum class Proxy { Generic, Async };

// TMEM addresses in the model: lane quarter q (lanes 32q .. 32q + 31, the
// ones warp w reaches when w % 4 == q) times this, plus the column. A TMEM
// operand becomes one access per quarter it touches, so lane slices and
// column slices are both exact.
inline constexpr int64_t kTmemQuarterStride = int64_t{1} << 20;

// One read or write of a byte range by an instruction.
// A read's generation in a proof's build without the caps (system_hook.h)
// where the read finds only its own process's writes in a clean run: above
// every lap written, so another process's data there is stale.
inline constexpr int64_t kOwnDataOnly = int64_t{1} << 40;

struct Access {
  int space = -1;
  int64_t lo = 0, hi = 0;       // [lo, hi) bytes (TMEM: columns); a strided
                                // access's bounding range
  // A strided access (a view sub-tile sliced in an inner dimension, whose
  // contiguous runs are evenly spaced: docs/semantics.md "Byte ranges"):
  // `runs` runs of runBytes() bytes, the k-th at lo + k * stride, the last
  // ending at hi. runs == 1: the one contiguous range [lo, hi).
  int64_t runs = 1, stride = 0;
  int64_t runBytes() const { return runs > 1 ? hi - lo - (runs - 1) * stride : hi - lo; }
  bool write = false;
  Proxy proxy = Proxy::Generic;
  // Asynchronous accesses last beyond the issuing step: a TMA load until it
  // lands; a TMA store / cp.async / sm_90a MMA until a *_wait retires its
  // group; an sm_100a MMA until its group completes (commit barrier arrival).
  bool async = false;
  // Data identity, for data.stale-read (views only, view = -1 otherwise).
  // A write stores its (view, index, gen) in the bytes it writes; a read of
  // (view, index) expects gen. See docs/semantics.md "Stale data".
  int view = -1;
  int64_t index = 0;            // the view index as written (iteration or stage)
  int64_t gen = 0;              // write: generation; read: generation meant (a
                                // stage-like read's capped by the laps written)
  bool stage_like = false;      // the op's index never reaches `stages`
  // A read only: some instance (the reader too) writes through this view
  // over these bytes, so the read means that view's data; otherwise it is
  // a second view of the bytes and means whatever view wrote them (by laps).
  bool view_written = false;
  std::string what;             // "smem_a[1][0:64, :] bytes [16384, 24576)"
  // Build-only (a read; cleared when the system is built, so no engine or
  // proof sees them): the generation the read means counting its returns
  // alone, and the byte ranges its own process wrote over the index since
  // its last read of it (the read-back, docs/rules/data.stale-read.md), and
  // the byte ranges it wrote over the index before the read, each with how
  // many times (the lap of its latest write over a part of the read). A
  // read whose other bytes mean another lap is split by range.
  int64_t gen_returns = -1;
  std::vector<std::pair<int64_t, int64_t>> own_since;
  struct Written {
    int64_t lo, hi, times;
  };
  std::vector<Written> own_writes;
};

struct System;
// Does access `a` touch a byte of [lo, hi)? Exact for a strided access.
bool touches(const Access& a, int64_t lo, int64_t hi);
// Do two accesses (of one space) share a byte? Exact for strided ones: the
// bounding ranges first, then the runs (equal strides: arithmetic; else run
// by run). Every engine decides overlap with it (sim::Model::overlap).
bool bytesMeet(const Access& a, const Access& b);
// The tensor parameters some op of the schedule reads and some op writes:
// the global tensors whose accesses the model has (docs/semantics.md
// "Global memory"; only a load and a store of one element race there).
std::set<int> readAndWrittenTensors(const ir::Schedule& s);
// Can accesses a and b of one space conflict (race) when their bytes meet?
// One of them writes; in global memory exactly one (docs/semantics.md
// "Global memory": two stores of one element are not reported, since
// kernels store one value from several instances on purpose). Every engine
// asks this before bytesMeet.
bool accessesConflict(const System& sys, const Access& a, const Access& b);

// The warps of each CTA that no role runs and that stay until the kernel's
// end: where it ends with a block barrier (System::ends_with_block_barrier)
// they wait there, never arriving, and the cluster barrier counts them
// (docs/semantics.md "Clusters"); none elsewhere (they exit at once).
// Derived from the schedule's warps and roles each time, never stored.
std::vector<int> rolelessWarpsAtEnd(const System& sys);

// "P element (3, 64)": the element at model address `address` of a global
// tensor's space (MemSpace::extents).
std::string globalElementName(const MemSpace& space, int64_t address);
// Calls f(lo, hi) for each contiguous run of `a`, in byte order.
template <class F>
void forEachRun(const Access& a, F&& f) {
  const int64_t run = a.runBytes();
  for (int64_t k = 0; k < a.runs; ++k) f(a.lo + k * a.stride, a.lo + k * a.stride + run);
}

// The lap of a view access's data (docs/semantics.md "Stale data"): a
// stage-like access's generation, an iteration-like access's index //
// stages. Byte ranges of one slot hold one lap at a time, whatever view
// names them.
int64_t dataLap(const ir::Schedule& s, const Access& a);

// ------------------------------------------------------------ instructions

enum class InstrKind {
  Wait,          // mbarrier wait: slot, phase (meant)
  Arrive,        // count arrivals on slot (phase = meant phase)
  ExpectTx,      // one arrival + bytes expected (explicit or derived)
  TmaLoad,       // async write of accesses[0]; lands `bytes` on slot
  TmaStore,      // async read of accesses[0]; joins the open store group
  StoreCommit,   // closes the open store group
  StoreWait,     // retires all but `pending` newest committed store groups
  CpAsync,       // async (generic proxy) write; joins the open cp.async group
  CpAsyncCommit,
  CpAsyncWait,   // retires all but `pending` newest committed cp.async groups
  Mma,           // reads a, b; writes acc. sm_80: synchronous; else joins the open MMA group
  MmaCommit,     // closes the open MMA group; sm_100a with slot >= 0: the group's
                 // completion is one arrival on slot (phase = meant phase)
  MmaWait,       // retires all but `pending` newest committed MMA groups
  SyncArrive,    // lm.sync part 1: arrive on named barrier, remember the generation
  SyncWait,      // lm.sync part 2: block until that generation completes
  BarArrive,     // lm.bar_arrive: arrive without waiting
  Fence,         // lm.fence_proxy
  Generic,       // copy / fill / unary / binary / reduce (synchronous, generic proxy)
  TmemLoad,      // tcgen05.ld: async read of TMEM lanes/columns, async write of regs
  TmemStore,     // tcgen05.st: async read of regs, async write of TMEM lanes/columns
  TmemLoadWait,  // tcgen05.wait::ld: every earlier TmemLoad of the process completes
  TmemStoreWait, // tcgen05.wait::st: every earlier TmemStore of the process completes
};
std::string_view instrKindName(InstrKind k);

struct Instr {
  InstrKind kind = InstrKind::Generic;
  const ir::Stmt* stmt = nullptr;   // the source op (never null; derived ExpectTx
                                    // points at the TMA load it was derived for)
  bool derived = false;             // inserted by the derived-expect_tx rule
  int slot = -1;                    // flat mbarrier slot (System::slots index), -1 if none
  int64_t phase = -1;               // meant phase of that slot
  int64_t count = 0;                // Arrive: arrivals
  int64_t bytes = 0;                // ExpectTx: expected; TmaLoad: delivered
  int64_t pending = 0;              // *Wait: pending=
  int named = -1;                   // named barrier (SyncArrive/SyncWait/BarArrive)
  std::vector<Access> accesses;
  // Programmatic dependent launch: the op accesses tensor parameter
  // `grid_dep_early` (lm.grid_dependency) before its process ran
  // lm.grid_dep_wait() (sync.grid-dependency); -1 otherwise.
  int grid_dep_early = -1;
  // A register fragment read that is wrong in every interleaving, decided
  // when the system is built (encoder/system.cpp "Register fragments"):
  //   data.uninitialized: the first element this instruction reads before
  //     its process wrote it;
  //   data.stale-accumulator: an MMA accumulating (init= false) into an
  //     element whose value its process already stored out of registers
  //     and has not overwritten since (the previous tile's result);
  //   data.discarded-product: a write (an MMA with init= true, a fill, a
  //     copy or compute destination) of an element that holds an MMA
  //     product its process has not read since (a clear inside the K loop).
  // regs_space -1 when none holds.
  struct RegsHazard {
    int regs_space = -1;            // System::spaces index of the fragment
    int64_t element = 0;            // row-major element index
    bool accumulates = false;       // the read is an MMA accumulating (init= false)
    bool stored = false;            // data.stale-accumulator rather than data.uninitialized
    bool discarded = false;         // data.discarded-product (an overwrite, not a read)
    std::string what;               // "fa0 element (0, 0)" (not compared)
    // data.stale-accumulator: the store's program index; data.discarded-product:
    // the program index of the MMA whose product is overwritten (not compared)
    int stored_at = -1;
    bool at_exit = false;           // discarded: left unread when the instance exits (no overwrite)
    const char* rule() const {
      return discarded ? "data.discarded-product" : stored ? "data.stale-accumulator" : "data.uninitialized";
    }
    bool operator==(const RegsHazard& o) const {
      return regs_space == o.regs_space && element == o.element && accumulates == o.accumulates &&
             stored == o.stored && discarded == o.discarded && at_exit == o.at_exit;
    }
  };
  RegsHazard regs_hazard;
  std::optional<int64_t> iteration; // iter= value, else the innermost loop variable
  std::vector<std::pair<int, int64_t>> loops;  // (loop var, value), outermost first
};

struct Process {
  int role = -1;
  int instance = 0;
  int cta = 0;                      // cluster rank of its CTA (System::ctas > 1)
  int warps = 1;                    // warps of this instance
  std::string name;                 // "consumers[1]", or "producer" for single-instance roles
  std::vector<Instr> program;
  // Programmatic dependent launch: the program index of the first
  // instruction after this process's lm.grid_dep_wait(), -1 without one.
  int grid_dep_wait_at = -1;
};

struct BarrierSlot {
  int barrier = -1;                 // ir::Schedule::barriers index
  int slot = 0;
  int cta = 0;                      // cluster rank of the CTA whose mbarrier it is
  int init_count = 1;
  std::string name;                 // "full[2]"
};

struct NamedBarrier {
  int index = -1;                   // ir::Schedule::named_barriers index; -1: the cluster barrier
  int expected_warps = 0;           // sum of warps of its roles
  std::string name;
};

struct System {
  const ir::Schedule* schedule = nullptr;
  ir::Target target = ir::Target::Unspecified;
  Binding binding;
  std::vector<Process> procs;
  std::vector<BarrierSlot> slots;
  std::vector<int> barrier_base;    // ir barrier index -> first flat slot (of CTA 0)
  std::vector<NamedBarrier> named;
  // Thread-block clusters (docs/semantics.md "Clusters"): when the schedule
  // reaches across the cluster (ir::Schedule::cluster_ops), every CTA of one
  // cluster is modelled: its processes, mbarrier slots (CTA c's slots follow
  // CTA c-1's), named barriers and shared memory. `ctas` is 1 otherwise.
  int ctas = 1;
  int slots_per_cta = 0;
  int named_per_cta = 0;
  int cluster_named = -1;           // named index of lm.cluster_sync()'s barrier, -1: none
  // The lowered kernel ends with a block barrier (ir::kernelEndsWithBlockBarrier):
  // no thread of a CTA exits before all of them finished their role bodies
  // (and its warps without a role wait there: rolelessWarpsAtEnd).
  bool ends_with_block_barrier = false;
  std::vector<MemSpace> spaces;
  // What building read: the parameters whose values it used (and
  // lm.block_idx(d) as -1 - d, lm.grid_dim(d) as -4 - d), and how often
  // the replaced expression (Binding::replace) was evaluated, in all and as
  // a loop bound.
  std::set<int> params_read;
  int64_t replace_hits = 0;
  int64_t replace_hits_in_bounds = 0;
  // Every evaluation outside loop bounds that read it (once per distinct
  // expression and environment): where the process was, and the values of
  // the loop variables and lm.instance() it was evaluated with.
  struct ReplacedUse {
    enum Region { Prefix, Body, Exit };  // before, inside, after the loop it bounds
    const ir::Expr* expr = nullptr;
    Region region = Prefix;
    int process = -1;
    std::map<int, int64_t> loop_vars;
    int64_t instance = 0;
    bool operator==(const ReplacedUse&) const = default;
  };
  std::vector<ReplacedUse> replace_uses;
  // Every expression evaluated inside a loop the replaced expression bounds.
  std::vector<const ir::Expr*> replace_loop_exprs;
  // Only with BuildSemantics::regs_digests: per process, per instruction,
  // a number naming (exactly: one per distinct state of the build) the
  // process's register bookkeeping (the elements written,
  // stored out, holding an unread product, the copy links...) just before
  // the instruction, leaving out only the program indices that messages
  // name. Two equal digests: the same register hazard verdicts for every
  // continuation of the same ops (the state is all they read).
  std::vector<std::vector<int64_t>> regs_digests;
  // Only with BuildSemantics::regs_digests: per process, per instruction,
  // whether the instance exiting just before it would leave an MMA product
  // unread (data.discarded-product, the builder's productsUnreadAtExit
  // rule, which a build with a hook does not judge), and one entry more for
  // the end of its program.
  std::vector<std::vector<char>> regs_lost_at_exit;

  int slotOf(int barrier, int64_t slot, int cta = 0) const {
    return cta * slots_per_cta + barrier_base[barrier] + static_cast<int>(slot);
  }
  // Whether instruction pc of process p reaches into another CTA's mbarrier
  // or shared memory (a remote arrive, a multicast TMA load to a peer).
  bool remote(int p, int pc) const;
  size_t instrCount() const;
};

struct BuildLimits {
  size_t max_instrs = 200000;       // over all processes; beyond: "too large"
};

// Builds the system, or returns nullopt with a reason in *error (an
// expression that does not evaluate, a slot out of range, a zero step,
// too many instructions, ...). The schedule must outlive the System.
std::optional<System> buildSystem(const ir::Schedule& s, const Binding& b, ir::Target target,
                                  std::string* error, const BuildLimits& lim = {});

// A binding with every i32 parameter at the first of `values` that the
// schedule's lm.assume facts allow (a fact that does not evaluate counts
// as allowing it), or nullopt: the large systems the ExpectTx test and
// bench/build_times build.
std::optional<Binding> uniformBinding(const ir::Schedule& s, const std::vector<int64_t>& values);

// The barriers each view's TMA loads name (view -> barriers): a wait on
// one of them moves the return marker of a read of the view (the builder's
// fill barriers; the trip proof asks the same of a left-out wait).
std::map<int, std::set<int>> fillBarriers(const ir::Schedule& s);

// The op as written in the source (from its range), e.g.
// "lm.wait(full, iter=k)"; a rendering from the IR when no text is known.
std::string opText(const ir::Schedule& s, const ir::Stmt& st);
// One line per instruction, for debugging and golden tests:
// "producer pc=3 wait full[1] phase 0 (k=1)".
std::string instrToString(const System& sys, int proc, int pc);
std::string systemToString(const System& sys);
// What a Z3 encoding does not cover yet: accesses before lm.grid_dep_wait()
// (both), and tcgen05.ld / tcgen05.st and their waits unless the engine
// encodes them (`tmem_async`: z3_po does, z3_flat does not). The engine
// answers unknown with this reason (never a pass); the explicit-state
// simulator decides them. nullopt when none occurs.
std::optional<std::string> notEncodedInZ3(const System& sys, bool tmem_async = false);

}  // namespace cake::encoder
