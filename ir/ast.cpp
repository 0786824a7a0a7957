#include "ir/ast.h"

namespace cake::ir {

Finding frontendFinding(std::string_view rule, SourceRange range, std::string message) {
  return makeFinding(ir::rule(rule), std::move(range), std::move(message));
}

}  // namespace cake::ir

namespace cake::ir::ast {

bool equal(const Expr* a, const Expr* b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case ExprKind::Int:
      if (a->overflow != b->overflow) return false;
      if (a->overflow ? a->raw != b->raw : a->ival != b->ival) return false;
      break;
    case ExprKind::Float:
      if (!(a->fval == b->fval) && !(a->fval != a->fval && b->fval != b->fval)) return false;
      break;
    case ExprKind::Str:
    case ExprKind::Name:
    case ExprKind::Attribute:
    case ExprKind::BinOp:
    case ExprKind::UnaryOp:
    case ExprKind::BoolOp:
      if (a->text != b->text) return false;
      break;
    case ExprKind::Compare:
      if (a->ops != b->ops) return false;
      break;
    default:
      break;
  }
  if (a->args.size() != b->args.size() || a->kwargs.size() != b->kwargs.size()) return false;
  for (size_t i = 0; i < a->args.size(); ++i)
    if (!equal(a->args[i].get(), b->args[i].get())) return false;
  for (size_t i = 0; i < a->kwargs.size(); ++i)
    if (a->kwargs[i].name != b->kwargs[i].name || !equal(a->kwargs[i].value.get(), b->kwargs[i].value.get()))
      return false;
  return true;
}

bool equal(const Block& a, const Block& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!equal(*a[i], *b[i])) return false;
  return true;
}

bool equal(const Stmt& a, const Stmt& b) {
  if (a.kind != b.kind || a.target != b.target) return false;
  if (!equal(a.value.get(), b.value.get())) return false;
  if (a.names.size() != b.names.size()) return false;
  for (size_t i = 0; i < a.names.size(); ++i)
    if (a.names[i].name != b.names[i].name || a.names[i].as != b.names[i].as) return false;
  if (a.decorators.size() != b.decorators.size()) return false;
  for (size_t i = 0; i < a.decorators.size(); ++i)
    if (!equal(a.decorators[i].expr.get(), b.decorators[i].expr.get())) return false;
  if (a.params.size() != b.params.size()) return false;
  for (size_t i = 0; i < a.params.size(); ++i)
    if (a.params[i].name != b.params[i].name ||
        !equal(a.params[i].annotation.get(), b.params[i].annotation.get()))
      return false;
  if (!equal(a.body, b.body)) return false;
  if (a.branches.size() != b.branches.size()) return false;
  for (size_t i = 0; i < a.branches.size(); ++i)
    if (!equal(a.branches[i].cond.get(), b.branches[i].cond.get()) || !equal(a.branches[i].body, b.branches[i].body))
      return false;
  return true;
}

bool equal(const Module& a, const Module& b) { return equal(a.body, b.body); }

}  // namespace cake::ir::ast
