// Where a condition may be read as a premise (encoder/defined_premise.h).
#include "encoder/defined_premise.h"

#include <algorithm>
#include <climits>

#include "encoder/bv_prover.h"
#include "ir/expr_build.h"

namespace cake::encoder {

namespace {

using K = ir::ExprKind;
using Wide = __int128;

struct Range {
  Wide lo, hi;
};

bool fits(Wide x) { return x >= INT64_MIN && x <= INT64_MAX; }
std::optional<Range> checked(Wide lo, Wide hi) {
  if (!fits(lo) || !fits(hi)) return std::nullopt;
  return Range{lo, hi};
}

// Python's floor division of values that fit 64 bits (b != 0).
Wide floorDiv(Wide a, Wide b) {
  Wide q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// The bounds the lm.assume facts put on parameters: `param OP constant`
// (or `constant OP param`), each conjunct of an `and`, and of an `or` the
// hull of what both sides bound (`BK == 64 or BK == 128`: [64, 128]). Such
// facts are defined everywhere, so the prover reads them as written. A
// fact counts only where the width argument over the parameters' types
// alone shows it defined: one that may be undefined reads "undefined or
// true", and where it is undefined its conjuncts need not hold
// (`BM * 2**55 > 0 and BM <= 64` allows BM = 1000 so).
class ParamBounds {
 public:
  using Bounds = std::map<int, Range>;
  ParamBounds() = default;
  // `defined(e)`: the width argument without bounds shows e defined.
  template <class Defined>
  ParamBounds(const ir::Schedule& s, Defined defined) {
    for (const ir::Assume& a : s.assumes)
      if (a.cond && defined(*a.cond)) bounds_ = meet(bounds_, of(*a.cond));
  }
  Range of(int param) const {
    auto it = bounds_.find(param);
    return it == bounds_.end() ? Range{INT32_MIN, INT32_MAX} : it->second;
  }

 private:
  static Bounds meet(Bounds a, const Bounds& b) {
    for (const auto& [p, r] : b) {
      auto [it, fresh] = a.try_emplace(p, r);
      if (!fresh) it->second = Range{std::max(it->second.lo, r.lo), std::min(it->second.hi, r.hi)};
    }
    return a;
  }
  static Bounds hull(const Bounds& a, const Bounds& b) {
    Bounds out;
    for (const auto& [p, r] : a)
      if (auto it = b.find(p); it != b.end())
        out[p] = Range{std::min(r.lo, it->second.lo), std::max(r.hi, it->second.hi)};
    return out;
  }
  static Bounds of(const ir::Expr& e) {
    if (e.args.size() != 2 || !e.args[0] || !e.args[1]) return {};
    if (e.kind == K::And) return meet(of(*e.args[0]), of(*e.args[1]));
    if (e.kind == K::Or) return hull(of(*e.args[0]), of(*e.args[1]));
    const ir::Expr *x = e.args[0].get(), *c = e.args[1].get();
    K kind = e.kind;
    if (x->kind == K::Const && c->kind == K::Param) {
      std::swap(x, c);
      switch (kind) {  // c OP p  is  p OP' c
        case K::Lt: kind = K::Gt; break;
        case K::Le: kind = K::Ge; break;
        case K::Gt: kind = K::Lt; break;
        case K::Ge: kind = K::Le; break;
        default: break;
      }
    }
    if (x->kind != K::Param || c->kind != K::Const) return {};
    Range r{INT32_MIN, INT32_MAX};
    const Wide v = c->value;
    switch (kind) {
      case K::Lt: r.hi = v - 1; break;
      case K::Le: r.hi = v; break;
      case K::Gt: r.lo = v + 1; break;
      case K::Ge: r.lo = v; break;
      case K::Eq: r.lo = r.hi = v; break;
      default: return {};
    }
    return {{x->index, r}};
  }
  Bounds bounds_;
};

// The `for` statement of loop variable `var`, or null.
const ir::Stmt* loopIn(const ir::Block& b, int var) {
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::For && st.loop_var == var) return &st;
    if (const ir::Stmt* in = loopIn(st.body, var)) return in;
    if (const ir::Stmt* in = loopIn(st.orelse, var)) return in;
  }
  return nullptr;
}
const ir::Stmt* loopOf(const ir::Schedule& s, int var) {
  for (const ir::RoleBody& body : s.bodies)
    if (const ir::Stmt* st = loopIn(body.body, var)) return st;
  return nullptr;
}

class Width {
 public:
  // Over the parameters' types and the lm.assume bounds.
  explicit Width(const ir::Schedule& s)
      : s_(s), params_(s, [&s](const ir::Expr& e) { return Width(s, ParamBounds{}).of(e).has_value(); }) {}
  Width(const ir::Schedule& s, ParamBounds bounds) : s_(s), params_(std::move(bounds)) {}

  std::optional<Range> of(const ir::Expr& e) const {
    switch (e.kind) {
      case K::Const: return Range{e.value, e.value};
      case K::Param:
        if (e.index < 0 || e.index >= static_cast<int>(s_.params.size()) ||
            s_.params[e.index].type != ir::ParamType::I32)
          return std::nullopt;
        return params_.of(e.index);
      case K::LoopVar: {
        // the values its loop's bounds take (review52: a loop variable is an
        // int64 like every schedule integer; `lm.range(K * 65536, ...)` runs
        // past 32 bits)
        const ir::Stmt* loop = loopOf(s_, e.index);
        // (none: a variable the proofs' copies of the schedule keep after
        // cutting its loop; their own argument bounds it, 32 bits as before)
        if (!loop) return Range{INT32_MIN, INT32_MAX};
        if (!loop->lo || !loop->hi) return std::nullopt;
        const std::optional<Range> lo = of(*loop->lo), hi = of(*loop->hi);
        if (!lo || !hi) return std::nullopt;
        return Range{std::min(lo->lo, hi->lo), std::max(lo->hi, hi->hi)};
      }
      case K::Instance: return Range{0, 1023};
      case K::BlockIdx: return e.index >= 0 && e.index <= 2 ? std::optional<Range>(Range{0, INT32_MAX - 1}) : std::nullopt;
      case K::GridDim: return e.index >= 0 && e.index <= 2 ? std::optional<Range>(Range{1, INT32_MAX}) : std::nullopt;
      default: break;
    }
    std::vector<Range> a;
    for (const ir::ExprPtr& x : e.args) {
      if (!x) return std::nullopt;
      std::optional<Range> r = of(*x);
      if (!r) return std::nullopt;
      a.push_back(*r);
    }
    if (e.kind == K::Neg || e.kind == K::Not) {
      if (a.size() != 1) return std::nullopt;
      return e.kind == K::Neg ? checked(-a[0].hi, -a[0].lo) : std::optional<Range>(Range{0, 1});
    }
    if (a.size() != 2) return std::nullopt;
    return binary(e.kind, a[0], a[1]);
  }

 private:
  // The extremes of +, -, * and floor division (by a divisor of one sign)
  // over two intervals lie at the corners.
  template <class Op>
  static std::optional<Range> corners(const Range& a, const Range& b, Op op) {
    const Wide v[4] = {op(a.lo, b.lo), op(a.lo, b.hi), op(a.hi, b.lo), op(a.hi, b.hi)};
    return checked(*std::min_element(v, v + 4), *std::max_element(v, v + 4));
  }
  static bool nonZero(const Range& b) { return b.lo > 0 || b.hi < 0; }

  static std::optional<Range> binary(K kind, const Range& a, const Range& b) {
    switch (kind) {
      case K::Add: return checked(a.lo + b.lo, a.hi + b.hi);
      case K::Sub: return checked(a.lo - b.hi, a.hi - b.lo);
      case K::Mul: return corners(a, b, [](Wide x, Wide y) { return x * y; });
      case K::FloorDiv:
        if (!nonZero(b)) return std::nullopt;
        return corners(a, b, floorDiv);
      case K::Mod:
        if (!nonZero(b)) return std::nullopt;
        return b.lo > 0 ? Range{0, b.hi - 1} : Range{b.lo + 1, 0};
      case K::CDiv: {  // -((-a) // b)
        if (!nonZero(b) || !checked(-a.hi, -a.lo)) return std::nullopt;
        std::optional<Range> q = corners(Range{-a.hi, -a.lo}, b, floorDiv);
        if (!q) return std::nullopt;
        return checked(-q->hi, -q->lo);
      }
      case K::Min: return Range{std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
      case K::Max: return Range{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
      case K::Lt: case K::Le: case K::Gt: case K::Ge: case K::Eq: case K::Ne: case K::And: case K::Or:
        return Range{0, 1};
      default: return std::nullopt;
    }
  }

  const ir::Schedule& s_;
  ParamBounds params_;
};

std::string keyOf(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& premises) {
  std::string key;
  appendExprKey(key, *e);
  key.push_back('|');
  for (const ir::ExprPtr& p : premises) {
    if (p) appendExprKey(key, *p);
    key.push_back(';');
  }
  return key;
}

}  // namespace

std::optional<WidthRange> widthRange(const ir::Schedule& s, const ir::Expr& e) {
  std::optional<Range> r = Width(s).of(e);
  if (!r) return std::nullopt;
  return WidthRange{static_cast<int64_t>(r->lo), static_cast<int64_t>(r->hi)};
}

bool definedByWidth(const ir::Schedule& s, const ir::Expr& e) { return Width(s).of(e).has_value(); }

std::optional<WidthRange> loopVarRange(const ir::Schedule& s, int var) {
  ir::Expr v;
  v.kind = ir::ExprKind::LoopVar;
  v.index = var;
  return widthRange(s, v);
}

DefinedPremises::DefinedPremises(const ir::Schedule& s, HoldsUnder holds) : s_(s), holds_(std::move(holds)) {}

bool DefinedPremises::byWidth(const ir::ExprPtr& e) {
  auto [it, fresh] = width_.try_emplace(e.get(), false);
  if (fresh) {
    it->second = definedByWidth(s_, *e);
    keep_.push_back(e);
  }
  return it->second;
}

bool DefinedPremises::definedUnder(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& premises) {
  if (!e || byWidth(e)) return true;
  auto [it, fresh] = asked_.try_emplace(keyOf(e, premises), false);
  if (fresh) {
    ++queries_;
    it->second = holds_(ir::build::lor(e, ir::build::lnot(e)), premises);
  }
  return it->second;
}

}  // namespace cake::encoder
