// Canonical polynomial forms of integer expressions (see expr_canon.h).
#include "ir/expr_canon.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace cake::ir {
namespace {

// A monomial: its atoms' keys, sorted (repeats for powers); the empty
// monomial is the constant term.
using Monomial = std::vector<std::string>;
using Poly = std::map<Monomial, int64_t>;  // no zero coefficients

struct GiveUp {};  // a coefficient out of the 64-bit range

int64_t checkedAdd(int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) throw GiveUp{};
  return r;
}
int64_t checkedMul(int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_mul_overflow(x, y, &r)) throw GiveUp{};
  return r;
}

void addTerm(Poly& p, const Monomial& m, int64_t c) {
  const int64_t sum = checkedAdd(p[m], c);
  if (sum == 0) p.erase(m);
  else p[m] = sum;
}
Poly scaled(const Poly& p, int64_t k) {
  Poly out;
  for (const auto& [m, c] : p) addTerm(out, m, checkedMul(c, k));
  return out;
}
Poly sum(const Poly& a, const Poly& b) {
  Poly out = a;
  for (const auto& [m, c] : b) addTerm(out, m, c);
  return out;
}
Poly product(const Poly& a, const Poly& b) {
  Poly out;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      addTerm(out, m, checkedMul(ca, cb));
    }
  return out;
}
Poly atom(std::string key) { return Poly{{Monomial{std::move(key)}, 1}}; }
// A leaf's key: its kind's letter and index (std::string::append, not
// operator+: GCC 12's -Wrestrict false alarm on a literal + a temporary).
Poly leaf(char kind, int index) {
  std::string key(1, kind);
  key.append(std::to_string(index));
  return atom(std::move(key));
}
std::optional<int64_t> constantOf(const Poly& p) {
  if (p.empty()) return 0;
  if (p.size() == 1 && p.begin()->first.empty()) return p.begin()->second;
  return std::nullopt;
}
// A printable key of a form (an atom's operand).
std::string keyOf(const Poly& p) {
  std::string s = "{";
  for (const auto& [m, c] : p) {
    s.append(std::to_string(c));
    for (const std::string& a : m) s.append("*").append(a);
    s.append(";");
  }
  return s + "}";
}

class Canon {
 public:
  // atoms: where given, each atom's key -> the first expression met of its form
  explicit Canon(const LoopVarRename& rename, std::map<std::string, const Expr*>* atoms = nullptr)
      : rename_(rename), atoms_(atoms) {}
  Poly of(const Expr& e) const {
    Poly p = form(e);
    // (operands first: the innermost expression of an atom's form is kept)
    if (atoms_ && p.size() == 1 && p.begin()->second == 1 && p.begin()->first.size() == 1)
      atoms_->emplace(p.begin()->first[0], &e);
    return p;
  }

 private:
  Poly form(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Const: return e.value == 0 ? Poly{} : Poly{{Monomial{}, e.value}};
      case ExprKind::Param: return leaf('p', e.index);
      case ExprKind::LoopVar: {
        auto it = rename_.find(e.index);
        return leaf('v', it != rename_.end() ? it->second : e.index);
      }
      case ExprKind::BlockIdx: return leaf('b', e.index);
      case ExprKind::GridDim: return leaf('g', e.index);
      case ExprKind::Instance: return atom("i");
      case ExprKind::Neg: return scaled(arg(e, 0), -1);
      case ExprKind::Add: return sum(arg(e, 0), arg(e, 1));
      case ExprKind::Sub: return sum(arg(e, 0), scaled(arg(e, 1), -1));
      case ExprKind::Mul: return product(arg(e, 0), arg(e, 1));
      case ExprKind::FloorDiv:
      case ExprKind::CDiv: {
        const Poly x = arg(e, 0), d = arg(e, 1);
        const std::optional<int64_t> c = constantOf(d);
        if (c == 1) return x;  // x // 1 == cdiv(x, 1) == x
        // cdiv(x, c) == (x + c - 1) // c for every integer x where c >= 1:
        // with x = q * c + r, 0 <= r < c, both are q where r = 0 and q + 1
        // where r >= 1 (c <= r + c - 1 < 2 * c). Not for c <= 0 (c = -1:
        // -x against 2 - x), so only a positive constant divisor.
        if (e.kind == ExprKind::CDiv && c && *c > 1)
          return opaque(ExprKind::FloorDiv, {keyOf(sum(x, Poly{{Monomial{}, *c - 1}})), keyOf(d)});
        return opaque(e.kind, {keyOf(x), keyOf(d)});
      }
      default: return opaque(e.kind, operandKeys(e));
    }
  }
  Poly arg(const Expr& e, size_t i) const {
    if (i >= e.args.size() || !e.args[i]) throw GiveUp{};
    return of(*e.args[i]);
  }
  std::vector<std::string> operandKeys(const Expr& e) const {
    std::vector<std::string> keys;
    for (size_t i = 0; i < e.args.size(); ++i) keys.push_back(keyOf(arg(e, i)));
    if (e.kind == ExprKind::Min || e.kind == ExprKind::Max) std::sort(keys.begin(), keys.end());
    return keys;
  }
  static Poly opaque(ExprKind k, const std::vector<std::string>& keys) {
    std::string s = "op";
    s.append(std::to_string(static_cast<int>(k))).append("(");
    for (const std::string& x : keys) s.append(x).append(",");
    return atom(s.append(")"));
  }
  const LoopVarRename& rename_;
  std::map<std::string, const Expr*>* atoms_;
};

}  // namespace

bool equalForAllValues(const Expr& a, const Expr& b, const LoopVarRename& rename_b) {
  try {
    const LoopVarRename none;
    return Canon(none).of(a) == Canon(rename_b).of(b);
  } catch (const GiveUp&) {
    return false;
  }
}

namespace {

// The key of a form that is one atom (coefficient 1), else empty.
std::string atomKey(const Poly& p) {
  return p.size() == 1 && p.begin()->second == 1 && p.begin()->first.size() == 1 ? p.begin()->first[0] : "";
}

// One monomial's atoms spelled and multiplied: those of `first` (atom keys,
// in their order) first, then the others in key order.
ExprPtr productOf(const Monomial& m, const std::vector<std::string>& first,
                  const std::map<std::string, const Expr*>& atoms, const std::map<std::string, ExprPtr>& spelled) {
  Monomial rest = m;
  std::vector<std::string> order;
  for (const std::string& k : first)
    if (auto it = std::find(rest.begin(), rest.end(), k); it != rest.end()) {
      order.push_back(k);
      rest.erase(it);
    }
  order.insert(order.end(), rest.begin(), rest.end());
  ExprPtr out;
  for (const std::string& k : order) {
    auto sp = spelled.find(k);
    const ExprPtr a = sp != spelled.end() ? sp->second : std::make_shared<Expr>(*atoms.at(k));
    out = out ? makeExpr(ExprKind::Mul, {out, a}) : a;
  }
  return out;
}

}  // namespace

ExprPtr polynomialSpelling(const ExprPtr& e, const std::vector<ExprPtr>& spellings) {
  try {
    const LoopVarRename none;
    std::map<std::string, const Expr*> atoms;
    const Poly p = Canon(none, &atoms).of(*e);
    std::map<std::string, ExprPtr> spelled;
    std::vector<std::string> first;
    for (const ExprPtr& sp : spellings)
      if (const std::string k = atomKey(Canon(none).of(*sp)); !k.empty() && spelled.emplace(k, sp).second)
        first.push_back(k);
    // the terms that read more spelled atoms first, the constant last
    std::vector<std::pair<const Monomial*, int64_t>> terms;
    for (const auto& [m, c] : p) terms.emplace_back(&m, c);
    auto rank = [&](const Monomial& m) {
      const auto n = std::count_if(m.begin(), m.end(), [&](const std::string& k) { return spelled.count(k) > 0; });
      return std::make_pair(m.empty(), -n);
    };
    std::stable_sort(terms.begin(), terms.end(), [&](const auto& a, const auto& b) { return rank(*a.first) < rank(*b.first); });
    ExprPtr out;
    for (const auto& [m, c] : terms) {
      const int64_t size = c < 0 ? checkedMul(c, -1) : c;
      ExprPtr term = m->empty() ? makeConst(size) : productOf(*m, first, atoms, spelled);
      if (!m->empty() && size != 1) term = makeExpr(ExprKind::Mul, {makeConst(size), term});
      if (!out) out = c < 0 ? makeExpr(ExprKind::Neg, {term}) : term;
      else out = makeExpr(c < 0 ? ExprKind::Sub : ExprKind::Add, {out, term});
    }
    return out ? out : makeConst(0);
  } catch (const GiveUp&) {
    return nullptr;
  }
}

bool hasMonomialWith(const Expr& e, const std::vector<ExprPtr>& factors) {
  try {
    const LoopVarRename none;
    std::vector<std::string> keys;
    for (const ExprPtr& f : factors) {
      keys.push_back(atomKey(Canon(none).of(*f)));
      if (keys.back().empty()) return false;
    }
    for (const auto& term : Canon(none).of(e)) {
      const auto& m = term.first;  // (a named copy: clang before 16 cannot capture a structured binding)
      if (std::all_of(keys.begin(), keys.end(),
                      [&](const std::string& k) { return std::find(m.begin(), m.end(), k) != m.end(); }))
        return true;
    }
    return false;
  } catch (const GiveUp&) {
    return false;
  }
}

std::optional<int64_t> constantDifference(const Expr& a, const Expr& b) {
  try {
    const LoopVarRename none;
    return constantOf(sum(Canon(none).of(a), scaled(Canon(none).of(b), -1)));
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

}  // namespace cake::ir

namespace cake::ir {
ExprPtr renameLoopVars(const ExprPtr& e, const LoopVarRename& rename) {
  if (!e) return e;
  if (e->kind == ExprKind::LoopVar) {
    auto it = rename.find(e->index);
    if (it == rename.end()) return e;
    auto out = std::make_shared<Expr>(*e);
    out->index = it->second;
    return out;
  }
  if (e->args.empty()) return e;
  auto out = std::make_shared<Expr>(*e);
  for (ExprPtr& a : out->args) a = renameLoopVars(a, rename);
  return out;
}

ExprPtr substituteSymbol(const ExprPtr& e, ExprKind kind, int index, const ExprPtr& with) {
  if (!e || !readsSymbol(*e, kind, index)) return e;
  if (e->kind == kind && e->index == index) return with;
  auto out = std::make_shared<Expr>(*e);
  for (ExprPtr& a : out->args) a = substituteSymbol(a, kind, index, with);
  return out;
}

ExprPtr substituteLoopVar(const ExprPtr& e, int var, const ExprPtr& with) {
  return substituteSymbol(e, ExprKind::LoopVar, var, with);
}
}  // namespace cake::ir
