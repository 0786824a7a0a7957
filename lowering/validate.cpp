// Stage 2: validation of every op against the finished plan (lower.* rules
// that concern single ops: what each target can lower, constant operands,
// barrier slots). See lower_internal.h.
#include "lowering/lower_internal.h"

namespace cake::lowering::detail {

void PlanBuilder::checkOps() {
  using K = ir::BufferRef::Kind;
  const bool hopperPlus = target_ == ir::Target::SM90a || target_ == ir::Target::SM100a;
  for (const auto& body : s_.bodies) {
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      auto unsupported = [&](const std::string& what) {
        error("lower.unsupported", op.range, fmt::format("{} is not lowered for {}", what, ir::targetName(target_)));
      };
      auto constPending = [&] {
        if (op.pending && !constOf(op.pending)) error("lower.unsupported", op.range, "pending= must be a constant");
      };
      // the barrier slot an arrival, a TMA load or a tcgen05 commit signals
      const bool signals = ir::opInfo(op.kind).has(ir::OpFlag::Arrives);
      if (signals && op.barrier >= 0 && s_.barriers[op.barrier].count > 1 && op.sel.mode == ir::SlotSel::Mode::None)
        error("lower.unsupported", op.range, fmt::format("barrier '{}' has {} slots: name one with iter= or stage=",
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
            if (d > 256) error("lower.layout", op.range, fmt::format("TMA box dimension {} > 256", d));
          if (viewRowBytes(view.index) % 16) error("lower.layout", op.range, "TMA box rows must be multiples of 16 B");
          const int sw = ir::swizzleBytes(s_.views[view.index].swizzle);
          // rows up to the swizzle span are what TMA takes; wider rows are stored as blocked columns
          if (sw && viewRowBytes(view.index) > sw && !viewBlock_[view.index]) blockView(view.index);
          if (sw && !viewBlock_[view.index] && (viewRowBytes(view.index) > sw || sw % viewRowBytes(view.index)))
            error("lower.layout", op.range,
                  fmt::format("view '{}': TMA with a {}B swizzle needs rows of at most {} B that divide it (rows are "
                              "{} B)", s_.views[view.index].name, sw, sw, viewRowBytes(view.index)));
          if (op.kind == OpKind::TmaLoad && op.barrier < 0) error("lower.unsupported", op.range, "a TMA load needs barrier=");
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
          if (op.count && !constOf(op.count)) error("lower.unsupported", op.range, "arrive count= must be a constant");
          break;
        case OpKind::Copy: {
          const auto dk = op.dst.kind, sk = op.src.kind;
          if (dk == K::Tmem || sk == K::Tmem) {
            if (!((dk == K::Tmem && sk == K::Regs) || (dk == K::Regs && sk == K::Tmem)))
              return unsupported("a TMEM copy that is not TMEM <-> regs (tcgen05.ld / tcgen05.st)");
            if (target_ != ir::Target::SM100a) return unsupported("a TMEM copy (sm_100a)");
            usesTmem_ = true;
            break;
          }
          if (dk == K::Param && sk == K::Param) return unsupported("a copy between two tensors");
          if ((dk == K::Param || sk == K::Param) && op.coords.empty()) return unsupported("a tensor copy without coords=");
          break;
        }
        case OpKind::Fill:
          if (op.dst.kind == K::Tmem || op.dst.kind == K::Param) return unsupported("lm.fill of TMEM or a tensor");
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

}  // namespace cake::lowering::detail
