#include "ir/fact_fold.h"

#include <algorithm>
#include <functional>
#include <set>

#include "ir/expr_canon.h"
#include "ir/expr_fields.h"

namespace cake::ir {
namespace {

using ModuloFact = ResidueFact;

// `a % m == c` (or `c == a % m`) with m > 0 and c constants; the conjuncts of
// an `and` each. `others`: the conjuncts not of that form with P a parameter.
void collectModuloFacts(const ExprPtr& cond, std::vector<ModuloFact>& out, std::vector<ExprPtr>* others = nullptr) {
  if (!cond) return;
  if (cond->kind == ExprKind::And) {
    for (const ExprPtr& a : cond->args) collectModuloFacts(a, out, others);
    return;
  }
  const size_t before = out.size();
  if (cond->kind == ExprKind::Eq && cond->args.size() == 2)
    for (int side = 0; side < 2; ++side) {
      const ExprPtr& mod = cond->args[side];
      const std::optional<int64_t> residue = constValue(cond->args[1 - side]);
      if (!residue || mod->kind != ExprKind::Mod || mod->args.size() != 2) continue;
      const std::optional<int64_t> modulus = constValue(mod->args[1]);
      if (modulus && *modulus > 0) out.push_back({mod->args[0], *modulus, *residue});
    }
  // (a residue of an expression, `(k_tiles + 3) % 3 == 0`, is one of its
  // parameters' too, which only the solver reads off)
  const bool of_param = out.size() > before && out.back().p && out.back().p->kind == ExprKind::Param;
  if (!of_param && others) others->push_back(cond);
}

bool divides(int64_t d, int64_t m) { return d > 0 && m % d == 0; }

class ModuloFolder {
 public:
  explicit ModuloFolder(std::vector<ModuloFact> facts) : facts_(std::move(facts)) {}

  // How many expressions fold() returned rewritten.
  int rewrites() const { return rewrites_; }

  // A schedule field: rewritten in place, counted when it changes.
  void fold(ExprPtr& field) {
    ExprPtr folded = foldExpr(field);
    if (folded != field) ++rewrites_;
    field = std::move(folded);
  }

 private:
  // e with every `x % d` whose x the facts reduce rewritten (bottom up).
  ExprPtr foldExpr(const ExprPtr& e) {
    if (!e || e->args.empty()) return e;
    std::vector<ExprPtr> args;
    bool changed = false;
    for (const ExprPtr& a : e->args) {
      args.push_back(foldExpr(a));
      changed |= args.back() != a;
    }
    if (e->kind == ExprKind::Mod && args.size() == 2) {
      const std::optional<int64_t> d = constValue(args[1]);
      if (d && *d > 0) {
        ExprPtr reduced = reduce(args[0], *d);
        changed |= reduced != args[0];
        args[0] = std::move(reduced);
      }
    }
    return changed ? rebuilt(*e, std::move(args)) : e;
  }

  // An expression of x's residue modulo d (valid only under an enclosing % d).
  ExprPtr reduce(const ExprPtr& x, int64_t d) {
    for (const ModuloFact& f : facts_)
      if (divides(d, f.modulus) && equalForAllValues(*x, *f.p))
        return makeConst(((f.residue % d) + d) % d, x->range);  // the least residue: folds `t * 6 % 3`
    switch (x->kind) {
      case ExprKind::Add: case ExprKind::Sub: case ExprKind::Mul: case ExprKind::Neg: {
        std::vector<ExprPtr> args;
        bool changed = false;
        for (const ExprPtr& a : x->args) {
          args.push_back(reduce(a, d));
          changed |= args.back() != a;
        }
        return changed ? rebuilt(*x, std::move(args)) : x;
      }
      case ExprKind::Mod: {  // Y % e is Y modulo d when d divides e: dropped where Y reduces
        const std::optional<int64_t> e = constValue(x->args[1]);
        if (!e || !divides(d, *e)) return x;
        ExprPtr y = reduce(x->args[0], d);
        return y == x->args[0] ? x : y;
      }
      default: return x;
    }
  }

  // A node of e's kind over new operands: a constant where it has no
  // symbols left, 0 for a product with a zero factor, the other operand of
  // `x + 0`, `0 + x`, `x - 0`, `x * 1` and `1 * x`.
  static ExprPtr rebuilt(const Expr& e, std::vector<ExprPtr> args) {
    if (args.size() == 2) {
      const std::optional<int64_t> a = constValue(args[0]), b = constValue(args[1]);
      if (e.kind == ExprKind::Mul && (a == 0 || b == 0)) return makeConst(0, e.range);
      const int64_t unit = e.kind == ExprKind::Mul ? 1 : 0;
      if (e.kind == ExprKind::Add || e.kind == ExprKind::Sub || e.kind == ExprKind::Mul) {
        if (b == unit) return args[0];
        if (a == unit && e.kind != ExprKind::Sub) return args[1];
      }
    }
    ExprPtr out = makeExpr(e.kind, std::move(args), e.range);
    if (const std::optional<int64_t> v = constValue(out)) return makeConst(*v, e.range);
    return out;
  }

  std::vector<ModuloFact> facts_;
  int rewrites_ = 0;
};

}  // namespace

std::optional<Schedule> foldModuloFacts(const Schedule& s, const std::vector<ResidueFact>& implied) {
  std::vector<ModuloFact> facts = implied;
  for (const Assume& a : s.assumes) collectModuloFacts(a.cond, facts);
  if (facts.empty()) return std::nullopt;
  ModuloFolder folder(std::move(facts));
  Schedule out = s;
  forEachExprField(out, [&](ExprPtr& e) { folder.fold(e); });
  if (folder.rewrites() == 0) return std::nullopt;
  return out;
}

std::vector<std::pair<int, int64_t>> residueQuestions(const Schedule& s) {
  std::vector<ModuloFact> written;
  std::vector<ExprPtr> others;
  for (const Assume& a : s.assumes) collectModuloFacts(a.cond, written, &others);
  std::set<int> params;
  // (a residue fact divides: a bound alone, `K > 0`, fixes no residue, and
  // asking the solver about it for each `% d` would cost every schedule)
  auto divides_something = [](const Expr& x) {
    return x.kind == ExprKind::Mod || x.kind == ExprKind::FloorDiv || x.kind == ExprKind::CDiv;
  };
  for (const ExprPtr& c : others)
    for (int p = 0; p < static_cast<int>(s.params.size()) && anySubExpr(*c, divides_something); ++p)
      if (readsSymbol(*c, ExprKind::Param, p)) params.insert(p);
  std::set<std::pair<int, int64_t>> out;
  forEachExprField(s, [&](const ExprPtr& e) {
    if (!e) return;
    anySubExpr(*e, [&](const Expr& x) {
      const std::optional<int64_t> d =
          x.kind == ExprKind::Mod && x.args.size() == 2 ? constValue(x.args[1]) : std::nullopt;
      if (!d || *d < 2) return false;
      for (int p : params)
        if (readsSymbol(*x.args[0], ExprKind::Param, p) &&
            std::none_of(written.begin(), written.end(), [&](const ModuloFact& f) {
              return f.p->kind == ExprKind::Param && f.p->index == p && divides(*d, f.modulus);
            }))
          out.insert({p, *d});
      return false;
    });
  });
  return {out.begin(), out.end()};
}

}  // namespace cake::ir
