#include "ir/expect_tx.h"

namespace cake::ir {

namespace {

bool sameSelector(const SlotSel& a, const SlotSel& b) {
  return a.mode == b.mode && sameOptExpr(a.index, b.index) && sameOptExpr(a.phase, b.phase);
}

bool isTmaLoad(const Stmt& st) { return st.kind == Stmt::Kind::Op && st.op.kind == OpKind::TmaLoad; }

class Planner {
 public:
  explicit Planner(const Schedule& s) : s_(s) {}

  TxPlan run() {
    // A barrier that some role arms with lm.expect_tx is armed by hand for
    // every role: FlashMLA's decode kernel has the warpgroup that waits on a
    // tile's barrier arm it while the other warpgroup issues some of the TMA
    // loads that complete on it (docs/semantics.md "Derived expect_tx").
    std::set<std::pair<int, int>> loads;
    std::set<int> armed;
    for (const RoleBody& body : s_.bodies)
      forEachOp(body.body, [&](const Stmt& st) {
        if (st.op.kind == OpKind::TmaLoad && st.op.barrier >= 0) loads.insert({body.role, st.op.barrier});
        if (st.op.kind == OpKind::ExpectTx) armed.insert(st.op.barrier);
      });
    for (const auto& rb : loads)
      if (!armed.count(rb.second)) plan_.derived.insert(rb);
    for (const RoleBody& body : s_.bodies) block(body.role, body.body);
    return std::move(plan_);
  }

 private:
  void block(int role, const Block& b) {
    for (size_t i = 0; i < b.size(); ++i) {
      const Stmt& st = b[i];
      if (st.kind != Stmt::Kind::Op) {
        block(role, st.body);
        block(role, st.orelse);
        continue;
      }
      if (!isTmaLoad(st) || plan_.batch_of.count(&st) || !plan_.derived.count({role, st.op.barrier})) continue;
      TxBatch batch;
      batch.role = role;
      batch.barrier = st.op.barrier;
      batch.loads.push_back(&st);
      for (size_t j = i + 1; j < b.size(); ++j) {
        const Stmt& sj = b[j];
        if (sj.kind != Stmt::Kind::Op) break;
        if (isTmaLoad(sj) && sj.op.barrier == st.op.barrier && sameSelector(sj.op.sel, st.op.sel))
          batch.loads.push_back(&sj);
        if (sj.op.kind == OpKind::Wait && sj.op.barrier == st.op.barrier) break;
      }
      const int index = static_cast<int>(plan_.batches.size());
      for (const Stmt* l : batch.loads) plan_.batch_of[l] = index;
      plan_.batches.push_back(std::move(batch));
    }
  }

  const Schedule& s_;
  TxPlan plan_;
};

}  // namespace

const TxBatch* TxPlan::headedBy(const Stmt* load) const {
  const TxBatch* b = batchOf(load);
  return b && b->loads.front() == load ? b : nullptr;
}

const TxBatch* TxPlan::batchOf(const Stmt* load) const {
  auto it = batch_of.find(load);
  return it == batch_of.end() ? nullptr : &batches[it->second];
}

TxPlan planDerivedTx(const Schedule& s) { return Planner(s).run(); }

}  // namespace cake::ir
