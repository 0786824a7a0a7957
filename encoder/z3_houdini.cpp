#include "encoder/z3_houdini.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <unordered_set>

namespace cake::encoder::z3w {

namespace {

using Vals = std::vector<int64_t>;
using Fn = std::function<int64_t(const Vals&, const Vals&)>;

int64_t fdiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// z3 expression -> evaluator over (state, params). Integer and Boolean
// linear arithmetic with ite, div and mod (SMT-LIB semantics for mod/div by
// positive constants: floor).
class Compiler {
 public:
  Compiler(const Sts& sts) {
    for (int v = 0; v < sts.numVars(); ++v) var_[sts.var(v).id()] = v;
    for (size_t p = 0; p < sts.params().size(); ++p) par_[sts.params()[p].id()] = static_cast<int>(p);
  }
  bool ok = true;

  Fn compile(const z3::expr& e) {
    if (e.is_numeral()) {
      int64_t v = 0;
      e.is_numeral_i64(v);
      return [v](const Vals&, const Vals&) { return v; };
    }
    if (e.is_true()) return [](const Vals&, const Vals&) { return int64_t(1); };
    if (e.is_false()) return [](const Vals&, const Vals&) { return int64_t(0); };
    if (e.is_const()) {
      auto it = var_.find(e.id());
      if (it != var_.end()) { int i = it->second; return [i](const Vals& s, const Vals&) { return s[i]; }; }
      auto ip = par_.find(e.id());
      if (ip != par_.end()) { int i = ip->second; return [i](const Vals&, const Vals& p) { return p[i]; }; }
      ok = false;
      return [](const Vals&, const Vals&) { return int64_t(0); };
    }
    std::vector<Fn> a;
    for (unsigned i = 0; i < e.num_args(); ++i) a.push_back(compile(e.arg(i)));
    switch (e.decl().decl_kind()) {
      case Z3_OP_ADD: return [a](const Vals& s, const Vals& p) { int64_t r = 0; for (auto& f : a) r += f(s, p); return r; };
      case Z3_OP_MUL: return [a](const Vals& s, const Vals& p) { int64_t r = 1; for (auto& f : a) r *= f(s, p); return r; };
      case Z3_OP_SUB: return [a](const Vals& s, const Vals& p) { int64_t r = a[0](s, p); for (size_t i = 1; i < a.size(); ++i) r -= a[i](s, p); return r; };
      case Z3_OP_UMINUS: return [a](const Vals& s, const Vals& p) { return -a[0](s, p); };
      case Z3_OP_IDIV: return [a](const Vals& s, const Vals& p) { return fdiv(a[0](s, p), a[1](s, p)); };
      case Z3_OP_MOD: return [a](const Vals& s, const Vals& p) { int64_t x = a[0](s, p), y = a[1](s, p); return y ? x - y * fdiv(x, y) : 0; };
      case Z3_OP_ITE: return [a](const Vals& s, const Vals& p) { return a[0](s, p) ? a[1](s, p) : a[2](s, p); };
      case Z3_OP_EQ: return [a](const Vals& s, const Vals& p) { return int64_t(a[0](s, p) == a[1](s, p)); };
      case Z3_OP_DISTINCT: return [a](const Vals& s, const Vals& p) { return int64_t(a[0](s, p) != a[1](s, p)); };
      case Z3_OP_LE: return [a](const Vals& s, const Vals& p) { return int64_t(a[0](s, p) <= a[1](s, p)); };
      case Z3_OP_LT: return [a](const Vals& s, const Vals& p) { return int64_t(a[0](s, p) < a[1](s, p)); };
      case Z3_OP_GE: return [a](const Vals& s, const Vals& p) { return int64_t(a[0](s, p) >= a[1](s, p)); };
      case Z3_OP_GT: return [a](const Vals& s, const Vals& p) { return int64_t(a[0](s, p) > a[1](s, p)); };
      case Z3_OP_AND: return [a](const Vals& s, const Vals& p) { for (auto& f : a) if (!f(s, p)) return int64_t(0); return int64_t(1); };
      case Z3_OP_OR: return [a](const Vals& s, const Vals& p) { for (auto& f : a) if (f(s, p)) return int64_t(1); return int64_t(0); };
      case Z3_OP_NOT: return [a](const Vals& s, const Vals& p) { return int64_t(!a[0](s, p)); };
      case Z3_OP_IMPLIES: return [a](const Vals& s, const Vals& p) { return int64_t(!a[0](s, p) || a[1](s, p)); };
      default: ok = false; return [](const Vals&, const Vals&) { return int64_t(0); };
    }
  }

 private:
  std::map<unsigned, int> var_, par_;
};

struct VecHash {
  size_t operator()(const Vals& v) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : v) { h ^= static_cast<uint64_t>(x); h *= 1099511628211ull; }
    return h;
  }
};

struct Cand {
  z3::expr e;
  int cond = -1;        // guard var index or -1
  int64_t condVal = 0;
};

}  // namespace

HoudiniResult houdini(const Sts& sts, const HoudiniOptions& opts) {
  HoudiniResult out;
  auto t0 = std::chrono::steady_clock::now();
  Deadline deadline(opts.limits.timeout_ms);
  z3::context& c = sts.ctx();
  try {
    Compiler comp(sts);
    std::vector<Fn> guard, init;
    std::vector<std::vector<std::pair<int, Fn>>> upd;
    for (const auto& t : sts.transitions()) {
      if (!t.locals.empty()) { out.answer = Answer::FailedToProve; out.reason = "transition with locals"; return out; }
      guard.push_back(comp.compile(t.guard));
      std::vector<std::pair<int, Fn>> u;
      for (const auto& [v, e] : t.updates) u.push_back({v, comp.compile(e)});
      upd.push_back(std::move(u));
    }
    for (int v = 0; v < sts.numVars(); ++v) init.push_back(comp.compile(sts.initOf(v)));
    Fn stop = sts.stop() ? comp.compile(*sts.stop()) : Fn();
    // integer terms: Int state variables, parameters, extra terms
    std::vector<z3::expr> terms;
    std::vector<Fn> termFn;
    for (int v = 0; v < sts.numVars(); ++v)
      if (sts.var(v).is_int()) { terms.push_back(sts.var(v)); termFn.push_back(comp.compile(sts.var(v))); }
    size_t nUnary = terms.size();
    for (const auto& p : sts.params()) { terms.push_back(p); termFn.push_back(comp.compile(p)); }
    for (const auto& t : opts.terms) { terms.push_back(t); termFn.push_back(comp.compile(t)); }
    if (!comp.ok) { out.answer = Answer::FailedToProve; out.reason = "unsupported operator in the system"; return out; }

    // ---- sample reachable states
    std::vector<std::pair<Vals, Vals>> samples;  // (state, params)
    for (const Vals& pv : opts.sample_params) {
      std::unordered_set<Vals, VecHash> seen;
      std::vector<Vals> queue;
      Vals s0;
      for (auto& f : init) s0.push_back(f({}, pv));
      seen.insert(s0);
      queue.push_back(s0);
      for (size_t i = 0; i < queue.size() && seen.size() < opts.max_states; ++i) {
        Vals s = queue[i];
        samples.push_back({s, pv});
        if (stop && stop(s, pv)) continue;
        for (size_t t = 0; t < guard.size(); ++t) {
          if (!guard[t](s, pv)) continue;
          Vals n = s;
          for (auto& [v, f] : upd[t]) n[v] = f(s, pv);
          if (seen.insert(n).second) queue.push_back(std::move(n));
        }
      }
    }
    out.states = samples.size();

    // ---- candidates from the samples
    std::vector<Cand> cands;
    auto bounds = [&](const std::function<int64_t(const Vals&, const Vals&)>& f, int cond, int64_t cv,
                      std::map<std::pair<int, int64_t>, std::pair<int64_t, int64_t>>* out2 = nullptr) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (const auto& [s, p] : samples) {
        if (cond >= 0 && s[cond] != cv) continue;
        int64_t x = f(s, p);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      (void)out2;
      return std::make_pair(lo, hi);
    };
    std::map<int, std::set<int64_t>> guardVals;
    for (int g : opts.guards)
      for (const auto& [s, p] : samples) guardVals[g].insert(s[g]);
    auto addRange = [&](z3::expr t, std::pair<int64_t, int64_t> r, int cond, int64_t cv,
                        std::pair<int64_t, int64_t> uncond) {
      if (r.first > r.second) return;
      z3::expr pre = cond >= 0 ? (sts.var(cond) == c.int_val(cv)) : c.bool_val(true);
      if (cond < 0 || r.first > uncond.first) cands.push_back({cond >= 0 ? z3::implies(pre, t >= c.int_val(r.first)) : t >= c.int_val(r.first), cond, cv});
      if (cond < 0 || r.second < uncond.second) cands.push_back({cond >= 0 ? z3::implies(pre, t <= c.int_val(r.second)) : t <= c.int_val(r.second), cond, cv});
    };
    // unary bounds on state variables
    for (size_t i = 0; i < nUnary; ++i) {
      auto u = bounds(termFn[i], -1, 0);
      addRange(terms[i], u, -1, 0, u);
      for (int g : opts.guards)
        for (int64_t gv : guardVals[g]) addRange(terms[i], bounds(termFn[i], g, gv), g, gv, u);
    }
    // differences of the parameter/extra terms (and the unary ones among them)
    for (size_t i = nUnary; i < terms.size(); ++i)
      for (size_t j = i + 1; j < terms.size(); ++j) {
        Fn fi = termFn[i], fj = termFn[j];
        Fn d = [fi, fj](const Vals& s, const Vals& p) { return fi(s, p) - fj(s, p); };
        auto u = bounds(d, -1, 0);
        addRange(terms[i] - terms[j], u, -1, 0, u);
        for (int g : opts.guards)
          for (int64_t gv : guardVals[g]) addRange(terms[i] - terms[j], bounds(d, g, gv), g, gv, u);
      }
    out.candidates = cands.size();

    // ---- Houdini
    std::vector<bool> alive(cands.size(), true);
    auto limits = [&]() {
      Limits l = opts.limits;
      l.timeout_ms = std::max(1u, deadline.remainingMs());
      return l;
    };
    z3::expr_vector from(c), to(c);
    std::vector<z3::expr> nxtVars;
    for (int v = 0; v < sts.numVars(); ++v) {
      from.push_back(sts.var(v));
      z3::expr n = c.constant(("h!n!" + sts.varName(v)).c_str(), sts.var(v).get_sort());
      to.push_back(n);
      nxtVars.push_back(n);
    }
    auto conj = [&]() {
      z3::expr_vector v(c);
      for (size_t i = 0; i < cands.size(); ++i)
        if (alive[i]) v.push_back(cands[i].e);
      for (const auto& a : sts.assumes()) v.push_back(a);
      return z3::mk_and(v);
    };
    // initiation
    {
      z3::solver s(c);
      for (const auto& a : sts.assumes()) s.add(a);
      for (int v = 0; v < sts.numVars(); ++v) s.add(sts.var(v) == sts.initOf(v));
      for (;;) {
        std::vector<z3::expr> lits;
        z3::expr_vector any(c);
        for (size_t i = 0; i < cands.size(); ++i)
          if (alive[i]) any.push_back(!cands[i].e);
        if (any.empty()) break;
        s.push();
        s.add(z3::mk_or(any));
        QueryResult r = check(s, limits());
        if (r.answer == Answer::Correct) { s.pop(); break; }
        if (r.answer != Answer::Incorrect) { out.answer = r.answer; out.reason = r.reason; return out; }
        z3::model m = s.get_model();
        for (size_t i = 0; i < cands.size(); ++i)
          if (alive[i] && m.eval(cands[i].e, true).is_false()) alive[i] = false;
        s.pop();
      }
    }
    // consecution
    bool changed = true;
    while (changed) {
      changed = false;
      ++out.rounds;
      for (size_t t = 0; t < sts.transitions().size(); ++t) {
        const auto& T = sts.transitions()[t];
        for (;;) {
          if (deadline.expired()) { out.answer = Answer::FailedToProve; out.reason = "timeout"; return out; }
          z3::solver s(c);
          s.add(conj());
          s.add(T.guard);
          std::vector<z3::expr> nx = std::vector<z3::expr>(nxtVars);
          for (int v = 0; v < sts.numVars(); ++v) {
            z3::expr val = sts.var(v);
            for (const auto& [w, e] : T.updates)
              if (w == v) val = e;
            s.add(nxtVars[v] == val);
          }
          z3::expr_vector any(c);
          std::vector<size_t> idx;
          for (size_t i = 0; i < cands.size(); ++i)
            if (alive[i]) { any.push_back(!cands[i].e.substitute(from, to)); idx.push_back(i); }
          if (any.empty()) break;
          s.add(z3::mk_or(any));
          QueryResult r = check(s, limits());
          if (r.answer == Answer::Correct) break;
          if (r.answer != Answer::Incorrect) { out.answer = r.answer; out.reason = r.reason; return out; }
          z3::model m = s.get_model();
          for (size_t k = 0; k < idx.size(); ++k)
            if (m.eval(any[static_cast<unsigned>(k)], true).is_true()) { alive[idx[k]] = false; changed = true; }
        }
      }
    }
    out.kept = static_cast<size_t>(std::count(alive.begin(), alive.end(), true));
    // the invariant against the bads
    z3::expr inv = conj();
    out.invariant = inv;
    for (size_t b = 0; b < sts.bads().size(); ++b) {
      const auto& B = sts.bads()[b];
      z3::solver s(c);
      s.add(inv);
      s.add(B.pred);
      QueryResult r = check(s, limits());
      if (r.answer == Answer::Correct) continue;
      if (getenv("CAKE_HOUDINI_TRACE") && r.answer == Answer::Incorrect) {
        z3::model m = s.get_model();
        fprintf(stderr, "bad %zu (%s) reachable from the invariant at:\n", b, B.rule.c_str());
        for (int v = 0; v < sts.numVars(); ++v)
          fprintf(stderr, "  %s = %s\n", sts.varName(v).c_str(), m.eval(sts.var(v), true).to_string().c_str());
        for (const auto& q : sts.params()) fprintf(stderr, "  %s = %s\n", q.to_string().c_str(), m.eval(q, true).to_string().c_str());
      }
      out.answer = r.answer == Answer::Incorrect ? Answer::FailedToProve : r.answer;
      out.reason = r.answer == Answer::Incorrect ? "the inferred invariant does not exclude " + B.rule : r.reason;
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return out;
    }
    out.answer = Answer::Correct;
  } catch (const z3::exception& e) {
    out.answer = Answer::Error;
    out.reason = std::string("z3: ") + e.msg();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace cake::encoder::z3w
