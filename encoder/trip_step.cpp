// encoder/trip_step.h.
#include "encoder/trip_step.h"

namespace cake::encoder::trip {

bool containsExpr(const ir::Expr& e, const ir::Expr& target) {
  return ir::anySubExpr(e, [&](const ir::Expr& x) { return ir::sameExpr(x, target); });
}

std::optional<int64_t> constantStep(const ir::Expr& e, const ir::Expr& target, int64_t P) {
  using K = ir::ExprKind;
  if (ir::sameExpr(e, target)) return P;
  if (!containsExpr(e, target)) return 0;
  auto arg = [&](size_t i) -> std::optional<int64_t> {
    if (i >= e.args.size() || !e.args[i]) return std::nullopt;
    return constantStep(*e.args[i], target, P);
  };
  auto konst = [&](size_t i) -> std::optional<int64_t> {
    return i < e.args.size() && e.args[i] ? ir::constValue(e.args[i]) : std::nullopt;
  };
  int64_t r = 0;
  switch (e.kind) {
    case K::Add: case K::Sub: {
      auto a = arg(0), b = arg(1);
      if (e.args.size() != 2 || !a || !b) return std::nullopt;
      if (e.kind == K::Add ? __builtin_add_overflow(*a, *b, &r) : __builtin_sub_overflow(*a, *b, &r))
        return std::nullopt;
      return r;
    }
    case K::Neg: {
      auto a = arg(0);
      if (e.args.size() != 1 || !a || *a == INT64_MIN) return std::nullopt;
      return -*a;
    }
    case K::Mul: {
      if (e.args.size() != 2) return std::nullopt;
      for (size_t i : {0, 1}) {
        auto c = konst(i);
        auto d = arg(1 - i);
        if (c && d && !__builtin_mul_overflow(*c, *d, &r)) return r;
      }
      return std::nullopt;
    }
    case K::Max: case K::Min: {
      // max(a + d, b + d) = max(a, b) + d
      std::optional<int64_t> d;
      for (size_t i = 0; i < e.args.size(); ++i) {
        auto di = arg(i);
        if (!di || (d && *d != *di)) return std::nullopt;
        d = di;
      }
      return d;
    }
    case K::FloorDiv: case K::Mod: {
      auto c = konst(1);
      auto d = arg(0);
      if (e.args.size() != 2 || !c || *c == 0 || !d || *d % *c != 0) return std::nullopt;
      if (*c == -1 && *d == INT64_MIN) return std::nullopt;
      return e.kind == K::Mod ? 0 : *d / *c;
    }
    default: return std::nullopt;
  }
}

}  // namespace cake::encoder::trip
