#include "encoder/z3_sts.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "encoder/engine.h"

namespace cake::encoder::z3w {

Sts::Sts(z3::context& c) : ctx_(&c) {}

int Sts::addInt(const std::string& name, z3::expr init) {
  vars_.push_back(ctx_->int_const(("s!" + name).c_str()));
  inits_.push_back(init);
  names_.push_back(name);
  return static_cast<int>(vars_.size()) - 1;
}

int Sts::addBool(const std::string& name, z3::expr init) {
  vars_.push_back(ctx_->bool_const(("s!" + name).c_str()));
  inits_.push_back(init);
  names_.push_back(name);
  return static_cast<int>(vars_.size()) - 1;
}

int Sts::addVar(const std::string& name, z3::sort sort, z3::expr init) {
  vars_.push_back(ctx_->constant(("s!" + name).c_str(), sort));
  inits_.push_back(init);
  names_.push_back(name);
  return static_cast<int>(vars_.size()) - 1;
}

z3::expr Sts::param(const std::string& name) {
  params_.push_back(ctx_->int_const(("p!" + name).c_str()));
  return params_.back();
}

z3::expr Sts::local(const std::string& name) {
  return ctx_->int_const(("l!" + name + "!" + std::to_string(fresh_++)).c_str());
}

int Sts::addTransition(Transition t) {
  trans_.push_back(std::move(t));
  return static_cast<int>(trans_.size()) - 1;
}

int Sts::addBad(Bad b) {
  bads_.push_back(std::move(b));
  return static_cast<int>(bads_.size()) - 1;
}

namespace {

z3::expr mkAnd(z3::context& c, const std::vector<z3::expr>& v) {
  if (v.empty()) return c.bool_val(true);
  z3::expr_vector ev(c);
  for (const auto& e : v) ev.push_back(e);
  return z3::mk_and(ev);
}

z3::expr mkOr(z3::context& c, const std::vector<z3::expr>& v) {
  if (v.empty()) return c.bool_val(false);
  z3::expr_vector ev(c);
  for (const auto& e : v) ev.push_back(e);
  return z3::mk_or(ev);
}

// Substitution from the template constants to one step's copies.
struct Frame {
  z3::expr_vector from, to;
  explicit Frame(z3::context& c) : from(c), to(c) {}
  z3::expr apply(z3::expr e) { return from.empty() ? e : e.substitute(from, to); }
};

// The bads whose violation ends a run (encoder::endsRun: a data hazard does
// not), split into state properties and transitions.
void runEndingBads(const Sts& sts, std::vector<int>& stateBads, std::vector<int>& transBads) {
  for (int b = 0; b < static_cast<int>(sts.bads().size()); ++b)
    if (endsRun(sts.bads()[b].rule)) (sts.bads()[b].transition >= 0 ? transBads : stateBads).push_back(b);
}

std::vector<int> selectedBads(const Sts& sts, const std::vector<int>& only) {
  std::vector<int> out;
  if (only.empty()) {
    for (int i = 0; i < static_cast<int>(sts.bads().size()); ++i) out.push_back(i);
  } else {
    out = only;
  }
  return out;
}

class Unroller {
 public:
  Unroller(const Sts& sts, const std::vector<std::optional<int64_t>>& pv, std::string prefix)
      : sts_(sts), c_(sts.ctx()), prefix_(std::move(prefix)) {
    for (size_t i = 0; i < sts.params().size(); ++i) {
      pfrom_.push_back(sts.params()[i]);
      if (i < pv.size() && pv[i]) pto_.push_back(c_.int_val(*pv[i]));
      else pto_.push_back(sts.params()[i]);
    }
  }

  const std::vector<z3::expr>& state(int d) {
    while (static_cast<int>(states_.size()) <= d) {
      int k = static_cast<int>(states_.size());
      std::vector<z3::expr> st;
      for (int v = 0; v < sts_.numVars(); ++v) {
        std::string nm = prefix_ + std::to_string(k) + "!" + sts_.varName(v);
        st.push_back(c_.constant(nm.c_str(), sts_.var(v).get_sort()));
      }
      states_.push_back(std::move(st));
    }
    return states_[d];
  }

  // `e` (over template vars, params, `locals`) at state d with fresh locals.
  z3::expr at(z3::expr e, int d, const std::vector<z3::expr>& locals, const std::string& tagname) {
    Frame f(c_);
    const auto& st = state(d);
    for (int v = 0; v < sts_.numVars(); ++v) {
      f.from.push_back(sts_.var(v));
      f.to.push_back(st[v]);
    }
    for (size_t i = 0; i < pfrom_.size(); ++i) {
      f.from.push_back(pfrom_[i]);
      f.to.push_back(pto_[i]);
    }
    for (const auto& l : locals) {
      f.from.push_back(l);
      std::string nm = prefix_ + std::to_string(d) + "!" + tagname + "!" + l.decl().name().str();
      f.to.push_back(c_.int_const(nm.c_str()));
    }
    return f.apply(e);
  }

  z3::expr paramsApplied(z3::expr e) {
    Frame f(c_);
    for (size_t i = 0; i < pfrom_.size(); ++i) {
      f.from.push_back(pfrom_[i]);
      f.to.push_back(pto_[i]);
    }
    return f.apply(e);
  }

  // Constraints: state d+1 follows from state d by one transition; the
  // selector's value says which.
  // Constraints: state d+1 follows from state d by one transition; the
  // selector's value says which. The selector is a bit-vector (keeps a
  // bit-vector system in QF_BV) or an integer.
  z3::expr selIs(z3::expr sel, int t) const {
    return sel.is_bv() ? sel == c_.bv_val(t, sel.get_sort().bv_size()) : sel == t;
  }
  z3::expr step(int d, z3::expr sel) {
    const auto& trs = sts_.transitions();
    state(d + 1);
    std::vector<z3::expr> parts;
    int n = static_cast<int>(trs.size());
    if (sel.is_bv()) parts.push_back(z3::ult(sel, c_.bv_val(n, sel.get_sort().bv_size())));
    else { parts.push_back(sel >= 0); parts.push_back(sel < n); }
    // next value of each variable as an ite over the transitions that write it
    std::vector<std::vector<std::pair<int, z3::expr>>> writes(sts_.numVars());
    for (int t = 0; t < n; ++t) {
      std::string tn = "t" + std::to_string(t);
      // locals of a transition are shared by its guard and its updates
      Frame f(c_);
      const auto& st = state(d);
      for (int v = 0; v < sts_.numVars(); ++v) { f.from.push_back(sts_.var(v)); f.to.push_back(st[v]); }
      for (size_t i = 0; i < pfrom_.size(); ++i) { f.from.push_back(pfrom_[i]); f.to.push_back(pto_[i]); }
      for (const auto& l : trs[t].locals) {
        f.from.push_back(l);
        std::string nm = prefix_ + std::to_string(d) + "!" + tn + "!" + l.decl().name().str();
        f.to.push_back(c_.int_const(nm.c_str()));
      }
      parts.push_back(z3::implies(selIs(sel, t), f.apply(trs[t].guard)));
      for (const auto& [v, e] : trs[t].updates) writes[v].push_back({t, f.apply(e)});
    }
    const auto& cur = state(d);
    const auto& nxt = state(d + 1);
    for (int v = 0; v < sts_.numVars(); ++v) {
      z3::expr val = cur[v];
      for (auto it = writes[v].rbegin(); it != writes[v].rend(); ++it) val = z3::ite(selIs(sel, it->first), it->second, val);
      parts.push_back(nxt[v] == val);
    }
    return mkAnd(c_, parts);
  }

  z3::expr enabled(int d) {
    std::vector<z3::expr> g;
    const auto& trs = sts_.transitions();
    for (int t = 0; t < static_cast<int>(trs.size()); ++t)
      g.push_back(at(trs[t].guard, d, trs[t].locals, "e" + std::to_string(t)));
    return mkOr(c_, g);
  }

  z3::expr init() {
    std::vector<z3::expr> parts;
    const auto& st = state(0);
    for (int v = 0; v < sts_.numVars(); ++v) parts.push_back(st[v] == paramsApplied(sts_.initOf(v)));
    for (const auto& a : sts_.assumes()) parts.push_back(paramsApplied(a));
    for (size_t i = 0; i < pfrom_.size(); ++i)
      if (!pto_[i].is_numeral()) parts.push_back(pto_[i] == pto_[i]);  // keep params in the formula
    return mkAnd(c_, parts);
  }

  const std::vector<z3::expr>& paramTo() const { return pto_; }

 private:
  const Sts& sts_;
  z3::context& c_;
  std::string prefix_;
  std::vector<z3::expr> pfrom_, pto_;
  std::vector<std::vector<z3::expr>> states_;
};

int64_t evalInt(z3::model& m, z3::expr e) {
  z3::expr v = m.eval(e, true);
  if (v.is_bool()) return v.is_true() ? 1 : 0;
  if (v.is_bv()) {
    uint64_t u = 0;
    if (!v.is_numeral_u64(u)) return 0;
    unsigned w = v.get_sort().bv_size();
    if (w < 64 && (u >> (w - 1)) & 1) return static_cast<int64_t>(u) - (int64_t(1) << w);
    return static_cast<int64_t>(u);
  }
  int64_t out = 0;
  if (v.is_numeral_i64(out)) return out;
  return 0;
}

}  // namespace

// ------------------------------------------------------------------ BMC

// The end of both BMC loops: findings make a Correct run Incorrect, the
// first finding is the headline, and the time is taken.
static BmcResult finishBmc(BmcResult out, const Deadline& deadline) {
  if (out.answer == Answer::Correct && !out.findings.empty()) out.answer = Answer::Incorrect;
  if (!out.findings.empty()) {
    out.bad = out.findings.front().bad;
    out.trace = out.findings.front().trace;
  }
  out.seconds = deadline.elapsedSeconds();
  return out;
}

BmcResult bmcFullDepth(const Sts& sts, const BmcOptions& opts);

BmcResult bmc(const Sts& sts, const BmcOptions& opts) {
  if (opts.full_depth && opts.violations_end_paths) return bmcFullDepth(sts, opts);
  BmcResult out;
  // Z3's incremental solver answers bit-vector queries in its SMT core;
  // a fresh solver from the qfbv tactic (bit-blasting + SAT) is far
  // faster on these. The model is copied back through `last`.
  std::optional<z3::solver> last;
  auto oneShot = [&](z3::solver& s, const Limits& lim, std::vector<z3::expr> as) {
    if (!opts.bit_blast) {
      last.reset();
      QueryResult r = check(s, lim, as);
      if (opts.trace) fprintf(stderr, "  query %s %.3fs\n", std::string(answerName(r.answer)).c_str(), r.seconds);
      return r;
    }
    z3::tactic tac = opts.tactic == "bb"
                         ? (z3::tactic(s.ctx(), "simplify") & z3::tactic(s.ctx(), "bit-blast") & z3::tactic(s.ctx(), "sat"))
                         : z3::tactic(s.ctx(), opts.tactic.c_str());
    z3::solver f = tac.mk_solver();
    z3::expr_vector v = s.assertions();
    for (unsigned i = 0; i < v.size(); ++i) f.add(v[i]);
    for (auto& a : as) f.add(a);
    if (!opts.dump_smt2.empty()) {
      FILE* fo = fopen(opts.dump_smt2.c_str(), "w");
      if (fo) { fputs(f.to_smt2().c_str(), fo); fclose(fo); }
    }
    QueryResult r = check(f, lim);
    last.emplace(f);
    if (opts.trace) fprintf(stderr, "  query %s %.3fs\n", std::string(answerName(r.answer)).c_str(), r.seconds);
    return r;
  };
  auto getModel = [&](z3::solver& s) { return last ? last->get_model() : s.get_model(); };
  z3::context& c = sts.ctx();
  Deadline deadline(opts.limits.timeout_ms);
  const auto& trs = sts.transitions();
  std::vector<int> bads = selectedBads(sts, opts.only_bads);
  // rules still to find -> their bads
  std::map<std::string, std::vector<int>> open;
  for (int b : bads) open[sts.bads()[b].rule].push_back(b);
  std::vector<int> stateBads, transBads;  // the bads that end runs (for clean runs)
  runEndingBads(sts, stateBads, transBads);

  auto limits = [&]() {
    Limits lim = opts.limits;
    lim.timeout_ms = std::max(1u, deadline.remainingMs());
    return lim;
  };
  auto fail = [&](const QueryResult& r, int d) {
    out.answer = r.answer;
    out.reason = r.reason + " (at depth " + std::to_string(d) + ")";
    out.depth = d;
  };
  out.answer = Answer::Correct;  // until a query fails
  try {
    Unroller u(sts, opts.param_values, "b!");
    z3::solver s(c);
    s.add(u.init());
    std::vector<z3::expr> sels;
    unsigned selBits = 1;
    while ((size_t(1) << selBits) < trs.size() + 1) ++selBits;
    ++selBits;  // a sign bit: evalInt reads bit-vectors as signed
    bool done = false;
    for (int d = 0; d <= opts.max_depth && !done; ++d) {
      if (deadline.expired()) {
        out.answer = Answer::FailedToProve;
        out.reason = "timeout after " + std::to_string(opts.limits.timeout_ms / 1000) + " s (at depth " + std::to_string(d) + ")";
        out.depth = d;
        break;
      }
      // literals: each bad at depth d (a transition bad needs a clean state d)
      z3::expr cleanState = c.bool_val(true);
      if (opts.violations_end_paths) {
        std::vector<z3::expr> v;
        for (int b : stateBads) v.push_back(u.at(sts.bads()[b].pred, d, sts.bads()[b].locals, "sb" + std::to_string(b)));
        cleanState = !mkOr(c, v);
        if (sts.stop()) cleanState = cleanState && !u.at(*sts.stop(), d, {}, "stop");
      }
      std::map<int, z3::expr> lit;  // bad -> literal
      for (const auto& [rule, bs] : open)
        for (int b : bs) {
          const auto& B = sts.bads()[b];
          z3::expr l = c.bool_const(("b!bad" + std::to_string(d) + "!" + std::to_string(b)).c_str());
          z3::expr p = u.at(B.pred, d, B.locals, "bad" + std::to_string(b));
          if (B.transition >= 0) p = p && cleanState;
          s.add(l == p);
          lit.emplace(b, l);
        }
      // find every open rule reachable at depth d
      while (!open.empty()) {
        std::vector<z3::expr> any;
        for (const auto& [rule, bs] : open)
          for (int b : bs) any.push_back(lit.at(b));
        z3::expr act = c.bool_const(("b!act" + std::to_string(d) + "!" + std::to_string(out.queries)).c_str());
        s.add(z3::implies(act, mkOr(c, any)));
        QueryResult r = oneShot(s, limits(), {act});
        ++out.queries;
        if (r.answer == Answer::Correct) break;
        if (r.answer != Answer::Incorrect) { fail(r, d); done = true; break; }
        z3::model m = getModel(s);
        std::vector<BmcStep> prefix;
        for (int i = 0; i < d; ++i) {
          BmcStep st;
          st.transition = static_cast<int>(evalInt(m, sels[i]));
          st.tag = trs[st.transition].tag;
          prefix.push_back(st);
        }
        std::vector<int64_t> pv;
        for (const auto& p : u.paramTo()) pv.push_back(evalInt(m, p));
        std::vector<std::vector<int64_t>> states;
        for (int i = 0; i <= d; ++i) {
          std::vector<int64_t> row;
          for (const auto& v : u.state(i)) row.push_back(evalInt(m, v));
          states.push_back(std::move(row));
        }
        std::vector<std::string> hit;
        for (const auto& [rule, bs] : open)
          for (int b : bs)
            if (m.eval(lit.at(b), true).is_true()) {
              BmcFinding f;
              f.rule = rule;
              f.bad = b;
              f.depth = d;
              f.trace = prefix;
              const auto& B = sts.bads()[b];
              if (B.transition >= 0) f.trace.push_back({B.transition, trs[B.transition].tag});
              f.param_values = pv;
              f.states = states;
              out.findings.push_back(std::move(f));
              hit.push_back(rule);
              break;
            }
        if (hit.empty()) {  // cannot happen: the model satisfies `act`
          out.answer = Answer::Error;
          out.reason = "internal: model satisfies no bad literal";
          done = true;
          break;
        }
        for (const auto& h : hit) open.erase(h);
        if (opts.stop_at_first) { done = true; break; }
      }
      if (done) break;
      if (open.empty()) { out.depth = d; break; }
      // unroll step d; with violations ending runs it must be clean
      z3::expr sel = c.bv_const(("b!sel" + std::to_string(d)).c_str(), selBits);
      sels.push_back(sel);
      z3::expr stepF = u.step(d, sel);
      if (opts.trace && d == 0) {
        std::set<unsigned> seen;
        std::vector<z3::expr> todo{stepF};
        while (!todo.empty()) {
          z3::expr e = todo.back(); todo.pop_back();
          if (!seen.insert(e.id()).second) continue;
          if (e.is_app()) for (unsigned i = 0; i < e.num_args(); ++i) todo.push_back(e.arg(i));
        }
        fprintf(stderr, "  vars %d transitions %zu bads %zu step nodes %zu\n", sts.numVars(), trs.size(), sts.bads().size(), seen.size());
      }
      s.add(stepF);
      if (d >= 1)
        for (const auto& [a, b] : opts.forbidden_adjacent)
          s.add(!(u.selIs(sels[d - 1], a) && u.selIs(sel, b)));
      if (opts.violations_end_paths) {
        s.add(cleanState);
        for (int b : transBads) {
          const auto& B = sts.bads()[b];
          s.add(z3::implies(u.selIs(sel, B.transition), !u.at(B.pred, d, B.locals, "tb" + std::to_string(b))));
        }
      }
      // can any (clean) run take step d?
      QueryResult r2 = oneShot(s, limits(), {});
      ++out.queries;
      if (r2.answer == Answer::Correct) {
        out.complete = true;
        out.depth = d;
        break;
      }
      if (r2.answer != Answer::Incorrect) { fail(r2, d); break; }
      out.depth = d + 1;
      if (d == opts.max_depth) break;  // runs go on past the bound
    }
  } catch (const z3::exception& e) {
    out.answer = Answer::Error;
    out.reason = std::string("z3: ") + e.msg();
  }
  return finishBmc(std::move(out), deadline);
}

// Full-depth BMC: unroll to max_depth first (every run of a straight-line
// system ends by then), ask once whether any rule is reachable at any depth,
// then find each reachable rule's shortest depth by binary search. A passing
// system costs one query instead of two per depth.
BmcResult bmcFullDepth(const Sts& sts, const BmcOptions& opts) {
  BmcResult out;
  z3::context& c = sts.ctx();
  Deadline deadline(opts.limits.timeout_ms);
  const auto& trs = sts.transitions();
  std::vector<int> bads = selectedBads(sts, opts.only_bads);
  std::vector<int> stateBads, transBads;
  runEndingBads(sts, stateBads, transBads);
  auto limits = [&]() {
    Limits lim = opts.limits;
    lim.timeout_ms = std::max(1u, deadline.remainingMs());
    return lim;
  };
  const int D = opts.max_depth;
  out.answer = Answer::Correct;
  try {
    Unroller u(sts, opts.param_values, "f!");
    z3::solver s = opts.bit_blast ? z3::tactic(c, "qfbv").mk_solver() : z3::solver(c);
    s.add(u.init());
    unsigned selBits = 1;
    while ((size_t(1) << selBits) < trs.size() + 1) ++selBits;
    ++selBits;
    std::vector<z3::expr> sels;
    // lit[d][b]: bad b at depth d along a clean run
    std::vector<std::map<int, z3::expr>> lit(D + 1);
    for (int d = 0; d <= D; ++d) {
      std::vector<z3::expr> v;
      for (int b : stateBads) v.push_back(u.at(sts.bads()[b].pred, d, sts.bads()[b].locals, "sb" + std::to_string(b)));
      z3::expr clean = !mkOr(c, v);
      if (sts.stop()) clean = clean && !u.at(*sts.stop(), d, {}, "stop");
      for (int b : bads) {
        const auto& B = sts.bads()[b];
        z3::expr p = u.at(B.pred, d, B.locals, "bad" + std::to_string(b));
        if (B.transition >= 0) p = p && clean;
        z3::expr l = c.bool_const(("f!bad" + std::to_string(d) + "!" + std::to_string(b)).c_str());
        s.add(l == p);
        lit[d].emplace(b, l);
      }
      if (d == D) break;
      // step d, clean; a run may also end (stutter) once nothing is enabled
      z3::expr sel = c.bv_const(("f!sel" + std::to_string(d)).c_str(), selBits);
      sels.push_back(sel);
      z3::expr moves = u.enabled(d) && clean;
      z3::expr stepF = u.step(d, sel);
      z3::expr stutter = c.bool_val(true);
      for (int v2 = 0; v2 < sts.numVars(); ++v2) stutter = stutter && u.state(d + 1)[v2] == u.state(d)[v2];
      z3::expr good = stepF;
      for (int b : transBads) {
        const auto& B = sts.bads()[b];
        good = good && z3::implies(u.selIs(sel, B.transition), !u.at(B.pred, d, B.locals, "tb" + std::to_string(b)));
      }
      // a run that cannot (cleanly) go on stays put; later lits are then
      // lits of the same state: harmless for "shortest", which is searched
      z3::expr moved = c.bool_const(("f!moved" + std::to_string(d)).c_str());
      s.add(z3::implies(moved, good && clean));
      s.add(z3::implies(!moved, stutter));
      if (d >= 1) {
        z3::expr prevMoved = c.bool_const(("f!moved" + std::to_string(d - 1)).c_str());
        s.add(z3::implies(moved, prevMoved));  // stutter only at the end
        for (const auto& [a, b] : opts.forbidden_adjacent)
          s.add(!(prevMoved && moved && u.selIs(sels[d - 1], a) && u.selIs(sel, b)));
      }
      (void)moves;
    }
    out.depth = D;
    // the rules to find
    std::map<std::string, std::vector<int>> open;
    for (int b : bads) open[sts.bads()[b].rule].push_back(b);
    auto query = [&](const std::vector<int>& bs, int maxd, z3::model* m) -> Answer {
      std::vector<z3::expr> any;
      for (int d = 0; d <= maxd; ++d)
        for (int b : bs) any.push_back(lit[d].at(b));
      s.push();
      s.add(mkOr(c, any));
      QueryResult r = check(s, limits());
      ++out.queries;
      if (opts.trace) fprintf(stderr, "  fquery %s %.3fs\n", std::string(answerName(r.answer)).c_str(), r.seconds);
      if (r.answer == Answer::Incorrect && m) *m = s.get_model();
      if (r.answer == Answer::FailedToProve || r.answer == Answer::Error) {
        out.answer = r.answer;
        out.reason = r.reason;
      }
      s.pop();
      return r.answer;
    };
    while (!open.empty()) {
      std::vector<int> all;
      for (const auto& [rule, bs] : open) all.insert(all.end(), bs.begin(), bs.end());
      z3::model m(c);
      Answer a = query(all, D, &m);
      if (a == Answer::Correct) break;
      if (a != Answer::Incorrect) break;
      // the rule hit first in this run
      std::string rule;
      int hi = D;
      for (int d = 0; d <= D && rule.empty(); ++d)
        for (int b : all)
          if (m.eval(lit[d].at(b), true).is_true()) { rule = sts.bads()[b].rule; hi = d; break; }
      if (rule.empty()) { out.answer = Answer::Error; out.reason = "internal: no bad literal true"; break; }
      const std::vector<int>& rbs = open.at(rule);
      // binary search the least depth with rule reachable: lo..hi, hi known sat
      int lo = 0;
      z3::model best = m;
      while (lo < hi) {
        int mid = (lo + hi) / 2;
        z3::model mm(c);
        Answer am = query(rbs, mid, &mm);
        if (am == Answer::Incorrect) { hi = mid; best = mm; }
        else if (am == Answer::Correct) lo = mid + 1;
        else break;
      }
      if (out.answer == Answer::FailedToProve || out.answer == Answer::Error) break;
      BmcFinding f;
      f.rule = rule;
      f.depth = hi;
      for (int b : rbs)
        if (best.eval(lit[hi].at(b), true).is_true()) { f.bad = b; break; }
      for (int i = 0; i < hi; ++i) {
        BmcStep st;
        st.transition = static_cast<int>(evalInt(best, sels[i]));
        st.tag = trs[st.transition].tag;
        f.trace.push_back(st);
      }
      if (f.bad >= 0 && sts.bads()[f.bad].transition >= 0)
        f.trace.push_back({sts.bads()[f.bad].transition, trs[sts.bads()[f.bad].transition].tag});
      for (const auto& p : u.paramTo()) f.param_values.push_back(evalInt(best, p));
      out.findings.push_back(std::move(f));
      open.erase(rule);
      if (opts.stop_at_first) break;
    }
    out.complete = true;  // max_depth covers every run (the client's promise)
  } catch (const z3::exception& e) {
    out.answer = Answer::Error;
    out.reason = std::string("z3: ") + e.msg();
  }
  return finishBmc(std::move(out), deadline);
}

Footprint footprints(const Sts& sts) {
  std::map<unsigned, int> varOf;
  for (int v = 0; v < sts.numVars(); ++v) varOf[sts.var(v).id()] = v;
  auto collect = [&](z3::expr e, std::set<int>& out) {
    std::set<unsigned> seen;
    std::vector<z3::expr> todo{e};
    while (!todo.empty()) {
      z3::expr x = todo.back();
      todo.pop_back();
      if (!seen.insert(x.id()).second) continue;
      if (x.is_const()) {
        auto it = varOf.find(x.id());
        if (it != varOf.end()) out.insert(it->second);
      } else if (x.is_app()) {
        for (unsigned i = 0; i < x.num_args(); ++i) todo.push_back(x.arg(i));
      }
    }
  };
  Footprint fp;
  const auto& trs = sts.transitions();
  fp.reads.resize(trs.size());
  fp.writes.resize(trs.size());
  for (size_t t = 0; t < trs.size(); ++t) {
    collect(trs[t].guard, fp.reads[t]);
    for (const auto& [v, e] : trs[t].updates) {
      fp.writes[t].insert(v);
      collect(e, fp.reads[t]);
    }
  }
  for (const auto& b : sts.bads())
    if (b.transition >= 0) collect(b.pred, fp.reads[b.transition]);
  return fp;
}

// ------------------------------------------------------------------ Spacer

ProofResult chc(const Sts& sts, const ProofOptions& opts) {
  ProofResult out;
  out.engine = "spacer";
  z3::context& c = sts.ctx();
  auto t0 = std::chrono::steady_clock::now();
  try {
    z3::fixedpoint fp(c);
    z3::params p(c);
    p.set("engine", "spacer");
    p.set("xform.slice", !opts.hint.has_value());  // covers need it off
    p.set("xform.inline_linear", false);
    p.set("xform.inline_eager", false);
    p.set("spacer.q3", false);
    for (const auto& [k, v] : opts.spacer_params) {
      if (v == "true" || v == "false") p.set(k.c_str(), v == "true");
      else if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0]))) p.set(k.c_str(), static_cast<unsigned>(std::stoul(v)));
      else p.set(k.c_str(), v.c_str());
    }
    fp.set(p);

    z3::sort_vector sorts(c);
    z3::expr_vector V(c), P(c);
    for (int v = 0; v < sts.numVars(); ++v) { sorts.push_back(sts.var(v).get_sort()); V.push_back(sts.var(v)); }
    for (const auto& q : sts.params()) { sorts.push_back(q.get_sort()); P.push_back(q); }
    z3::func_decl inv = c.function("Inv", sorts, c.bool_sort());
    z3::func_decl err = c.function("Err", 0, nullptr, c.bool_sort());
    fp.register_relation(inv);
    fp.register_relation(err);

    auto invApp = [&](const std::vector<z3::expr>& vals) {
      z3::expr_vector args(c);
      for (const auto& e : vals) args.push_back(e);
      for (const auto& q : sts.params()) args.push_back(q);
      return inv(args);
    };
    auto close = [&](z3::expr body, const std::vector<z3::expr>& locals) {
      z3::expr_vector bound(c);
      for (unsigned i = 0; i < V.size(); ++i) bound.push_back(V[i]);
      for (unsigned i = 0; i < P.size(); ++i) bound.push_back(P[i]);
      for (const auto& l : locals) bound.push_back(l);
      return z3::forall(bound, body);
    };

    std::vector<z3::expr> cur;
    for (int v = 0; v < sts.numVars(); ++v) cur.push_back(sts.var(v));

    if (opts.hint) {
      z3::expr_vector from(c), to(c);
      unsigned i = 0;
      for (int v = 0; v < sts.numVars(); ++v, ++i) {
        from.push_back(sts.var(v));
        to.push_back(z3::expr(c, Z3_mk_bound(c, i, sts.var(v).get_sort())));
      }
      for (const auto& q : sts.params()) {
        from.push_back(q);
        to.push_back(z3::expr(c, Z3_mk_bound(c, i++, q.get_sort())));
      }
      z3::expr h = z3::expr(*opts.hint).substitute(from, to);
      fp.add_cover(-1, inv, h);
    }
    // init
    {
      std::vector<z3::expr> init;
      for (int v = 0; v < sts.numVars(); ++v) init.push_back(sts.initOf(v));
      z3::expr r = close(z3::implies(mkAnd(c, sts.assumes()), invApp(init)), {});
      fp.add_rule(r, c.str_symbol("init"));
    }
    // transitions
    for (size_t t = 0; t < sts.transitions().size(); ++t) {
      const auto& T = sts.transitions()[t];
      std::vector<z3::expr> nxt = cur;
      for (const auto& [v, e] : T.updates) nxt[v] = e;
      z3::expr r = close(z3::implies(invApp(cur) && T.guard, invApp(nxt)), T.locals);
      fp.add_rule(r, c.str_symbol(("t" + std::to_string(t)).c_str()));
    }
    // bads
    std::vector<int> bads = selectedBads(sts, opts.only_bads);
    for (int b : bads) {
      const auto& B = sts.bads()[b];
      z3::expr r = close(z3::implies(invApp(cur) && B.pred, err()), B.locals);
      fp.add_rule(r, c.str_symbol(("bad" + std::to_string(b)).c_str()));
    }
    QueryResult q = query(fp, err(), opts.limits);
    out.answer = q.answer;
    out.reason = q.reason;
  } catch (const z3::exception& e) {
    out.answer = Answer::Error;
    out.reason = std::string("z3: ") + e.msg();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// ------------------------------------------------------------ k-induction

ProofResult kinduction(const Sts& sts, const ProofOptions& opts) {
  ProofResult out;
  out.engine = "k-induction";
  z3::context& c = sts.ctx();
  Deadline deadline(opts.limits.timeout_ms);
  std::vector<int> bads = selectedBads(sts, opts.only_bads);
  try {
    for (int k = 1; k <= opts.kind_max_k; ++k) {
      Limits lim = opts.limits;
      lim.timeout_ms = std::max(1u, deadline.remainingMs());
      if (deadline.expired()) {
        out.answer = Answer::FailedToProve;
        out.reason = "timeout";
        break;
      }
      // base: no bad within k steps from init (symbolic params)
      BmcOptions bo;
      bo.max_depth = k;
      bo.limits = lim;
      bo.only_bads = bads;
      BmcResult base = bmc(sts, bo);
      if (base.answer == Answer::Incorrect) {
        out.answer = Answer::Incorrect;
        out.bad = base.bad;
        break;
      }
      if (base.answer != Answer::Correct) { out.answer = base.answer; out.reason = base.reason; break; }
      if (base.complete) { out.answer = Answer::Correct; break; }
      // step: k good states in a row, then a bad one
      Unroller u(sts, {}, "k!");
      z3::solver s(c, "QF_LIA");
      for (const auto& a : sts.assumes()) s.add(a);
      for (int d = 0; d < k; ++d) {
        std::vector<z3::expr> nb;
        for (int b : bads) {
          const auto& B = sts.bads()[b];
          nb.push_back(!u.at(B.pred, d, B.locals, "nb" + std::to_string(b)));
        }
        // a bad with locals is negated for one choice of them: a weaker
        // hypothesis, still sound
        s.add(mkAnd(c, nb));
        s.add(u.step(d, c.int_const(("k!sel" + std::to_string(d)).c_str())));
      }
      std::vector<z3::expr> lastBad;
      for (int b : bads) {
        const auto& B = sts.bads()[b];
        lastBad.push_back(u.at(B.pred, k, B.locals, "lb" + std::to_string(b)));
      }
      s.add(mkOr(c, lastBad));
      QueryResult r = check(s, lim);
      if (r.answer == Answer::Correct) { out.answer = Answer::Correct; break; }
      if (r.answer != Answer::Incorrect) { out.answer = r.answer; out.reason = r.reason; break; }
      if (k == opts.kind_max_k) {
        out.answer = Answer::FailedToProve;
        out.reason = "not " + std::to_string(k) + "-inductive";
      }
    }
  } catch (const z3::exception& e) {
    out.answer = Answer::Error;
    out.reason = std::string("z3: ") + e.msg();
  }
  out.seconds = deadline.elapsedSeconds();
  return out;
}

}  // namespace cake::encoder::z3w
