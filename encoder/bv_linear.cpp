// BvProver's linear pre-check; see bv_linear.h for why its answers are
// BvProver's own.
#include "encoder/bv_linear.h"

#include "encoder/defined_premise.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <z3++.h>

#include "encoder/bv_prover.h"
#include "encoder/z3_solver.h"

namespace cake::encoder::lia {

namespace {

std::atomic<long> g_decided{0}, g_handed_on{0};
std::atomic<bool> g_enabled{true};

// Z3's resource units for one linear query. The queries of the corpus
// take a few thousand; past this the bit-vector solver answers as before.
constexpr uint64_t kRlimit = 2'000'000;

// BvProver's translation would refuse the construct (or Z3 does not fold a
// constant factor).
struct GiveUp {};
// The construct is not linear: a product of symbols, a symbolic divisor.
// BvProver translates it.
struct NotLinear {};

using Key = SymbolKey;

struct Term {
  z3::expr v;    // the mathematical value
  z3::expr def;  // every intermediate value in the signed 64-bit range, no zero divisor
};

class Translator {
 public:
  Translator(z3::context& c, const ir::Schedule& s) : ctx_(c), s_(s) {}

  // A fact (defined and true) with the symbols it mentions.
  struct Part {
    z3::expr e;
    std::set<Key> syms;
  };

  Part part(const ir::Expr& x, Term* value = nullptr, bool weak = false) {
    std::set<Key> syms;
    used_ = &syms;
    Term t{ctx_.bool_val(true), ctx_.bool_val(true)};
    nonlinear_ = false;
    try {
      t = tr(x);
    } catch (...) {
      used_ = nullptr;
      throw;
    }
    used_ = nullptr;
    if (nonlinear_) throw NotLinear{};
    if (value) *value = t;
    return {weak ? !t.def || truth(t.v) : t.def && truth(t.v), std::move(syms)};
  }

  z3::expr domain(const Key& k) {
    z3::expr x = symbol(k.first, k.second);
    switch (k.first) {
      case 'i': return x >= 0 && x < 1024;
      case 'g': return x >= 1 && x <= num(INT32_MAX);
      case 'b': return x >= 0 && x < symbol('g', k.second);
      case 'v': {  // (its loop's bounds, where the width argument bounds them: review52)
        const std::optional<WidthRange> r = loopVarRange(s_, k.second);
        return r ? x >= num(r->lo) && x <= num(r->hi) : inRange(x);
      }
      default: return x >= num(INT32_MIN) && x <= num(INT32_MAX);
    }
  }

  const std::vector<z3::expr>& axioms() const { return axioms_; }

 private:
  z3::context& ctx_;
  const ir::Schedule& s_;
  std::set<Key>* used_ = nullptr;
  std::map<Key, z3::expr> symbols_;
  std::vector<z3::expr> axioms_;  // q and r of divisions by constants (unconditional: they always exist)
  int fresh_ = 0;
  bool nonlinear_ = false;  // part(): the fact has a product of symbols or a symbolic divisor

  z3::expr num(int64_t v) { return ctx_.int_val(v); }
  z3::expr inRange(const z3::expr& x) {
    return x >= num(std::numeric_limits<int64_t>::min()) && x <= num(std::numeric_limits<int64_t>::max());
  }
  z3::expr truth(const z3::expr& v) { return v != 0; }
  z3::expr fromBool(const z3::expr& b) { return z3::ite(b, num(1), num(0)); }

  z3::expr symbol(char kind, int index) {
    Key key{kind, index};
    if (used_) used_->insert(key);
    if (kind == 'b') symbol('g', index);  // block_idx's domain mentions grid_dim (as BvProver's)
    if (auto it = symbols_.find(key); it != symbols_.end()) return it->second;
    if (kind == 'p' && (index < 0 || index >= static_cast<int>(s_.params.size()) ||
                        s_.params[index].type != ir::ParamType::I32))
      throw GiveUp{};  // BvProver: unsupported (Unknown)
    z3::expr x = ctx_.int_const(("lin_" + std::string(1, kind) + std::to_string(index)).c_str());
    symbols_.emplace(key, x);
    return x;
  }

  // A factor or divisor without free symbols, as the constant it is.
  std::pair<int64_t, z3::expr> constant(const ir::Expr& e) {
    Term t = tr(e);
    z3::expr v = t.v.simplify();
    int64_t c = 0;
    if (!v.is_numeral_i64(c)) throw GiveUp{};
    return {c, t.def};
  }

  // Python floor division by a non-zero constant c: a == q*c + r, r of c's sign, |r| < |c|.
  std::pair<z3::expr, z3::expr> floorDivMod(const z3::expr& a, int64_t c) {
    const std::string n = std::to_string(fresh_++);
    z3::expr q = ctx_.int_const(("lin_q!" + n).c_str());
    z3::expr r = ctx_.int_const(("lin_r!" + n).c_str());
    if (c != 0) {
      z3::expr cc = num(c);
      axioms_.push_back(a == q * cc + r && (c > 0 ? (r >= 0 && r < cc) : (r <= 0 && r > cc)));
    }
    return {q, r};
  }

  // A product of symbols or a division by one (e): not linear. Its
  // operands are still translated, so that what BvProver refuses is refused
  // (GiveUp) before part() reports NotLinear; the value is a fresh symbol.
  Term nonlinear(const ir::Expr& e) {
    tr(*e.args[0]);
    tr(*e.args[1]);
    nonlinear_ = true;
    return {ctx_.int_const(("lin_n!" + std::to_string(fresh_++)).c_str()), ctx_.bool_val(true)};
  }

  Term tr(const ir::Expr& e) {
    using K = ir::ExprKind;
    z3::expr yes = ctx_.bool_val(true);
    if (e.kind == K::Const) return {num(e.value), yes};
    if (auto key = freeSymbol(e)) return {symbol(key->first, key->second), yes};
    if (e.kind == K::BlockIdx || e.kind == K::GridDim) throw GiveUp{};
    auto arg = [&](size_t i) -> Term {
      if (i >= e.args.size() || !e.args[i]) throw GiveUp{};
      return tr(*e.args[i]);
    };
    if (e.kind == K::Neg || e.kind == K::Not) {
      if (e.args.size() != 1) throw GiveUp{};
      Term a = arg(0);
      if (e.kind == K::Neg) return {-a.v, a.def && inRange(-a.v)};
      return {fromBool(!truth(a.v)), a.def};
    }
    if (e.args.size() != 2 || !e.args[0] || !e.args[1]) throw GiveUp{};
    switch (e.kind) {
      case K::Mul: {
        const bool first_const = !hasFreeSymbols(*e.args[0]);
        if (!first_const && hasFreeSymbols(*e.args[1])) return nonlinear(e);
        auto [c, cdef] = constant(*e.args[first_const ? 0 : 1]);
        Term x = arg(first_const ? 1 : 0);
        z3::expr v = num(c) * x.v;
        return {v, cdef && x.def && inRange(v)};
      }
      case K::FloorDiv:
      case K::Mod:
      case K::CDiv: {
        if (hasFreeSymbols(*e.args[1])) return nonlinear(e);
        auto [c, cdef] = constant(*e.args[1]);
        Term a = arg(0);
        if (e.kind == K::CDiv) {  // -((-a) // c)
          z3::expr na = -a.v;
          z3::expr q = floorDivMod(na, c).first;
          return {-q, a.def && cdef && inRange(na) && ctx_.bool_val(c != 0) && inRange(q) && inRange(-q)};
        }
        auto [q, r] = floorDivMod(a.v, c);
        if (e.kind == K::Mod) return {r, a.def && cdef && ctx_.bool_val(c != 0)};  // MIN % -1 == 0: defined
        return {q, a.def && cdef && ctx_.bool_val(c != 0) && inRange(q)};
      }
      default: break;
    }
    Term a = arg(0), b = arg(1);
    switch (e.kind) {
      case K::Add: return {a.v + b.v, a.def && b.def && inRange(a.v + b.v)};
      case K::Sub: return {a.v - b.v, a.def && b.def && inRange(a.v - b.v)};
      case K::Min: return {z3::ite(a.v <= b.v, a.v, b.v), a.def && b.def};
      case K::Max: return {z3::ite(a.v >= b.v, a.v, b.v), a.def && b.def};
      case K::Lt: return {fromBool(a.v < b.v), a.def && b.def};
      case K::Le: return {fromBool(a.v <= b.v), a.def && b.def};
      case K::Gt: return {fromBool(a.v > b.v), a.def && b.def};
      case K::Ge: return {fromBool(a.v >= b.v), a.def && b.def};
      case K::Eq: return {fromBool(a.v == b.v), a.def && b.def};
      case K::Ne: return {fromBool(a.v != b.v), a.def && b.def};
      // short-circuit, as BvProver's
      case K::And: return {fromBool(truth(a.v) && truth(b.v)), a.def && (!truth(a.v) || b.def)};
      case K::Or: return {fromBool(truth(a.v) || truth(b.v)), a.def && (truth(a.v) || b.def)};
      default: break;
    }
    throw GiveUp{};
  }
};

}  // namespace

std::optional<bool> decideLinear(z3::context& ctx, const ir::Schedule& s, const ir::Expr& goal, Bad bad,
                                 const std::vector<ir::ExprPtr>& premises, bool all_facts, const Limits& limits,
                                 bool linear_subset, const std::vector<bool>& weak_facts) {
  if (!g_enabled.load()) return std::nullopt;
  linear_subset = linear_subset && bad != Bad::Nothing;
  try {
    Translator t(ctx, s);
    Term g{ctx.bool_val(true), ctx.bool_val(true)};
    Translator::Part gp = t.part(goal, &g);
    std::vector<Translator::Part> fs;
    bool left_out = false;  // a fact that is not linear, left out (linear_subset)
    auto add = [&](const ir::Expr& fact, bool weak = false) {
      try {
        fs.push_back(t.part(fact, nullptr, weak));
      } catch (const NotLinear&) {
        if (!linear_subset) throw;
        left_out = true;
      }
    };
    auto weak = [&](size_t i) { return i < weak_facts.size() && weak_facts[i]; };
    for (size_t i = 0; i < s.assumes.size(); ++i)
      if (s.assumes[i].cond) add(*s.assumes[i].cond, weak(i));
    for (size_t i = 0; i < premises.size(); ++i)
      if (premises[i]) add(*premises[i], weak(s.assumes.size() + i));
    std::set<Key> syms;
    std::vector<size_t> in;
    if (all_facts) {
      syms = gp.syms;
      for (size_t i = 0; i < fs.size(); ++i) {
        in.push_back(i);
        syms.insert(fs[i].syms.begin(), fs[i].syms.end());
      }
    } else {
      in = cone(gp.syms, fs, syms);
    }
    z3::solver sol(ctx, "QF_LIA");
    for (const Key& k : syms) {
      sol.add(t.domain(k));
      if (k.first == 'b') sol.add(t.domain({'g', k.second}));
    }
    for (size_t i : in) sol.add(fs[i].e);
    for (const z3::expr& a : t.axioms()) sol.add(a);
    switch (bad) {
      case Bad::Violated: sol.add(!(g.def && g.v != 0)); break;
      case Bad::Holds: sol.add(g.def && g.v != 0); break;
      case Bad::Nothing: break;
    }
    Limits lim = limits;
    lim.rlimit = lim.rlimit == 0 ? kRlimit : std::min<uint64_t>(lim.rlimit, kRlimit);
    z3w::QueryResult q = z3w::check(sol, lim);
    // (with a fact left out, only unsat is the query's answer)
    if (q.answer == z3w::Answer::Correct || (q.answer == z3w::Answer::Incorrect && !left_out)) {
      ++g_decided;
      return q.answer == z3w::Answer::Incorrect;
    }
  } catch (const GiveUp&) {
  } catch (const NotLinear&) {
  } catch (const z3::exception&) {
  }
  ++g_handed_on;
  return std::nullopt;
}

Counts counts() { return {g_decided.load(), g_handed_on.load()}; }

void setEnabled(bool on) { g_enabled.store(on); }

}  // namespace cake::encoder::lia
