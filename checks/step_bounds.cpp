#include "checks/step_bounds.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace cake::checks {
namespace {

using ir::Expr;
using ir::ExprKind;
using Wide = __int128;

constexpr Wide kLimit = Span::kFiniteLimit;
constexpr Wide kMinusInf = -kLimit - 1;
constexpr Wide kPlusInf = kLimit + 1;

Wide floorDiv(Wide a, Wide b) {
  Wide q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
Wide ceilDiv(Wide a, Wide b) { return -floorDiv(-a, b); }

// Each end on its own side of an exact sum or product: -inf stays -inf.
Span add(const Span& a, const Span& b) {
  return Span::of(a.loFinite() && b.loFinite() ? a.lo + b.lo : kMinusInf,
                  a.hiFinite() && b.hiFinite() ? a.hi + b.hi : kPlusInf);
}
Span negate(const Span& a) {
  return Span::of(a.hiFinite() ? -a.hi : kMinusInf, a.loFinite() ? -a.lo : kPlusInf);
}
Span multiply(const Span& a, const Span& b) {
  if ((a.single() && a.lo == 0) || (b.single() && b.lo == 0)) return Span::point(0);
  if (!a.finite() || !b.finite()) return Span::all();
  const Wide c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};  // (|ends| <= 2^62: no overflow)
  return Span::of(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
}
Span hull(const Span& a, const Span& b) { return Span::of(std::min(a.lo, b.lo), std::max(a.hi, b.hi)); }
Span meet(const Span& a, const Span& b) { return Span::of(std::max(a.lo, b.lo), std::min(a.hi, b.hi)); }
bool excludesZero(const Span& a) { return !a.contains(0); }
bool isZero(const Span& a) { return a.single() && a.lo == 0; }

Wide floorMod(Wide a, Wide b) { return a - b * floorDiv(a, b); }
Wide gcdOf(Wide a, Wide b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const Wide t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// ---- residue classes m Z + r (m = 0: r alone; m = 1: every integer)

struct Class {
  Wide m = 1, r = 0;
};
Class classOf(Wide m, Wide r) {
  if (m < 0) m = -m;
  if (m > kLimit || r > kLimit || r < -kLimit) return {};  // (too large to follow: every integer)
  if (m == 1) return {};
  return {m, m == 0 ? r : floorMod(r, m)};
}
Class addClass(const Class& a, const Class& b) { return classOf(gcdOf(a.m, b.m), a.r + b.r); }
Class negClass(const Class& a) { return classOf(a.m, -a.r); }
// (m1 Z + r1)(m2 Z + r2) lies in gcd(m1 m2, m1 r2, m2 r1) Z + r1 r2
Class mulClass(const Class& a, const Class& b) {
  return classOf(gcdOf(gcdOf(a.m * b.m, a.m * b.r), b.m * a.r), a.r * b.r);
}
// min and max take one of the two: a class holding both
Class eitherClass(const Class& a, const Class& b) { return classOf(gcdOf(gcdOf(a.m, b.m), a.r - b.r), a.r); }
// f // k: k dividing the modulus keeps a class, (m t + r) // k = (m / k) t + r // k
Class floorDivClass(const Class& a, Wide k) {
  if (a.m % k != 0) return {};
  return classOf(a.m / k, floorDiv(a.r, k));
}
// f % k = f - k (f // k): the class modulo gcd(m, k); k dividing m: one value
Class modClass(const Class& a, Wide k) {
  if (a.m % k == 0) return classOf(0, floorMod(a.r, k));
  const Wide g = gcdOf(a.m, k);
  return classOf(g, a.r);
}

PartBounds bounds(const Span& value, const Span& step, const Class& c = {}) {
  PartBounds b{value, step};
  b.modulus = c.m;
  b.residue = c.r;
  return b;
}
Class classOf(const PartBounds& b) { return {b.modulus, b.residue}; }

// A part's bounds where its value is fixed: no step.
PartBounds constant(const Span& v) { return bounds(v, Span::point(0)); }
PartBounds truthOf(std::optional<bool> decided) {
  if (decided) return constant(Span::point(*decided ? 1 : 0));
  return bounds(Span::of(0, 1), Span::of(-1, 1));
}

// f // k for one nonzero k: monotone in f. The step: floor(u) - floor(w) is
// floor(u - w) or ceil(u - w), so a step of f in [c, d] gives one in
// [floor(min(c/k, d/k)), ceil(max(c/k, d/k))].
PartBounds floorDivBy(const PartBounds& f, Wide k) {
  const Span& v = f.value;
  const Span& s = f.step;
  const Class c = floorDivClass(classOf(f), k);
  if (k > 0)
    return bounds(Span::of(v.loFinite() ? floorDiv(v.lo, k) : kMinusInf, v.hiFinite() ? floorDiv(v.hi, k) : kPlusInf),
                  Span::of(s.loFinite() ? floorDiv(s.lo, k) : kMinusInf, s.hiFinite() ? ceilDiv(s.hi, k) : kPlusInf), c);
  return bounds(Span::of(v.hiFinite() ? floorDiv(v.hi, k) : kMinusInf, v.loFinite() ? floorDiv(v.lo, k) : kPlusInf),
                Span::of(s.hiFinite() ? floorDiv(s.hi, k) : kMinusInf, s.loFinite() ? ceilDiv(s.lo, k) : kPlusInf), c);
}
// f % k = f - k * (f // k), Python's sign (that of k): in [0, k - 1] for k
// > 0, [k + 1, 0] for k < 0, and f shifted by one multiple of k where f
// stays inside one quotient.
PartBounds modBy(const PartBounds& f, Wide k) {
  const PartBounds q = floorDivBy(f, k);
  Span value = k > 0 ? Span::of(0, k - 1) : Span::of(k + 1, 0);
  if (q.value.single()) value = meet(value, add(f.value, Span::point(-k * q.value.lo)));
  const Wide most = (k > 0 ? k : -k) - 1;
  Span step = meet(add(f.step, multiply(Span::point(-k), q.step)), Span::of(-most, most));
  return bounds(value, step, modClass(classOf(f), k));
}

std::optional<bool> compare(ExprKind k, const Span& a, const Span& b) {
  switch (k) {
    case ExprKind::Lt:
      if (a.hi < b.lo) return true;
      if (a.lo >= b.hi) return false;
      break;
    case ExprKind::Le:
      if (a.hi <= b.lo) return true;
      if (a.lo > b.hi) return false;
      break;
    case ExprKind::Gt: return compare(ExprKind::Lt, b, a);
    case ExprKind::Ge: return compare(ExprKind::Le, b, a);
    case ExprKind::Eq:
    case ExprKind::Ne: {
      std::optional<bool> eq;
      if (a.hi < b.lo || b.hi < a.lo) eq = false;
      else if (a.single() && b.single() && a.lo == b.lo) eq = true;
      if (eq && k == ExprKind::Ne) eq = !*eq;
      return eq;
    }
    default: break;
  }
  return std::nullopt;
}
// (comparisons need finite ends to decide: an infinite end compares as a
// value past every finite one, which is what it stands for)

class Bounder {
 public:
  Bounder(int p, const Span& xs, const ir::EvalEnv& at) : p_(p), xs_(xs), at_(at) {}

  std::optional<PartBounds> of(const Expr& e) const {
    std::optional<PartBounds> b = raw(e);
    if (!b) return std::nullopt;
    narrowToClass(*b);
    // A value fixed over the span has no step; a step is never wider than
    // the values allow.
    if (b->value.single()) b->step = Span::point(0);
    else if (b->value.finite()) b->step = meet(b->step, Span::of(b->value.lo - b->value.hi, b->value.hi - b->value.lo));
    if (!ir::readsSymbol(e, ExprKind::Param, p_)) b->step = Span::point(0);  // (the same symbols at x and x + 1)
    return b;
  }

 private:
  int p_;
  Span xs_;
  const ir::EvalEnv& at_;

  // The span's ends moved in to the nearest values of the class; a class
  // of one value the span's only value.
  static void narrowToClass(PartBounds& b) {
    Span& v = b.value;
    if (b.modulus == 0) {
      v = meet(v, Span::point(b.residue));
    } else if (b.modulus > 1) {
      if (v.loFinite()) v.lo += floorMod(b.residue - v.lo, b.modulus);
      if (v.hiFinite()) v.hi -= floorMod(v.hi - b.residue, b.modulus);
    }
    if (v.single()) {
      b.modulus = 0;
      b.residue = v.lo;
    }
  }

  std::optional<PartBounds> leaf(const Expr& e) const {
    auto fixed = [](const std::optional<int64_t>& v) -> std::optional<PartBounds> {
      if (!v) return std::nullopt;
      return constant(Span::point(*v));
    };
    switch (e.kind) {
      case ExprKind::Const: return constant(Span::point(e.value));
      case ExprKind::Param: {
        if (e.index == p_) return bounds(xs_, Span::point(1));
        auto it = at_.params.find(e.index);
        return fixed(it == at_.params.end() ? std::nullopt : std::optional<int64_t>(it->second));
      }
      case ExprKind::BlockIdx:
      case ExprKind::GridDim:
        if (e.index < 0 || e.index > 2) return std::nullopt;
        return fixed(e.kind == ExprKind::BlockIdx ? at_.block_idx[e.index] : at_.grid_dim[e.index]);
      case ExprKind::Instance: return constant(Span::of(0, 1023));
      default: return std::nullopt;  // a loop variable: free to the solver
    }
  }

  // The one nonzero value of a divisor that does not read p, if it has one.
  std::optional<Wide> divisor(const Expr& d) const {
    std::optional<PartBounds> b = of(d);
    if (!b || !b->value.single() || b->value.lo == 0) return std::nullopt;
    return b->value.lo;
  }

  std::optional<PartBounds> raw(const Expr& e) const {
    if (e.args.empty()) return leaf(e);
    for (const ir::ExprPtr& a : e.args)
      if (!a) return std::nullopt;
    if (e.kind == ExprKind::Neg || e.kind == ExprKind::Not) {
      if (e.args.size() != 1) return std::nullopt;
      std::optional<PartBounds> a = of(*e.args[0]);
      if (!a) return std::nullopt;
      if (e.kind == ExprKind::Neg) return bounds(negate(a->value), negate(a->step), negClass(classOf(*a)));
      return truthOf(isZero(a->value) ? std::optional<bool>(true)
                                      : excludesZero(a->value) ? std::optional<bool>(false) : std::nullopt);
    }
    if (e.args.size() != 2) return std::nullopt;
    std::optional<PartBounds> a = of(*e.args[0]), b = of(*e.args[1]);
    switch (e.kind) {
      case ExprKind::FloorDiv:
      case ExprKind::Mod:
      case ExprKind::CDiv: {
        const std::optional<Wide> k = divisor(*e.args[1]);
        if (!a || !k) return std::nullopt;
        if (e.kind == ExprKind::FloorDiv) return floorDivBy(*a, *k);
        if (e.kind == ExprKind::Mod) return modBy(*a, *k);
        // cdiv(f, k) = -((-f) // k)
        const PartBounds q = floorDivBy(bounds(negate(a->value), negate(a->step), negClass(classOf(*a))), *k);
        return bounds(negate(q.value), negate(q.step), negClass(classOf(q)));
      }
      case ExprKind::And:
      case ExprKind::Or: {
        // Short-circuit: the second operand is read (and defined) only
        // where the first does not decide.
        if (!a) return std::nullopt;
        const bool is_and = e.kind == ExprKind::And;
        if (is_and ? isZero(a->value) : excludesZero(a->value)) return truthOf(!is_and);
        if (!b) return std::nullopt;
        if (is_and ? isZero(b->value) : excludesZero(b->value)) return truthOf(!is_and);
        if (is_and ? excludesZero(a->value) && excludesZero(b->value) : isZero(a->value) && isZero(b->value))
          return truthOf(is_and);
        return truthOf(std::nullopt);
      }
      default: break;
    }
    if (!a || !b) return std::nullopt;
    switch (e.kind) {
      case ExprKind::Add:
        return bounds(add(a->value, b->value), add(a->step, b->step), addClass(classOf(*a), classOf(*b)));
      case ExprKind::Sub:
        return bounds(add(a->value, negate(b->value)), add(a->step, negate(b->step)),
                      addClass(classOf(*a), negClass(classOf(*b))));
      case ExprKind::Mul:
        // (fg)(x+1) - (fg)(x) = f'(x) g(x+1) + f(x) g'(x)
        return bounds(multiply(a->value, b->value), add(multiply(a->step, b->value), multiply(a->value, b->step)),
                      mulClass(classOf(*a), classOf(*b)));
      case ExprKind::Min:
      case ExprKind::Max: {
        // min(f, g) steps by at least the least of the two steps and at most
        // the largest (likewise max).
        const bool is_min = e.kind == ExprKind::Min;
        const Span v = is_min ? Span::of(std::min(a->value.lo, b->value.lo), std::min(a->value.hi, b->value.hi))
                              : Span::of(std::max(a->value.lo, b->value.lo), std::max(a->value.hi, b->value.hi));
        return bounds(v, hull(a->step, b->step), eitherClass(classOf(*a), classOf(*b)));
      }
      case ExprKind::Lt: case ExprKind::Le: case ExprKind::Gt: case ExprKind::Ge:
      case ExprKind::Eq: case ExprKind::Ne:
        return truthOf(compare(e.kind, a->value, b->value));
      default: return std::nullopt;
    }
  }
};

// ---- facts

bool readsOnlyFixedSymbols(const Expr& e) {
  return !ir::exprUses(e, {ExprKind::LoopVar, ExprKind::Instance});
}
// Sums of constants, parameters, block indices and grid sizes and their
// products with constants.
bool affineLeaves(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Const: case ExprKind::Param: case ExprKind::BlockIdx: case ExprKind::GridDim: return true;
    case ExprKind::Neg: case ExprKind::Add: case ExprKind::Sub:
      return !e.args.empty() && std::all_of(e.args.begin(), e.args.end(), [](const ir::ExprPtr& a) { return a && affineLeaves(*a); });
    case ExprKind::Mul:
      return e.args.size() == 2 && e.args[0] && e.args[1] && affineLeaves(*e.args[0]) && affineLeaves(*e.args[1]) &&
             (ir::constValue(e.args[0]) || ir::constValue(e.args[1]));
    default: return false;
  }
}
// a and b with e = a * x + b for every x (e affine, evaluated at x = 0 and
// 1 with the other symbols at `at`); nullopt where an evaluation fails.
std::optional<std::pair<Wide, Wide>> slopeOf(const Expr& e, int p, const ir::EvalEnv& at) {
  if (!affineLeaves(e)) return std::nullopt;
  ir::EvalEnv env = at;
  env.params[p] = 0;
  const std::optional<int64_t> v0 = ir::evaluate(e, env);
  env.params[p] = 1;
  const std::optional<int64_t> v1 = ir::evaluate(e, env);
  if (!v0 || !v1) return std::nullopt;
  return std::make_pair(Wide(*v1) - *v0, Wide(*v0));
}

// x's span under `a * x (kind) t` (kind one of Le, Ge, Eq).
Span linearSpan(Wide a, ExprKind kind, Wide t) {
  if (a == 0) {
    const bool holds = kind == ExprKind::Le ? 0 <= t : kind == ExprKind::Ge ? 0 >= t : t == 0;
    return holds ? Span::all() : Span::of(1, 0);
  }
  if (kind == ExprKind::Eq) return t % a == 0 ? Span::point(t / a) : Span::of(1, 0);
  const bool upper = (kind == ExprKind::Le) == (a > 0);  // a x <= t with a > 0: x <= t / a
  return upper ? Span::of(kMinusInf, floorDiv(t, a)) : Span::of(ceilDiv(t, a), kPlusInf);
}

// The span of x a comparison `l (kind) r` with l - r affine in p allows.
std::optional<Span> comparisonSpan(const Expr& fact, int p, const ir::EvalEnv& at) {
  if (fact.args.size() != 2 || !fact.args[0] || !fact.args[1]) return std::nullopt;
  const ir::ExprPtr diff = ir::makeExpr(ExprKind::Sub, {fact.args[0], fact.args[1]});
  const auto ab = slopeOf(*diff, p, at);
  if (!ab) return std::nullopt;
  const auto [a, b] = *ab;  // a x + b (kind) 0
  switch (fact.kind) {
    case ExprKind::Lt: return linearSpan(a, ExprKind::Le, -b - 1);
    case ExprKind::Le: return linearSpan(a, ExprKind::Le, -b);
    case ExprKind::Gt: return linearSpan(a, ExprKind::Ge, -b + 1);
    case ExprKind::Ge: return linearSpan(a, ExprKind::Ge, -b);
    case ExprKind::Eq: return linearSpan(a, ExprKind::Eq, -b);
    default: return std::nullopt;
  }
}

// The period in p of a comparison whose p-dependence is one residue of an
// affine expression by a fixed modulus (`(K + 1) % 4 == 0`: 4): a x + b
// and a (x + m) + b have one residue mod m.
std::optional<Wide> residuePeriod(const Expr& fact, int p, const ir::EvalEnv& at) {
  if (!isComparison(fact.kind) || fact.args.size() != 2 || !fact.args[0] || !fact.args[1]) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const Expr& mod = *fact.args[side];
    const Expr& other = *fact.args[1 - side];
    if (ir::readsSymbol(other, ExprKind::Param, p) || mod.kind != ExprKind::Mod || mod.args.size() != 2 ||
        !mod.args[0] || !mod.args[1] || ir::readsSymbol(*mod.args[1], ExprKind::Param, p) ||
        !slopeOf(*mod.args[0], p, at))
      continue;
    const std::optional<int64_t> m = ir::evaluate(*mod.args[1], at);
    if (m && *m != 0) return Wide(*m < 0 ? -*m : *m);
  }
  return std::nullopt;
}

constexpr Wide kLongestPeriod = 4096;  // residue facts whose periods' lcm passes it are not read

// Every fact an And of facts holds for.
void conjuncts(const ir::ExprPtr& e, std::vector<const Expr*>& out) {
  if (!e) return;
  if (e->kind == ExprKind::And && e->args.size() == 2) {
    conjuncts(e->args[0], out);
    conjuncts(e->args[1], out);
    return;
  }
  out.push_back(e.get());
}

// ---- repeats: e(x + length) = e(x) + shift for every integer x

// The exact repeat of an expression in p over unbounded integers: `c *
// lm.cdiv(K, 64) + K // 64` gains c + 1 every 64 values of K, `K % 64 != 0`
// repeats every 64 (shift 0). Each operation keeps one: a sum the least
// common length, `f // k` (and `%`, lm.cdiv) the least multiple of the
// length over which f's shift is a multiple of k, min, max and comparisons
// operands that gain alike.
struct Repeat {
  Wide length = 1;
  Wide shift = 0;
};

class Repeats {
 public:
  Repeats(int p, const ir::EvalEnv& at) : p_(p), at_(at) {}

  // nullopt: not worked out (a loop variable, lm.instance(), a divisor that
  // reads p or is 0, a product of two factors that read p, min, max or a
  // comparison of operands that gain unlike, a length past kLongest).
  std::optional<Repeat> of(const Expr& e) const {
    if (!ir::readsSymbol(e, ExprKind::Param, p_)) {
      if (!fixedValue(e)) return std::nullopt;
      return Repeat{};
    }
    if (e.kind == ExprKind::Param) return e.index == p_ ? std::optional<Repeat>(Repeat{1, 1}) : std::nullopt;
    for (const ir::ExprPtr& a : e.args)
      if (!a) return std::nullopt;
    if ((e.kind == ExprKind::Neg || e.kind == ExprKind::Not) && e.args.size() == 1) {
      const std::optional<Repeat> a = of(*e.args[0]);
      if (!a || (e.kind == ExprKind::Not && a->shift != 0)) return std::nullopt;
      return Repeat{a->length, e.kind == ExprKind::Neg ? -a->shift : 0};
    }
    if (e.args.size() != 2) return std::nullopt;
    switch (e.kind) {
      case ExprKind::FloorDiv: case ExprKind::Mod: case ExprKind::CDiv: return quotient(e);
      case ExprKind::Mul: return product(e);
      default: break;
    }
    const std::optional<Repeat> a = of(*e.args[0]), b = of(*e.args[1]);
    if (!a || !b) return std::nullopt;
    const Wide length = a->length / gcdOf(a->length, b->length) * b->length;
    if (length > kLongest) return std::nullopt;
    const Wide sa = a->shift * (length / a->length), sb = b->shift * (length / b->length);
    switch (e.kind) {
      case ExprKind::Add: return checked(length, sa + sb);
      case ExprKind::Sub: return checked(length, sa - sb);
      case ExprKind::Min: case ExprKind::Max:
        if (sa != sb) return std::nullopt;
        return checked(length, sa);
      case ExprKind::And: case ExprKind::Or:
        if (sa != 0 || sb != 0) return std::nullopt;
        return Repeat{length, 0};
      default:
        if (!isComparison(e.kind) || sa != sb) return std::nullopt;
        return Repeat{length, 0};
    }
  }

  static constexpr Wide kLongest = 4096;

 private:
  int p_;
  const ir::EvalEnv& at_;

  std::optional<int64_t> fixedValue(const Expr& e) const {
    if (!readsOnlyFixedSymbols(e)) return std::nullopt;
    return ir::evaluate(e, at_);
  }
  static std::optional<Repeat> checked(Wide length, Wide shift) {
    if (shift > kLimit || shift < -kLimit) return std::nullopt;
    return Repeat{length, shift};
  }
  // f // k, f % k, lm.cdiv(f, k): over m lengths f gains m s; with k
  // dividing m s, (f + m s) // k = f // k + m s / k (likewise lm.cdiv),
  // and (f + m s) % k = f % k.
  std::optional<Repeat> quotient(const Expr& e) const {
    if (ir::readsSymbol(*e.args[1], ExprKind::Param, p_)) return std::nullopt;
    const std::optional<int64_t> k = fixedValue(*e.args[1]);
    const std::optional<Repeat> f = of(*e.args[0]);
    if (!k || *k == 0 || !f) return std::nullopt;
    const Wide m = (*k < 0 ? -Wide(*k) : Wide(*k)) / gcdOf(f->shift, *k);
    if (f->length * m > kLongest) return std::nullopt;
    return Repeat{f->length * m, e.kind == ExprKind::Mod ? 0 : f->shift * m / *k};
  }
  std::optional<Repeat> product(const Expr& e) const {
    for (int side = 0; side < 2; ++side) {
      if (ir::readsSymbol(*e.args[side], ExprKind::Param, p_)) continue;
      const std::optional<int64_t> c = fixedValue(*e.args[side]);
      const std::optional<Repeat> f = of(*e.args[1 - side]);
      if (!c || !f) return std::nullopt;
      return checked(f->length, f->shift * *c);
    }
    return std::nullopt;
  }
};

// The conjuncts of `facts` that read p and repeat in it with shift 0 (the
// others, a fixed one included, are not read here), their lengths' least
// common multiple folded into `length`; a fact that would take it past
// Repeats::kLongest is left out (more values allowed, never fewer).
std::vector<const Expr*> repeatingFacts(const Repeats& repeats, const std::vector<ir::ExprPtr>& facts, int p,
                                        Wide& length) {
  std::vector<const Expr*> all, repeating;
  for (const ir::ExprPtr& f : facts) conjuncts(f, all);
  for (const Expr* f : all) {
    if (!ir::readsSymbol(*f, ExprKind::Param, p)) continue;
    const std::optional<Repeat> r = repeats.of(*f);
    if (!r || r->shift != 0) continue;
    const Wide l = length / gcdOf(length, r->length) * r->length;
    if (l > Repeats::kLongest) continue;
    length = l;
    repeating.push_back(f);
  }
  return repeating;
}

}  // namespace

Span Span::of(__int128 lo, __int128 hi) {
  Span s;
  s.lo = lo < -kFiniteLimit || lo > kFiniteLimit ? -kFiniteLimit - 1 : lo;  // (a huge lower end: weakened)
  s.hi = hi > kFiniteLimit || hi < -kFiniteLimit ? kFiniteLimit + 1 : hi;
  return s;
}

bool PartBounds::allows(__int128 v) const {
  if (!value.contains(v)) return false;
  if (modulus == 0) return v == residue;
  return modulus == 1 || floorMod(v - residue, modulus) == 0;
}

std::optional<PartBounds> partBounds(const ir::Expr& e, int p, const Span& xs, const ir::EvalEnv& at) {
  if (xs.empty()) return std::nullopt;
  return Bounder(p, xs, at).of(e);
}

std::optional<Span> allowedSpan(const std::vector<ir::ExprPtr>& facts, int p, Span xs, const ir::EvalEnv& at) {
  std::vector<const Expr*> all;
  for (const ir::ExprPtr& f : facts) conjuncts(f, all);
  std::vector<const Expr*> periodic;
  Wide period = 1;
  for (const Expr* f : all) {
    if (!readsOnlyFixedSymbols(*f)) continue;
    if (!ir::readsSymbol(*f, ExprKind::Param, p)) {
      // fixed by the other symbols: false there, no value of p helps
      if (std::optional<int64_t> v = ir::evaluate(*f, at); v && *v == 0) return std::nullopt;
      continue;
    }
    if (std::optional<Span> s = comparisonSpan(*f, p, at)) xs = meet(xs, *s);
    else if (std::optional<Wide> m = residuePeriod(*f, p, at)) {
      const Wide l = period / std::gcd(static_cast<int64_t>(period), static_cast<int64_t>(*m)) * *m;
      if (l > kLongestPeriod) continue;
      period = l;
      periodic.push_back(f);
    }
    if (xs.empty()) return std::nullopt;
  }
  if (!xs.finite()) return xs;
  // The residue facts repeat every `period` values: the first and the last
  // value of the span that satisfies them are within one period of its ends.
  ir::EvalEnv env = at;
  auto satisfies = [&](Wide x) {
    env.params[p] = static_cast<int64_t>(x);
    for (const Expr* f : periodic)
      if (std::optional<int64_t> v = ir::evaluate(*f, env); v && *v == 0) return false;  // (unknown: kept)
    return true;
  };
  std::optional<Wide> first, last;
  for (Wide x = xs.lo; x <= xs.hi && x < xs.lo + period && !first; ++x)
    if (satisfies(x)) first = x;
  if (!first) return std::nullopt;
  for (Wide x = xs.hi; x >= *first && x > xs.hi - period && !last; --x)
    if (satisfies(x)) last = x;
  return Span::of(*first, *last);
}

namespace {

using Gaps = std::set<std::pair<int64_t, int64_t>>;

// The (below, above) gaps of the values in `allowed` (ascending) that have
// an allowed value on both sides, each seen `length` apart where the
// values repeat (`length` > 0: allowed[0] + length follows the last), but
// (1, 1).
Gaps gapsBetween(const std::vector<Wide>& allowed, Wide length) {
  Gaps gaps;
  const size_t n = allowed.size();
  for (size_t i = 0; i < n; ++i) {
    if (length == 0 && (i == 0 || i + 1 == n)) continue;  // (an end: no value beyond it)
    const Wide below = i > 0 ? allowed[i] - allowed[i - 1] : allowed[0] + length - allowed[n - 1];
    const Wide above = i + 1 < n ? allowed[i + 1] - allowed[i] : allowed[0] + length - allowed[i];
    if (below > 1 || above > 1) gaps.insert({static_cast<int64_t>(below), static_cast<int64_t>(above)});
  }
  return gaps;
}

// Whether every fact of `facts` holds at p = x (one that does not evaluate
// is kept).
bool holdsAt(const std::vector<const Expr*>& facts, ir::EvalEnv& env, int p, Wide x) {
  env.params[p] = static_cast<int64_t>(x);
  return std::all_of(facts.begin(), facts.end(), [&](const Expr* f) {
    const std::optional<int64_t> v = ir::evaluate(*f, env);
    return !v || *v != 0;
  });
}

constexpr Wide kGapScan = Wide(1) << 16;  // the most values of p walked where a fact neither bounds nor repeats
constexpr size_t kMostGaps = 64;          // the most gap pairs returned from such a walk

}  // namespace

std::optional<std::set<std::pair<int64_t, int64_t>>> allowedGaps(const std::vector<ir::ExprPtr>& facts, int p,
                                                                  const ir::EvalEnv& at) {
  const Repeats repeats(p, at);
  // Each conjunct that reads p: a comparison affine in p (a span: no gap
  // inside it), one that repeats (shift 0, over at most Repeats::kLongest
  // values with the others), or neither (irregular: `P % 7 == 0 or P < 10`,
  // `P * P % 7 == 0`, `P != 693`, a residue of a longer period). The
  // irregular ones leave gaps no length shows (attack53: a step at P = 693
  // under each of those exited 0 *checked*), so the values allowed are then
  // walked one by one where the span is short, and else not worked out.
  std::vector<const Expr*> all, repeating, reading;
  for (const ir::ExprPtr& f : facts) conjuncts(f, all);
  Wide length = 1;
  bool irregular = false;
  for (const Expr* f : all) {
    if (!ir::readsSymbol(*f, ExprKind::Param, p)) continue;
    reading.push_back(f);
    if (comparisonSpan(*f, p, at)) continue;
    const std::optional<Repeat> r = repeats.of(*f);
    const Wide l = r && r->shift == 0 ? length / gcdOf(length, r->length) * r->length : Repeats::kLongest + 1;
    if (l > Repeats::kLongest) {
      irregular = true;
      continue;
    }
    length = l;
    repeating.push_back(f);
  }
  ir::EvalEnv env = at;
  std::vector<Wide> allowed;
  if (!irregular) {
    if (repeating.empty()) return Gaps{};
    for (Wide x = 0; x < length; ++x)
      if (holdsAt(repeating, env, p, x)) allowed.push_back(x);
    return gapsBetween(allowed, length);
  }
  const std::optional<Span> xs = allowedSpan(facts, p, Span::of(INT32_MIN, INT32_MAX), at);
  if (!xs) return Gaps{};
  if (!xs->finite() || xs->hi - xs->lo >= kGapScan) return std::nullopt;
  for (Wide x = xs->lo; x <= xs->hi; ++x)
    if (holdsAt(reading, env, p, x)) allowed.push_back(x);
  Gaps gaps = gapsBetween(allowed, 0);
  if (gaps.size() > kMostGaps) return std::nullopt;
  return gaps;
}

bool isComparison(ExprKind k) {
  return k == ExprKind::Lt || k == ExprKind::Le || k == ExprKind::Gt || k == ExprKind::Ge || k == ExprKind::Eq ||
         k == ExprKind::Ne;
}

std::optional<std::set<std::pair<int64_t, int64_t>>> bendsOver(const ir::Expr& e, const std::vector<ir::ExprPtr>& facts,
                                                                int p, const Span& xs, const ir::EvalEnv& at,
                                                                int64_t below, int64_t above) {
  if (xs.empty() || !xs.finite()) return std::nullopt;
  const Repeats repeats(p, at);
  const std::optional<Repeat> part = repeats.of(e);
  if (!part) return std::nullopt;
  // The facts that repeat (shift 0) hold at x exactly where they hold at x
  // plus their length; the others are not read (more values looked at).
  Wide length = part->length;
  const std::vector<const Expr*> repeating = repeatingFacts(repeats, facts, p, length);
  // The differences at x repeat with the part: one length of the span
  // (all of it where shorter) shows every bend the span has.
  ir::EvalEnv env = at;
  auto value = [&](Wide x) {
    env.params[p] = static_cast<int64_t>(x);
    return ir::evaluate(e, env);
  };
  std::set<std::pair<int64_t, int64_t>> bends;
  for (Wide x = xs.lo; x <= xs.hi && x < xs.lo + length; ++x) {
    env.params[p] = static_cast<int64_t>(x);
    if (std::any_of(repeating.begin(), repeating.end(), [&](const Expr* f) {
          const std::optional<int64_t> v = ir::evaluate(*f, env);
          return v && *v == 0;  // (not evaluated: kept)
        }))
      continue;
    const std::optional<int64_t> under = value(x - below), here = value(x), over = value(x + above);
    if (!under || !here || !over) return std::nullopt;
    const Wide down = Wide(*here) - *under, up = Wide(*over) - *here;
    if (down == up) continue;
    if (down > INT64_MAX || down < INT64_MIN || up > INT64_MAX || up < INT64_MIN) return std::nullopt;
    bends.insert({static_cast<int64_t>(down), static_cast<int64_t>(up)});
  }
  return bends;
}

}  // namespace cake::checks
