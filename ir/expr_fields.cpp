// Every expression field of a schedule (see expr_fields.h).
#include "ir/expr_fields.h"

namespace cake::ir {

namespace {
using ExprFn = std::function<void(ExprPtr&)>;
void eachField(const ExprFn& fn, std::vector<ExprPtr>& es) {
  for (ExprPtr& e : es) fn(e);
}
void eachField(const ExprFn& fn, BufferRef& r) {
  fn(r.slot);
  fn(r.scalar);
  for (Slice& sl : r.slices) {
    fn(sl.lo);
    fn(sl.hi);
  }
}
void eachField(const ExprFn& fn, Op& op) {
  eachField(fn, op.dst);
  eachField(fn, op.src);
  eachField(fn, op.src2);
  eachField(fn, op.coords);
  fn(op.sel.index);
  fn(op.sel.phase);
  for (ExprPtr* e : {&op.bytes, &op.count, &op.pending, &op.init, &op.fill_value, &op.base, &op.multicast, &op.cta})
    fn(*e);
}
void eachField(const ExprFn& fn, Block& b) {
  for (Stmt& st : b) {
    eachField(fn, st.op);
    for (ExprPtr* e : {&st.lo, &st.hi, &st.step, &st.cond}) fn(*e);
    eachField(fn, st.body);
    eachField(fn, st.orelse);
  }
}
}  // namespace

void forEachExprField(Schedule& s, const std::function<void(ExprPtr&)>& fn) {
  for (Pool& p : s.pools) fn(p.bytes);
  for (View& v : s.views) {
    fn(v.offset);
    eachField(fn, v.shape);
  }
  for (Tmem& t : s.tmems) {
    fn(t.cols);
    fn(t.width);
    eachField(fn, t.shape);
  }
  for (Regs& r : s.regs) eachField(fn, r.shape);
  for (RoleBody& b : s.bodies) eachField(fn, b.body);
}

void forEachExprField(Block& b, const std::function<void(ExprPtr&)>& fn) { eachField(fn, b); }

void forEachExprField(const Schedule& s, const std::function<void(const ExprPtr&)>& fn) {
  // (the walk above, its callback given each field read only)
  forEachExprField(const_cast<Schedule&>(s), [&](ExprPtr& e) { fn(e); });
}

}  // namespace cake::ir
