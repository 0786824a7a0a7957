#include "ir/int_eval.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace cake::ir {

std::optional<int64_t> floorDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::optional<int64_t> floorMod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;   // a % -1 overflows in C++ for INT64_MIN; Python's is 0
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

std::optional<int64_t> ceilDiv(int64_t a, int64_t b) {
  if (a == INT64_MIN) return std::nullopt;
  auto q = floorDiv(-a, b);
  if (!q || *q == INT64_MIN) return std::nullopt;
  return -*q;
}

bool isIntOperator(ExprKind k) {
  switch (k) {
    case ExprKind::Const: case ExprKind::Param: case ExprKind::LoopVar: case ExprKind::BlockIdx:
    case ExprKind::GridDim: case ExprKind::Instance:
      return false;
    default:
      return true;
  }
}

std::optional<int64_t> applyIntOp(ExprKind k, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (k) {
    case ExprKind::Neg: if (a == INT64_MIN) return std::nullopt; return -a;
    case ExprKind::Not: return a == 0;
    case ExprKind::Add: if (__builtin_add_overflow(a, b, &r)) return std::nullopt; return r;
    case ExprKind::Sub: if (__builtin_sub_overflow(a, b, &r)) return std::nullopt; return r;
    case ExprKind::Mul: if (__builtin_mul_overflow(a, b, &r)) return std::nullopt; return r;
    case ExprKind::FloorDiv: return floorDiv(a, b);
    case ExprKind::Mod: return floorMod(a, b);
    case ExprKind::CDiv: return ceilDiv(a, b);
    case ExprKind::Min: return std::min(a, b);
    case ExprKind::Max: return std::max(a, b);
    case ExprKind::Lt: return a < b;
    case ExprKind::Le: return a <= b;
    case ExprKind::Gt: return a > b;
    case ExprKind::Ge: return a >= b;
    case ExprKind::Eq: return a == b;
    case ExprKind::Ne: return a != b;
    case ExprKind::And: return (a != 0) && (b != 0);
    case ExprKind::Or: return (a != 0) || (b != 0);
    case ExprKind::Const: case ExprKind::Param: case ExprKind::LoopVar: case ExprKind::BlockIdx:
    case ExprKind::GridDim: case ExprKind::Instance:
      break;
  }
  throw std::logic_error("applyIntOp: not an operator");
}

}  // namespace cake::ir
