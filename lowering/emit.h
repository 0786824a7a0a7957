// Internal to lowering/: stage 3, the Emitter, which writes the CUDA source
// of a finished KernelPlan (lower_internal.h) and only reads it. One file per
// instruction family: emit_kernel.cpp (the kernel, its roles and blocks,
// instance syncs), emit_sync.cpp (mbarrier waits and arrivals, named
// barriers), emit_copy.cpp (TMA, cp.async), emit_mma.cpp (wgmma, mma.sync,
// tcgen05), emit_compute.cpp (element-wise ops, reductions, TMEM copies) and
// emit_host.cpp (the launchers).
#pragma once

#include "lowering/lower_internal.h"

namespace cake::lowering::detail {

class Emitter {
 public:
  explicit Emitter(const KernelPlan& plan) : s_(plan.s_), opts_(plan.opts_), plan_(plan) {}
  std::string kernel();  // the __global__ function (and the helpers it needs)
  std::string host();    // the host launchers

 private:
  const ir::Schedule& s_;
  const LowerOptions& opts_;
  const KernelPlan& plan_;

  // output state
  std::string out_;
  int indent_ = 0;
  int role_ = -1;
  bool single_ = false;
  std::set<int> stagePhaseBars_;
  std::set<std::string> cpHoisted_;  // the role's stepped cp.async copies whose per-thread values are hoisted
  std::set<const ir::Op*> initHoisted_;  // mma.sync ops whose init= zeroing is emitted before their loop
  std::map<std::string, std::string> ldmHoisted_;  // ldmatrix per-thread offset expression -> its hoisted name
  // while a loop's steady pass is emitted (emitSlotUnrolledLoop): the `if (v + c < hi)` guards that hold
  // in each of its iterations, and the stepped cp.async copies that are interior in each
  std::set<const ir::Stmt*> steadyGuards_;
  std::set<const ir::Op*> steadyCopies_;

  // An op the plan's validation passed but emission cannot take: a bug in
  // cake (validate.cpp misses a check), never a property of the schedule.
  [[noreturn]] void internalError(const ir::Op& op, const std::string& what) const;
  void line(const std::string& l);
  void comment(const std::string& c) {
    if (opts_.comments) line("// " + sanitizeComment(c));   // no trigraph, no line splice
  }
  void open(const std::string& head) {
    line(head + " {");
    ++indent_;
  }
  void openScope() {
    line("{");
    ++indent_;
  }
  void close(const std::string& tail = "}") {
    --indent_;
    line(tail);
  }
  // the layout of a fragment in the role being emitted
  const Layout* layoutOf(int regs) const { return plan_.layoutOf(role_, regs); }
  std::string barSlotAddr(int b, const ir::SlotSel& sel) const;

  // ---- kernel, roles, blocks, instance syncs (emit_kernel.cpp)
  void emitKernel();
  void emitRaster();
  void emitRole(int role, const std::vector<const ir::RoleBody*>& bodies);
  void walkBlock(const ir::Block& b);
  int64_t slotUnroll(const ir::Stmt& loop, int64_t step) const;
  void emitSlotUnrolledLoop(const ir::Stmt& loop, int64_t unroll);
  void collectSteady(const ir::Block& b, const ir::Stmt& loop, int64_t& reach, std::vector<const ir::Stmt*>& guards,
                     std::vector<const ir::Op*>& copies) const;
  void emitOp(const ir::Op& op);
  bool multiThread() const;                       // the current role runs on more than one thread per instance
  void instSync();
  void elected(const std::function<void()>& body);
  // ---- barriers (emit_sync.cpp)
  void emitWait(const ir::Op& op);
  void emitArrive(const ir::Op& op, int64_t tx_bytes, bool explicit_tx);
  void tcFenceBefore();
  void tcFenceAfter();
  // ---- copies (emit_copy.cpp)
  std::string tmaBoxCoords(const ir::Op& op, int v, int blk, int W);
  void emitTmaLoad(const ir::Op& op);
  void emitTmaStore(const ir::Op& op);
  void emitCpAsync(const ir::Op& op);
  // a cp.async copy's chunk bytes (16, 8, 4; 0: element copies), and where its interior chunks step by
  // whole-row passes, the bytes of a pass (0 if they do not)
  int cpAsyncChunk(const ir::Op& op) const;
  int64_t cpAsyncPassBytes(const ir::Op& op) const;
  std::string cpHoistName(const ir::Op& op) const;
  void emitCpAsyncHoists(const std::vector<const ir::RoleBody*>& bodies);
  // ---- MMAs (emit_mma.cpp)
  void emitMma(const ir::Op& op);
  void emitWgmma(const ir::Op& op, const MmaPlan& p);
  void emitWgmmaRsFragments(const ir::Op& op, const MmaPlan& p, int mbl, int steps);
  void emitMmaSync(const ir::Op& op, const MmaPlan& p);
  void emitInitHoists(const ir::Stmt& loop);
  // ldmatrix.x4 addresses of a view operand: this thread's row `row` plus 16 * a tile; where the swizzle
  // repeats every 8 rows of the slot (KernelPlan::viewRowsSplit) the row's bytes and swizzle are emitted
  // once (names pre + "r", pre + "sw") and a tile's row is a constant
  struct LdmRows {
    int v = -1;
    std::string pre, base, lane;  // the row: base + 16 * tile + lane
    bool split = false;
  };
  LdmRows ldmatrixRows(int v, const std::string& pre, const std::string& base, const std::string& lane);
  std::string ldmatrixAddr(const LdmRows& r, const std::string& tile, const std::string& colBytes) const;
  std::string ldmatrixCol(int v, int64_t c0, const std::string& chunk) const;
  void emitFragmentLoad(const ir::Op& op, const Layout& l);
  // An ldmatrix operand of an op on the mma.sync path: rows (row0 + 16 * tile + lane) of view v, k-step
  // k's 16-byte chunk at ldmatrixCol(v, c0, chunk(k)). Where the rows split (viewRowsSplit) and row0 does
  // not change in the role (a constant row slice), the per-thread offset of tile 0 at each k-step is
  // computed once at the role's start (emitLdmHoists) and an ldmatrix adds the slot and a constant
  struct LdmOperand {
    int v = -1;
    std::string row0, lane, chunk;  // chunk: the 16-byte chunk with "{k}" for the k-step
    int64_t c0 = 0;
    int steps = 0;
    bool hoist = false;
  };
  std::vector<LdmOperand> ldmOperands(const ir::Op& op) const;
  std::string ldmThreadOffset(const LdmOperand& o, int k) const;
  void emitLdmHoists(const std::vector<const ir::RoleBody*>& bodies);
  // `const uint32_t name[steps] = {the hoisted offsets}` when the operand's offsets are hoisted; false if not
  bool ldmHoistedArray(const LdmOperand& o, const std::string& name);
  void emitTcgen05(const ir::Op& op, const MmaPlan& p);
  void emitMmaCommit(const ir::Op& op);
  // ---- compute ops (emit_compute.cpp)
  void emitElementwise(const ir::Op& op);
  void emitReduce(const ir::Op& op);
  void emitTmemCopy(const ir::Op& op);
  // ---- host (emit_host.cpp)
  void emitHost();
  void emitClusterResidency();
  void emitPersistentResidency();
};

}  // namespace cake::lowering::detail
