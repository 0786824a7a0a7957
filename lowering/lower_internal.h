// Internal to lowering/: the kernel plan (KernelPlan), its builder
// (PlanBuilder) and the data they share; the emitter is in emit.h. See
// docs/architecture.md ("lowering") and docs/gpu.md.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ir/expect_tx.h"
#include "ir/rule_ids.h"
#include "ir/smem_layout.h"
#include "lowering/lower.h"

namespace cake::lowering::detail {

using ir::Expr;
using ir::ExprKind;
using ir::OpKind;
using ir::Stmt;

// Text made safe for a // comment: printable ASCII, no backslash, no "??".
std::string sanitizeComment(std::string_view s);

// ------------------------------------------------------- register layouts
//
// A fragment (lm.regs) is a 2-D tile R x C (rows = the product of the
// leading dimensions, C = the last one). Each thread of the instance holds
// NR x NC elements, declared `T name[NR][NC]`: slot (i, j) is the element at
// row row.index(i), column col.index(j). A layout is the product of a row
// distribution and a column distribution, both fixed by the fragment's
// family (all fragments that meet in an element-wise op share one), so an
// element-wise op indexes every operand with the same (i, j) — or with 0
// along a broadcast (extent 1) dimension — and never moves data between
// threads. Reductions combine across the threads of the reduced dimension
// with warp shuffles and, across warps, through a shared-memory scratch.

struct Tile {
  int64_t R = 1, C = 1;
};

struct Dist {
  enum Kind { One, Full, Cyclic, WgRow, WgCol, MmaRow, MmaCol, MmaN };
  Kind kind = One;
  int64_t E = 1;   // extent
  int n = 1;       // slots per thread
  int T = 32;      // Cyclic: threads
  int G = 1;       // WgRow: warpgroups per instance
  int wm = 1, wn = 1;
};

struct Family {
  enum Kind { None, Generic, Wg, Mma };
  Kind kind = None;
  bool colsMajor = false;  // Generic: columns cycle over the threads (row vectors)
  int T = 32;              // threads per instance
  int G = 1;               // Wg: warpgroups per instance
  int wm = 1, wn = 1;      // Mma: warp grid
  bool tmem = false;       // Generic, anchored by a TMEM copy (row = thread = TMEM lane)
  // Wg: the accumulator of a transposed wgmma (MmaPlan::trans): the fragment's
  // rows take the wgmma's column distribution (WgCol) and its columns the row
  // distribution (WgRow), i.e. the wgmma layout of the fragment's transpose
  bool trans = false;
  // Mma: an mma.sync operand fragment (docs/ir-reference.md "mma.sync operand
  // fragments"), held as the ldmatrix registers of the warp grid's m16n8k16
  // tiles: A (M x K: rows MmaRow, K columns whole in each warp column) or
  // B (N x K: rows MmaN, n8 tiles of the warp column; K whole in each warp row)
  enum Operand { Acc, OperandA, OperandB };
  Operand operand = Acc;
  bool operator==(const Family& o) const {
    return kind == o.kind && colsMajor == o.colsMajor && T == o.T && G == o.G && wm == o.wm && wn == o.wn &&
           trans == o.trans && operand == o.operand;
  }
  std::string describe() const;
};

struct Layout {
  Family fam;
  Tile t;
  Dist row, col;
  int NR() const { return row.n; }
  int NC() const { return col.n; }
};

// One lm.mma, as planned.
struct MmaPlan {
  enum Kind { Wgmma, MmaSync, Tcgen05 };
  Kind kind = MmaSync;
  std::string ty;          // bf16 f16 e4m3 e5m2 tf32
  int kstep = 16;          // elements of K per instruction
  bool rs = false;         // wgmma: A from registers
  int G = 1;               // wgmma: warpgroups per instance
  int wm = 1, wn = 1;      // mma.sync warp grid
  int64_t ka0 = 0, kb0 = 0;  // mma.sync: first column (element) of a column-sliced a / b view operand
  bool frags = false;        // mma.sync: a and b from operand fragments (ldmatrix registers, Family::operand)
  // wgmma, transposed (docs/ir-extensions.md "Transposed wgmma"): acc[M,N] +=
  // a[M,K] . b[N,K]^T with M not a multiple of 64 but N one, issued as
  // acc^T[N,M] += b[N,K] . a[M,K]^T: b is the wgmma's A (m64 blocks of N),
  // a its B (n = M), and the fragment takes Family::trans
  bool trans = false;
  // wgmma (not transposed) into a column slice acc[:, acc0:acc0+accN] of its
  // accumulator fragment (docs/ir-reference.md "Operands"):
  // accN = 0 when the accumulator is not sliced
  int64_t acc0 = 0, accN = 0;
};

// Accesses since the last sync of the instance (IR.md: "lowering inserts the
// synchronization among the instance's own warps that this needs").
struct Access {
  int key;                 // view index, or 100000 + tensor parameter
  ir::ExprPtr slot;        // nullptr: any slot
  // made `lag` values of loop variable `lagVar` ago (earlier iterations of the loop being walked): its slot
  // is `slot` evaluated at (that variable - lag) (PlanBuilder::shiftBack)
  int lagVar = -1;
  int64_t lag = 0;
  // made before the loop `pinLoop` (whose body is being walked): it is pending only in that loop's first
  // iteration, unless it outlives an iteration (PlanBuilder::shiftBack unpins it)
  const ir::Stmt* pinLoop = nullptr;
  auto tie() const { return std::tuple(key, slot.get(), lagVar, lag, pinLoop); }
  bool operator<(const Access& o) const { return tie() < o.tie(); }
  bool operator==(const Access& o) const { return tie() == o.tie(); }
};
struct SyncState {
  std::set<Access> rd, wr;
  bool operator==(const SyncState& o) const { return rd == o.rd && wr == o.wr; }
};

// Why the plan cannot take an op: the lower.* rule and its message.
struct PlanIssue {
  ir::Rule rule = ir::Rule::LowerUnsupported;
  std::string message;
};

// The shapes of an element-wise op (copy, fill, unary, binary) in one role.
struct ElementwiseShape {
  Tile tile;                                   // the tile it iterates over
  std::vector<const ir::BufferRef*> srcs;      // its sources, in operand order
  std::vector<Tile> srcTiles;                  // their tiles (a tensor source takes `tile`)
  std::optional<Layout> layout;                // the iteration layout; none: no fragment operand
};

// The shapes of an lm.reduce.
struct ReduceShape {
  int rdim = 1;          // 0: rows, 1: columns of the 2-D source tile are reduced
  Tile src, dst;
  Tile want;             // what the reduction gives: src.R x 1 or 1 x src.C
};

// A reduction's identity and combining expression (with {a}, {b}).
struct ReduceFn {
  std::string identity;
  std::string combine;
};

struct TensorInfo {
  int rank = 0;                   // 0: not known (unused)
  ir::DType dtype = ir::DType::BF16;
  bool dtypeKnown = false;
  bool ptr = false;               // accessed element-wise: pointer + extents
};

// ---------------------------------------------------------------- the plan
//
// Lowering runs in three stages over one schedule:
//   1. PlanBuilder (plan_build.cpp, plan_sync.cpp) computes the KernelPlan:
//      names, shared-memory layout, roles, barriers, MMA plans, fragment
//      layouts, scratch, the grid, and where instances sync their threads;
//      a schedule it cannot plan gets located lower.* findings.
//   2. Validation (validate.cpp) checks every op against the plan (the
//      remaining lower.* rules): what each target lowers, and what the
//      compute ops' emitters need of their shapes and fragment layouts.
//   3. Emitter (emit.h, emit_*.cpp) writes the CUDA from the plan, which it
//      only reads (a const reference): emission decides nothing the output's
//      correctness depends on, and cannot fail on a validated plan (a case
//      it cannot take is a bug in cake: it throws std::logic_error).
// The queries below (names, expressions, shapes, addresses) are what both
// the builder and the emitter ask of the plan.
// `v + c` (v a loop variable, c a constant; also v, c + v and v - c): (v, c) (KernelPlan::slotOf)
std::optional<std::pair<int, int64_t>> loopVarPlusConst(const ir::Expr& e);

struct KernelPlan {
  KernelPlan(const ir::Schedule& s, const LowerOptions& o) : s_(s), opts_(o) {}

  const ir::Schedule& s_;
  const LowerOptions& opts_;
  ir::Target target_ = ir::Target::Unspecified;
  bool gemm_ = false;              // GEMM ABI emitted

  // names (sanitised, unique)
  std::vector<std::string> paramNames_, poolNames_, viewNames_, tmemNames_, regsNames_, barNames_, loopNames_;
  std::set<std::string> usedNames_;

  // layout, roles, barriers
  int threads_ = 0, warps_ = 0, regCap_ = 0;
  std::vector<TensorInfo> tensors_;                 // per param
  std::set<std::pair<int, int>> tmaps_;             // (param, view) pairs used by TMA
  ir::SmemLayout smemLayout_;                       // the shared placement (ir/smem_layout.h) the offsets come from
  std::vector<int64_t> poolOffset_;
  int64_t barOffset_ = 0, tmemSlotOffset_ = -1, smemUsed_ = 0;
  std::vector<int> barSlotBase_;
  std::vector<int> barWeight_;
  ir::TxPlan txPlan_;                  // derived expect_tx (ir/expect_tx.h)
  std::vector<bool> roleSingle_;
  std::vector<int> roleInstBar_;                    // named barrier id of the role's first instance, -1: none needed
  std::vector<int> namedBarId_, namedBarThreads_;
  std::vector<int64_t> roleScratch_;                // smem offset of the role's scratch (per instance stride below)
  std::vector<int64_t> roleScratchStride_;
  int scratchSlots_ = static_cast<int>(ir::hw::kScratchSlotsPerThread);  // values per thread per scratch round
  std::vector<bool> loopNonneg_;
  std::set<int> nonnegParams_;
  // MMA plans and fragments
  std::vector<Tile> regsTiles_;                     // per regs, normalised to 2-D
  std::map<std::pair<int, int>, Layout> frag_;      // (role, regs) -> layout
  std::map<const ir::Op*, MmaPlan> mma_;
  // (n, type, A from registers, transposed accumulator) of the wgmma ops
  std::set<std::tuple<int, std::string, bool, bool>> wgmmaHelpers_;
  bool usesTmem_ = false;
  int tmemCols_ = 0;
  // grid
  bool persistent_ = false;
  bool raster_ = false;  // lm.block_idx(0/1) come from a grouped walk of the grid (Emitter::emitRaster)
  std::string gridHost_[3];                         // host expressions (cake_launch_impl scope)
  bool gridDerived_ = false;
  // the ops an instance syncs its own threads before (plan_sync.cpp)
  std::set<const Stmt*> syncBefore_;

  // ---- names and expressions
  bool nonneg(const Expr& e) const;
  std::string expr(const ir::ExprPtr& e, bool host = false) const;
  std::string expr(const Expr& e, bool host) const;
  std::string pyText(const ir::ExprPtr& e) const;
  std::optional<int64_t> constOf(const ir::ExprPtr& e) const {
    return e ? (spec_.empty() ? ir::constValue(e) : ir::evaluate(*e, specEnv_)) : std::nullopt;
  }
  std::map<int, int64_t> spec_;                     // specialised i32 parameters (index -> value)
  ir::EvalEnv specEnv_;                             // their values, for constOf
  void specEnv(ir::EvalEnv& env) const {            // force the specialised values into an environment
    for (const auto& [p, v] : spec_) env.params[p] = v;
  }
  std::set<std::string> unspecialized_;             // parameters a shape depends on, not given
  std::string paramName(int p) const { return paramNames_[p]; }
  std::string viewName(int v) const { return viewNames_[v]; }
  std::string barName(int b) const { return barNames_[b]; }
  std::string regsName(int r) const { return regsNames_[r]; }
  std::string tmapName(int p, int v) const { return "cake_tmap_" + paramNames_[p] + "_" + viewNames_[v]; }
  std::string kernelName() const;

  // ---- shapes
  Tile viewTile(int v) const;                      // the slot, flattened
  int64_t viewSlotBytes(int v) const;
  int64_t viewRowBytes(int v) const { return viewTile(v).C * ir::dtypeBytes(s_.views[v].dtype); }
  // Physical layout of a slot. Normally row-major (row pitch = the row's
  // bytes) with the view's swizzle. A "blocked" view (viewBlock_[v] = W)
  // is stored as row-bytes / W column blocks of [rows][W bytes], each
  // swizzled with a W-byte swizzle: the K-major canonical layout that
  // wgmma / tcgen05 descriptors and TMA boxes need (used for unswizzled MMA
  // operands and for swizzled views whose rows are wider than the swizzle).
  std::vector<int> viewBlock_;
  std::string viewOffset(int v, const std::string& row, const std::string& colBytes) const;
  // The same offset for rows r + k, with k a multiple of `grain` (0: k = 0)
  // known once a loop is unrolled and r this thread's part: when
  // viewRowsSplit holds, the swizzle takes its row bits from r alone, so
  // r's bytes (rowBytes) and swizzle bits (viewRowSwizzle) are computed once
  // and k adds a constant. Otherwise every element's address is a swizzle of
  // its own, all of them live at once in an unrolled epilogue (docs/gpu.md,
  // "Ping-pong epilogue: staging addresses").
  bool viewRowsSplit(int v, int64_t grain) const;
  std::string viewRowSwizzle(int v, const std::string& rowBytes) const;
  std::string viewOffsetSplit(int v, const std::string& rowBytes, const std::string& swz, const std::string& k,
                              const std::string& colBytes) const;
  int viewSwizzleEff(int v) const { return viewBlock_[v] ? viewBlock_[v] : ir::swizzleBytes(s_.views[v].swizzle); }
  int64_t viewRowPitch(int v) const { return viewBlock_[v] ? viewBlock_[v] : viewRowBytes(v); }
  std::vector<int64_t> tmaBox(int v, int rank) const;
  std::vector<int64_t> viewShape(int v) const;
  Tile regsTile(int r) const;
  Tile tmemTile(int t) const;
  // the 2-D tile an operand denotes (slices applied); false if not constant
  bool refTile(const ir::BufferRef& ref, Tile& t, int64_t* r0c = nullptr, int64_t* c0c = nullptr) const;
  ir::DType refDtype(const ir::BufferRef& ref) const;
  int reduceDim(const ir::Op& op) const;           // 0: rows, 1: columns of the 2-D tile, -1: unsupported
  // slot offsets (di, dj) of a sliced fragment operand inside its fragment's layout
  bool regsShift(const ir::BufferRef& ref, const Layout& full, Tile sub, int& di, int& dj, std::string* why) const;
  // the fragment of an lm.copy into an mma.sync operand fragment (Family::operand): its layout, or null
  const Layout* operandFragmentLoad(int role, const ir::Op& op) const;
  const Layout* operandFragment(int role, int regs) const;  // its layout where it is an operand fragment
  const Layout* layoutOf(int role, int regs) const;
  std::optional<Layout> layoutFor(const Family& f, Tile t, std::string* why) const;
  std::optional<Dist> distFor(const Family& f, bool row, int64_t E, std::string* why) const;
  bool opIsElected(const ir::Op& op) const;
  // shapes of the compute ops in `role` (plan.cpp); nullopt with the reason
  // when the plan cannot take the op (validation reports it, emission relies on it)
  std::optional<ElementwiseShape> elementwiseShape(int role, const ir::Op& op, PlanIssue* why) const;
  std::optional<ReduceShape> reduceShape(const ir::Op& op, PlanIssue* why) const;
  // the TMEM region a TMEM <-> registers copy moves, given its fragment's layout
  std::optional<Tile> tmemCopyTile(int role, const ir::Op& op, const Layout& frag, PlanIssue* why) const;
  std::string hostGridText() const;

  // ---- addresses
  std::string slotOf(const ir::ExprPtr& e, int stages) const;
  // sm_80 loops unrolled by their slots' stages (Emitter::emitSlotUnrolledLoop): loop variable -> (its value
  // mod the unroll factor in the copy of the body being emitted, the factor); slotOf makes the slot of
  // `v + c` a constant from it while the copy is emitted
  mutable std::map<int, std::pair<int64_t, int64_t>> slotResidue_;
  std::string viewSlotAddr(const ir::BufferRef& ref) const;
  std::string viewSlotAddrSel(const ir::BufferRef& ref, const ir::SlotSel& sel) const {
    ir::BufferRef r = ref;
    // view[e].tma_load: e names the view slot, the selector only the barrier's
    if (sel.mode != ir::SlotSel::Mode::None && !ref.slot) r.slot = sel.index;
    return viewSlotAddr(r);
  }
  std::string tmemAddr(const ir::BufferRef& ref, int64_t col_off) const;
  std::map<size_t, int64_t> derivedTx(const ir::Block& b) const;
};

// Stage 1: builds the plan; a schedule it cannot plan gets lower.* findings.
class PlanBuilder : public KernelPlan {
 public:
  using KernelPlan::KernelPlan;
  // Plans the schedule (stage 1) and validates its ops against the plan
  // (stage 2); false with findings when it cannot be lowered.
  bool build();
  std::vector<ir::Finding> findings_;

 private:
  void error(ir::Rule rule, const ir::SourceRange& r, std::string msg);
  bool failed() const { return !findings_.empty(); }
  void assignNames();
  std::string uniqueName(const std::string& raw);
  void needConst(const ir::ExprPtr& e, const ir::SourceRange& r, const std::string& what);
  bool blockView(int v);                            // try to make v blocked (MMA operand); false if it can't be
  void analyzeParams();
  void layoutSmem();
  void analyzeRoles();
  void analyzeBarriers();
  void analyzeLoops(const ir::Block& b);
  void planMmas();
  bool mmaSyncWarpGrid(Tile tacc, int wpi, bool oneColumn, MmaPlan& p) const;
  void planMmaFragments(const ir::Op& op, int wpi);
  void blockStagingViews();                        // swizzled layout for TMA-store staging views
  void analyzeFragments();
  void planWgmmaHelpers();
  void analyzeScratch();
  void deriveGrid();
  bool bindGemm(bool report);
  // instance syncs (plan_sync.cpp)
  std::vector<Access> opReads(const ir::Op& op) const;
  std::vector<Access> opWrites(const ir::Op& op) const;
  bool conflicts(const Access& a, const Access& b) const;
  bool needsSync(const ir::Op& op, const SyncState& st) const;
  void applyOp(const ir::Op& op, SyncState& st) const;
  SyncState widen(const SyncState& st) const;
  SyncState shiftBack(const SyncState& st, const Stmt& loop) const;
  SyncState enterLoop(const SyncState& st, const Stmt& loop) const;
  SyncState leaveLoop(const SyncState& st, const Stmt& loop) const;
  SyncState syncWalk(const ir::Block& b, SyncState st, bool record);
  void planInstanceSyncs();
  // validation (validate.cpp)
  void checkOps();
  void checkComputeOps();                          // on the finished plan, in emission order
  void checkElementwise(int role, const ir::Op& op);
  void checkReduce(int role, const ir::Op& op);
  void checkTmemCopy(int role, const ir::Op& op);
  bool checkOperandFragments(int role, const ir::Op& op);
};

std::string sanitizeComment(std::string_view s);
std::string sanitizeIdent(const std::string& raw);
bool isReserved(const std::string& n);
std::string cType(ir::DType d);
int64_t lcm64(int64_t a, int64_t b);
std::string floatLiteral(double v);
// C++ of an element-wise function (emit_compute.cpp); nullopt: not lowered
std::optional<std::string> unaryText(ir::ElemFn fn, const std::string& x, bool intc);
std::optional<std::string> binaryText(ir::ElemFn fn, const std::string& a, const std::string& b, bool intc);
std::optional<ReduceFn> reduceFn(ir::ElemFn fn);

}  // namespace cake::lowering::detail
