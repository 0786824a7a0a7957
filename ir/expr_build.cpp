#include "ir/expr_build.h"

namespace cake::ir::build {

bool isConst(const ExprPtr& e, int64_t* v) {
  if (!e || e->kind != ExprKind::Const) return false;
  if (v) *v = e->value;
  return true;
}

ExprPtr lit(int64_t v) { return makeConst(v); }

// An operator node, folded when both operands are constants.
static ExprPtr foldedBinary(ExprKind k, ExprPtr a, ExprPtr b) {
  ExprPtr e = makeExpr(k, {std::move(a), std::move(b)});
  if (isConst(e->args[0]) && isConst(e->args[1])) {
    if (auto v = evaluate(*e, EvalEnv{})) return lit(*v);
  }
  return e;
}

ExprPtr add(ExprPtr a, ExprPtr b) {
  if (isConst(b) && b->value == 0) return a;
  if (isConst(a) && a->value == 0) return b;
  return foldedBinary(ExprKind::Add, std::move(a), std::move(b));
}
ExprPtr sub(ExprPtr a, ExprPtr b) {
  if (isConst(b) && b->value == 0) return a;
  return foldedBinary(ExprKind::Sub, std::move(a), std::move(b));
}
ExprPtr mul(ExprPtr a, ExprPtr b) {
  if (isConst(a) && a->value == 1) return b;
  if (isConst(b) && b->value == 1) return a;
  return foldedBinary(ExprKind::Mul, std::move(a), std::move(b));
}
ExprPtr fdiv(ExprPtr a, ExprPtr b) {
  if (isConst(b) && b->value == 1) return a;
  return foldedBinary(ExprKind::FloorDiv, std::move(a), std::move(b));
}
ExprPtr mod(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Mod, std::move(a), std::move(b)); }
ExprPtr cdiv(ExprPtr a, ExprPtr b) {
  if (isConst(b) && b->value == 1) return a;
  return foldedBinary(ExprKind::CDiv, std::move(a), std::move(b));
}
ExprPtr min(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Min, std::move(a), std::move(b)); }
ExprPtr max(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Max, std::move(a), std::move(b)); }
ExprPtr lt(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Lt, std::move(a), std::move(b)); }
ExprPtr le(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Le, std::move(a), std::move(b)); }
ExprPtr ge(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Ge, std::move(a), std::move(b)); }
ExprPtr gt(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Gt, std::move(a), std::move(b)); }
ExprPtr eq(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Eq, std::move(a), std::move(b)); }
ExprPtr ne(ExprPtr a, ExprPtr b) { return foldedBinary(ExprKind::Ne, std::move(a), std::move(b)); }
ExprPtr land(ExprPtr a, ExprPtr b) {
  int64_t v;
  if (isConst(a, &v)) return v ? (isConst(b) ? lit(b->value != 0) : b) : lit(0);
  if (isConst(b, &v) && v) return a;
  return foldedBinary(ExprKind::And, std::move(a), std::move(b));
}
ExprPtr lor(ExprPtr a, ExprPtr b) {
  int64_t v;
  if (isConst(a, &v)) return v ? lit(1) : (isConst(b) ? lit(b->value != 0) : b);
  if (isConst(b, &v) && !v) return a;
  return foldedBinary(ExprKind::Or, std::move(a), std::move(b));
}
ExprPtr lnot(ExprPtr a) {
  int64_t v;
  if (isConst(a, &v)) return lit(v == 0);
  return makeExpr(ExprKind::Not, {std::move(a)});
}
ExprPtr alignUp(ExprPtr e, int64_t a) {
  if (a <= 1) return e;
  return mul(fdiv(add(std::move(e), lit(a - 1)), lit(a)), lit(a));
}
ExprPtr product(const std::vector<ExprPtr>& xs) {
  ExprPtr p = lit(1);
  for (const auto& x : xs) p = mul(p, x ? x : lit(0));
  return p;
}
ExprPtr allOf(const std::vector<ExprPtr>& xs) {
  ExprPtr p = lit(1);
  for (const auto& x : xs) p = land(p, x);
  return p;
}
ExprPtr anyOf(const std::vector<ExprPtr>& xs) {
  ExprPtr p = lit(0);
  for (const auto& x : xs) p = lor(p, x);
  return p;
}

}  // namespace cake::ir::build
