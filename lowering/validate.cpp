// Stage 2: validation of every op against the plan (lower.* rules that
// concern single ops: what each target can lower, constant operands, barrier
// slots, and the shapes and fragment layouts the compute ops' emitters need).
// Emission relies on it: what passes here, emit_*.cpp can emit. See
// lower_internal.h.
#include "lowering/lower_internal.h"

namespace cake::lowering::detail {

void PlanBuilder::checkOps() {
  using K = ir::BufferRef::Kind;
  const bool hopperPlus = target_ == ir::Target::SM90a || target_ == ir::Target::SM100a;
  for (const auto& body : s_.bodies) {
    std::set<const Stmt*> top;  // lm.cluster_sync() runs on every thread of the instance: only at the top level
    for (const Stmt& st : body.body) top.insert(&st);
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      auto unsupported = [&](const std::string& what) {
        error(ir::Rule::LowerUnsupported, op.range, fmt::format("{} is not lowered for {}", what, ir::targetName(target_)));
      };
      auto constPending = [&] {
        if (op.pending && !constOf(op.pending)) error(ir::Rule::LowerUnsupported, op.range, "pending= must be a constant");
      };
      // the barrier slot an arrival, a TMA load or a tcgen05 commit signals
      const bool signals = ir::opInfo(op.kind).has(ir::OpFlag::Arrives);
      if (signals && op.barrier >= 0 && s_.barriers[op.barrier].count > 1 && op.sel.mode == ir::SlotSel::Mode::None)
        error(ir::Rule::LowerUnsupported, op.range, fmt::format("barrier '{}' has {} slots: name one with iter= or stage=",
                                                          s_.barriers[op.barrier].name, s_.barriers[op.barrier].count));
      switch (op.kind) {
        case OpKind::TmaLoad:
        case OpKind::TmaStore: {
          if (!hopperPlus) return unsupported("a TMA copy (sm_90a and later)");
          const auto& view = op.kind == OpKind::TmaLoad ? op.dst : op.src;
          const auto& tensor = op.kind == OpKind::TmaLoad ? op.src : op.dst;
          if (view.kind != K::View || tensor.kind != K::Param)
            return unsupported("a TMA copy that is not between a view slot and a tensor parameter");
          if (!view.slices.empty()) return unsupported("a TMA copy of a sliced slot");
          const int rank = ir::tmaRank(s_.params[tensor.index].type);
          if (rank == 0) return unsupported("a TMA copy of an LM.gmem parameter");
          if (static_cast<int>(op.coords.size()) != rank)
            return unsupported(fmt::format("a TMA copy with {} coordinates of a rank-{} tensor", op.coords.size(), rank));
          for (auto d : tmaBox(view.index, rank))
            if (d > 256) error(ir::Rule::LowerLayout, op.range, fmt::format("TMA box dimension {} > 256", d));
          if (viewRowBytes(view.index) % 16) error(ir::Rule::LowerLayout, op.range, "TMA box rows must be multiples of 16 B");
          const int sw = ir::swizzleBytes(s_.views[view.index].swizzle);
          // rows up to the swizzle span are what TMA takes; wider rows are stored as blocked columns
          if (sw && viewRowBytes(view.index) > sw && !viewBlock_[view.index]) blockView(view.index);
          if (sw && !viewBlock_[view.index] && (viewRowBytes(view.index) > sw || sw % viewRowBytes(view.index)))
            error(ir::Rule::LowerLayout, op.range,
                  fmt::format("view '{}': TMA with a {}B swizzle needs rows of at most {} B that divide it (rows are "
                              "{} B)", s_.views[view.index].name, sw, sw, viewRowBytes(view.index)));
          if (op.kind == OpKind::TmaLoad && op.barrier < 0) error(ir::Rule::LowerUnsupported, op.range, "a TMA load needs barrier=");
          // the derived expect_tx counts the box once per CTA of the mask (ir/expect_tx.h)
          if (op.multicast && !constOf(op.multicast))
            error(ir::Rule::LowerUnsupported, op.range, "multicast= must be a constant mask");
          break;
        }
        case OpKind::TmaStoreCommit:
        case OpKind::TmaStoreWait:
          if (!hopperPlus) return unsupported("lm." + std::string(ir::opName(op.kind)));
          constPending();
          break;
        case OpKind::ExpectTx:
          if (!hopperPlus) return unsupported("lm.expect_tx (sm_90a and later)");
          break;
        case OpKind::MmaWait:
        case OpKind::CpAsyncWait:
          constPending();
          break;
        case OpKind::MmaCommit:
          if (op.barrier >= 0 && target_ == ir::Target::SM90a)
            break;  // wgmma groups cannot arrive: wait_group 0, then arrive (see emitMmaCommit)
          break;
        case OpKind::CpAsync: {
          if (op.dst.kind != K::View || op.src.kind != K::Param || !op.dst.slices.empty())
            return unsupported("a cp_async that is not a whole view slot from a tensor");
          if (op.coords.empty()) return unsupported("a cp_async without coords=");
          if (op.coords.size() == 1 && viewTile(op.dst.index).R != 1)
            return unsupported("a cp_async of a 2-D slot from a rank-1 tensor");
          if (viewShape(op.dst.index).size() > 2 && viewShape(op.dst.index)[0] != 1)
            return unsupported("a cp_async into a view of rank > 2");
          break;
        }
        case OpKind::Arrive:
          if (op.count && !constOf(op.count)) error(ir::Rule::LowerUnsupported, op.range, "arrive count= must be a constant");
          if (op.cta && !hopperPlus) return unsupported("an arrive on a peer CTA's barrier (cta=; sm_90a and later)");
          break;
        case OpKind::ClusterSync:
          if (!hopperPlus) return unsupported("lm.cluster_sync() (sm_90a and later)");
          if (!top.count(&st))
            error(ir::Rule::LowerUnsupported, op.range,
                  "lm.cluster_sync() inside a loop or a branch (every thread of the instance runs it; lowering "
                  "places it at the top level of a role)");
          break;
        case OpKind::Copy: {
          const auto dk = op.dst.kind, sk = op.src.kind;
          if (dk == K::Tmem || sk == K::Tmem) {
            if (!((dk == K::Tmem && sk == K::Regs) || (dk == K::Regs && sk == K::Tmem)))
              return unsupported("a TMEM copy that is not TMEM <-> regs (tcgen05.ld / tcgen05.st)");
            if (target_ != ir::Target::SM100a) return unsupported("a TMEM copy (sm_100a)");
            break;
          }
          if (dk == K::Param && sk == K::Param) return unsupported("a copy between two tensors");
          if ((dk == K::Param || sk == K::Param) && op.coords.empty()) return unsupported("a tensor copy without coords=");
          break;
        }
        case OpKind::Fill:
          if (op.dst.kind == K::Tmem || op.dst.kind == K::Param) return unsupported("lm.fill of TMEM or a tensor");
          break;
        case OpKind::TmemLoad:
        case OpKind::TmemStore:
        case OpKind::TmemLoadWait:
        case OpKind::TmemStoreWait:
          if (target_ != ir::Target::SM100a) return unsupported("lm." + std::string(ir::opName(op.kind)) + " (sm_100a)");
          break;
        case OpKind::GridDepWait:
        case OpKind::LaunchDependents:
          if (!hopperPlus) return unsupported("lm." + std::string(ir::opName(op.kind)) + " (griddepcontrol, sm_90a and later)");
          break;
        case OpKind::Unary:
        case OpKind::Binary:
        case OpKind::Reduce: {
          int tensorsSeen = 0;
          for (const auto* r : {&op.dst, &op.src, &op.src2}) {
            if (r->kind == K::Tmem) return unsupported("a compute op on TMEM (copy it to regs first)");
            if (r->kind == K::Param) ++tensorsSeen;
          }
          if (tensorsSeen > 1) return unsupported("a compute op on two tensor operands (one coords=)");
          if (tensorsSeen && op.coords.empty()) return unsupported("a tensor operand without coords=");
          if (op.kind == OpKind::Reduce && op.dst.kind == K::Param) return unsupported("a reduction into a tensor");
          break;
        }
        default:
          break;
      }
    });
  }
}

// ---- compute ops: element-wise, reductions, TMEM <-> register copies
//
// What emit_compute.cpp needs of each compute op, checked on the finished
// plan (fragment layouts, reduction scratch) and in the order the kernel
// emits the ops: role by role, each role's bodies in order.
void PlanBuilder::checkComputeOps() {
  using K = ir::BufferRef::Kind;
  for (size_t r = 0; r < s_.roles.size(); ++r)
    for (const auto& body : s_.bodies) {
      if (body.role != static_cast<int>(r)) continue;
      ir::forEachOp(body.body, [&](const Stmt& st) {
        const auto& op = st.op;
        if (checkOperandFragments(static_cast<int>(r), op)) return;
        switch (op.kind) {
          case OpKind::Copy:
            if (op.dst.kind == K::Tmem || op.src.kind == K::Tmem) checkTmemCopy(static_cast<int>(r), op);
            else checkElementwise(static_cast<int>(r), op);
            break;
          case OpKind::TmemLoad:
          case OpKind::TmemStore: checkTmemCopy(static_cast<int>(r), op); break;
          case OpKind::Fill:
          case OpKind::Unary:
          case OpKind::Binary: checkElementwise(static_cast<int>(r), op); break;
          case OpKind::Reduce: checkReduce(static_cast<int>(r), op); break;
          default: break;
        }
      });
    }
}

void PlanBuilder::checkElementwise(int role, const ir::Op& op) {
  using K = ir::BufferRef::Kind;
  PlanIssue issue;
  const auto shape = elementwiseShape(role, op, &issue);
  if (!shape) return error(issue.rule, op.range, issue.message);
  // each operand: a fragment slice must shift along the fragment's layout, a
  // tensor of rank 1 takes a row tile
  auto operand = [&](const ir::BufferRef& r, Tile t) {
    if (r.kind == K::Regs) {
      const Layout* full = layoutOf(role, r.index);
      int di = 0, dj = 0;
      std::string why;
      if (full && !regsShift(r, *full, t, di, dj, &why)) error(ir::Rule::LowerLayout, op.range, why);
    } else if (r.kind == K::Param && op.coords.size() == 1 && shape->tile.R != 1) {
      error(ir::Rule::LowerUnsupported, op.range, "a 2-D tile of a rank-1 tensor");
    }
  };
  for (size_t i = 0; i < shape->srcs.size(); ++i) operand(*shape->srcs[i], shape->srcTiles[i]);
  operand(op.dst, shape->tile);
  // (reported only while nothing else is: the order the findings have always come in)
  if (failed()) return;
  if (op.kind == OpKind::Unary && !unaryText(op.fn, "x", false))
    error(ir::Rule::LowerUnsupported, op.range, "unary op '" + std::string(ir::elemFnName(op.fn)) + "'");
  if (op.kind == OpKind::Binary && !binaryText(op.fn, "a", "b", false))
    error(ir::Rule::LowerUnsupported, op.range, "binary op '" + std::string(ir::elemFnName(op.fn)) + "'");
}

void PlanBuilder::checkReduce(int role, const ir::Op& op) {
  using K = ir::BufferRef::Kind;
  PlanIssue issue;
  const auto shape = reduceShape(op, &issue);
  if (!shape) return error(issue.rule, op.range, issue.message);
  if (!reduceFn(op.fn))
    return error(ir::Rule::LowerUnsupported, op.range, "reduce op '" + std::string(ir::elemFnName(op.fn)) + "'");
  if (op.src.kind == K::Regs) {
    // across the threads of the source's layout; the result keeps the layout along the kept axis
    const Layout* src = layoutOf(role, op.src.index);
    if (!src) return;  // every fragment an op names has a layout (analyzeFragments)
    std::string why;
    if (!layoutFor(src->fam, shape->want, &why)) return error(ir::Rule::LowerLayout, op.range, why);
    if (op.dst.kind == K::Regs) {
      const Layout* dst = layoutOf(role, op.dst.index);
      if (!dst || !(dst->fam == src->fam))
        error(ir::Rule::LowerLayout, op.range, "the reduction's destination fragment has another layout than its source");
      const Layout* val = op.src2.kind == K::Regs ? layoutOf(role, op.src2.index) : nullptr;
      if (op.src2.kind == K::Regs && (!val || !(val->fam == src->fam)))
        error(ir::Rule::LowerLayout, op.range, "the running values (value=) have another layout than the source");
    } else if (op.dst.kind == K::View) {
      if (!op.dst.slices.empty()) error(ir::Rule::LowerUnsupported, op.range, "a reduction into a sliced slot");
    } else {
      error(ir::Rule::LowerUnsupported, op.range, "a reduction into this destination");
    }
    return;
  }
  // a slot source: each destination element reduces its line serially
  if (op.src.kind != K::View) return error(ir::Rule::LowerUnsupported, op.range, "a reduction of this source");
  if (op.dst.kind != K::Regs && op.dst.kind != K::View)
    error(ir::Rule::LowerUnsupported, op.range, "a reduction into this destination");
}

// mma.sync operand fragments (Family::operand) hold ldmatrix registers: an lm.copy from a slot of a
// shared-memory view fills one (ldmatrix.x4, Emitter::emitFragmentLoad) and an lm.mma on two of them reads
// them (planMmaFragments); no other op names one. True when the op names one (and was checked here).
bool PlanBuilder::checkOperandFragments(int role, const ir::Op& op) {
  using K = ir::BufferRef::Kind;
  const ir::BufferRef* named = nullptr;
  for (const auto* r : {&op.dst, &op.src, &op.src2})
    if (r->kind == K::Regs && operandFragment(role, r->index)) named = r;
  if (!named) return false;
  if (op.kind == OpKind::Mma) return true;  // planMmaFragments took it, or reported why not
  const Layout* l = operandFragmentLoad(role, op);
  auto fail = [&](const std::string& m) {
    error(ir::Rule::LowerLayout, op.range,
          fmt::format("fragment '{}' holds mma.sync operand registers ({}): {}", s_.regs[named->index].name,
                      layoutOf(role, named->index)->fam.describe(), m));
    return true;
  };
  if (!l)
    return fail("only an lm.copy from a shared-memory slot fills it and only an lm.mma reads it");
  const int v = op.src.index;
  Tile t;
  if (!op.dst.slices.empty()) return fail("the copy fills the whole fragment (no slice)");
  if (viewShape(v).size() != 2 || !refTile(op.src, t)) return fail("the source must be a 2-D slot with constant extents");
  if (s_.views[v].dtype != s_.regs[op.dst.index].dtype) return fail("the slot and the fragment must have one type");
  if (t.R != l->t.R || t.C != l->t.C)
    return fail(fmt::format("the source tile is {}x{}, the fragment {}x{}", t.R, t.C, l->t.R, l->t.C));
  if (viewRowBytes(v) % 16)
    return fail("ldmatrix needs slot rows of a multiple of 16 bytes");
  for (size_t k = 0; k < op.src.slices.size() && k < 2; ++k) {
    const auto& lo = op.src.slices[k].lo;
    const auto c = lo ? constOf(lo) : std::optional<int64_t>(0);
    if (k == 1 && (!c || (*c * ir::dtypeBytes(s_.views[v].dtype)) % 16))
      return fail("the column slice must start at a constant multiple of 16 bytes (an ldmatrix row chunk)");
    if (k == 0 && lo && !c) return fail("the row slice must start at a constant");
  }
  return true;
}

void PlanBuilder::checkTmemCopy(int role, const ir::Op& op) {
  const ir::BufferRef& regs = op.src.kind == ir::BufferRef::Kind::Tmem ? op.dst : op.src;
  const Layout* frag = layoutOf(role, regs.index);
  if (!frag) return;  // every fragment an op names has a layout (analyzeFragments)
  PlanIssue issue;
  if (!tmemCopyTile(role, op, *frag, &issue)) error(issue.rule, op.range, issue.message);
}

}  // namespace cake::lowering::detail
