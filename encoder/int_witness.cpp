#include "encoder/int_witness.h"

#include <map>
#include <string>

#include <z3++.h>

#include "encoder/z3_solver.h"

namespace cake::encoder {

namespace {

struct IntTerm {
  z3::expr v;    // the value
  z3::expr def;  // no division by zero on the way
};

struct IntUnsupported {
  std::string what;
};

class IntEncoding {
 public:
  explicit IntEncoding(const ir::Schedule& s) : s_(s) {}
  z3::context ctx;

  // A fact: defined and true.
  z3::expr fact(const ir::Expr& e) {
    IntTerm t = tr(e);
    return t.def && t.v != 0;
  }
  // The domains of the symbols used so far.
  std::vector<z3::expr> domains() const { return domains_; }
  // The witness's values of the symbols used.
  BvModel model(const z3::model& m) {
    BvModel out;
    for (const auto& [key, x] : symbols_) {
      int64_t v = 0;
      if (!m.eval(x, true).is_numeral_i64(v)) continue;
      const auto [kind, index] = key;
      switch (kind) {
        case 'p': out.params[index] = v; break;
        case 'v': out.loop_vars[index] = v; break;
        case 'i': out.instance = v; break;
        case 'b': out.block_idx[index] = v; break;
        case 'g': out.grid_dim[index] = v; break;
      }
    }
    return out;
  }

 private:
  const ir::Schedule& s_;
  std::map<std::pair<char, int>, z3::expr> symbols_;
  std::vector<z3::expr> domains_;

  z3::expr num(int64_t v) { return ctx.int_val(v); }

  z3::expr symbol(char kind, int index) {
    if (kind == 'b') symbol('g', index);  // the block index's domain reads the grid size
    auto key = std::make_pair(kind, index);
    if (auto it = symbols_.find(key); it != symbols_.end()) return it->second;
    z3::expr x = ctx.int_const((std::string(1, kind) + std::to_string(index)).c_str());
    const int64_t i32min = INT32_MIN, i32max = INT32_MAX;
    switch (kind) {
      case 'p':
        if (index < 0 || index >= static_cast<int>(s_.params.size()) || s_.params[index].type != ir::ParamType::I32)
          throw IntUnsupported{"a parameter that is not an LM.i32 in an integer expression"};
        domains_.push_back(x >= num(i32min) && x <= num(i32max));
        break;
      case 'v': domains_.push_back(x >= num(i32min) && x <= num(i32max)); break;
      case 'i': domains_.push_back(x >= 0 && x < 1024); break;
      case 'g': domains_.push_back(x >= 1 && x <= num(i32max)); break;
      case 'b': domains_.push_back(x >= 0 && x < symbols_.at({'g', index})); break;
    }
    symbols_.emplace(key, x);
    return x;
  }

  // Python's floor division: Z3's div is Euclidean, which is the floor for
  // a positive divisor; for a negative one, a // b == (-a) // (-b).
  z3::expr floorDiv(const z3::expr& a, const z3::expr& b) { return z3::ite(b > 0, a / b, (-a) / (-b)); }
  z3::expr truthValue(const z3::expr& b) { return z3::ite(b, num(1), num(0)); }

  IntTerm tr(const ir::Expr& e) {
    using K = ir::ExprKind;
    const z3::expr yes = ctx.bool_val(true);
    if (e.kind == K::Const) return {num(e.value), yes};
    if (auto key = freeSymbol(e)) return {symbol(key->first, key->second), yes};
    if (e.kind == K::BlockIdx || e.kind == K::GridDim) throw IntUnsupported{"a grid dimension out of range"};
    for (const ir::ExprPtr& a : e.args)
      if (!a) throw IntUnsupported{"a malformed expression"};
    if (e.kind == K::Neg || e.kind == K::Not) {
      if (e.args.size() != 1) throw IntUnsupported{"a malformed expression"};
      IntTerm a = tr(*e.args[0]);
      return {e.kind == K::Neg ? -a.v : truthValue(a.v == 0), a.def};
    }
    if (e.args.size() != 2) throw IntUnsupported{"a malformed expression"};
    IntTerm a = tr(*e.args[0]), b = tr(*e.args[1]);
    const z3::expr both = a.def && b.def;
    switch (e.kind) {
      case K::Add: return {a.v + b.v, both};
      case K::Sub: return {a.v - b.v, both};
      case K::Mul: return {a.v * b.v, both};
      case K::FloorDiv: return {floorDiv(a.v, b.v), both && b.v != 0};
      case K::Mod: return {a.v - b.v * floorDiv(a.v, b.v), both && b.v != 0};
      case K::CDiv: return {-floorDiv(-a.v, b.v), both && b.v != 0};
      case K::Min: return {z3::ite(a.v <= b.v, a.v, b.v), both};
      case K::Max: return {z3::ite(a.v >= b.v, a.v, b.v), both};
      case K::Lt: return {truthValue(a.v < b.v), both};
      case K::Le: return {truthValue(a.v <= b.v), both};
      case K::Gt: return {truthValue(a.v > b.v), both};
      case K::Ge: return {truthValue(a.v >= b.v), both};
      case K::Eq: return {truthValue(a.v == b.v), both};
      case K::Ne: return {truthValue(a.v != b.v), both};
      // short-circuit, as Python's: `n > 0 and k % n == 0` is defined at n == 0
      case K::And: return {truthValue(a.v != 0 && b.v != 0), a.def && (a.v == 0 || b.def)};
      case K::Or: return {truthValue(a.v != 0 || b.v != 0), a.def && (a.v != 0 || b.def)};
      default: break;
    }
    throw IntUnsupported{"an unsupported expression kind"};
  }
};

}  // namespace

BvResult intWitness(const ir::Schedule& s, const ir::ExprPtr& cond, const std::vector<ir::ExprPtr>& premises,
                    Limits limits) {
  BvResult r;
  r.kind = BvVerdict::Unknown;
  if (!cond) {
    r.detail = "no condition";
    return r;
  }
  try {
    IntEncoding enc(s);
    z3::solver solver(enc.ctx);
    for (const ir::Assume& a : s.assumes)
      if (a.cond) solver.add(enc.fact(*a.cond));
    for (const ir::ExprPtr& x : premises)
      if (x) solver.add(enc.fact(*x));
    solver.add(enc.fact(*cond));
    for (const z3::expr& d : enc.domains()) solver.add(d);
    const z3w::QueryResult q = z3w::check(solver, limits);
    r.seconds = q.seconds;
    switch (q.answer) {
      case z3w::Answer::Incorrect:
        r.kind = BvVerdict::Fails;
        r.model = r.goal_model = enc.model(solver.get_model());
        break;
      case z3w::Answer::Correct: r.kind = BvVerdict::Holds; break;
      case z3w::Answer::FailedToProve: r.detail = "the integer solver gave up: " + q.reason; break;
      case z3w::Answer::Error:
        r.kind = BvVerdict::Error;
        r.detail = q.reason;
        break;
    }
  } catch (const IntUnsupported& u) {
    r.detail = u.what;
  } catch (const z3::exception& e) {
    r.kind = BvVerdict::Error;
    r.detail = e.msg();
  }
  return r;
}

}  // namespace cake::encoder
