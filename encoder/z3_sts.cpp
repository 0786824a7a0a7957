#include "encoder/z3_sts.h"

#include <algorithm>
#include <map>

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
        st.push_back(sts_.var(v).is_bool() ? c_.bool_const(nm.c_str()) : c_.int_const(nm.c_str()));
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
  z3::expr step(int d, z3::expr sel) {
    const auto& trs = sts_.transitions();
    state(d + 1);
    std::vector<z3::expr> parts;
    parts.push_back(sel >= 0);
    parts.push_back(sel < static_cast<int>(trs.size()));
    // next value of each variable as an ite over the transitions that write it
    std::vector<std::vector<std::pair<int, z3::expr>>> writes(sts_.numVars());
    for (int t = 0; t < static_cast<int>(trs.size()); ++t) {
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
      parts.push_back(z3::implies(sel == t, f.apply(trs[t].guard)));
      for (const auto& [v, e] : trs[t].updates) writes[v].push_back({t, f.apply(e)});
    }
    const auto& cur = state(d);
    const auto& nxt = state(d + 1);
    for (int v = 0; v < sts_.numVars(); ++v) {
      z3::expr val = cur[v];
      for (auto it = writes[v].rbegin(); it != writes[v].rend(); ++it) val = z3::ite(sel == it->first, it->second, val);
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
  int64_t out = 0;
  if (v.is_numeral_i64(out)) return out;
  return 0;
}

}  // namespace

// ------------------------------------------------------------------ BMC

BmcResult bmc(const Sts& sts, const BmcOptions& opts) {
  BmcResult out;
  z3::context& c = sts.ctx();
  Deadline deadline(opts.limits.timeout_ms);
  try {
    Unroller u(sts, opts.param_values, "b!");
    z3::solver s(c, "QF_LIA");
    s.add(u.init());
    std::vector<int> bads = selectedBads(sts, opts.only_bads);
    std::vector<z3::expr> sels;
    for (int d = 0; d <= opts.max_depth; ++d) {
      Limits lim = opts.limits;
      lim.timeout_ms = std::max(1u, deadline.remainingMs());
      if (deadline.expired()) {
        out.answer = Answer::FailedToProve;
        out.reason = "timeout after " + std::to_string(opts.limits.timeout_ms / 1000.0).substr(0, 4) + " s at depth " + std::to_string(d);
        out.depth = d;
        break;
      }
      // 1. a bad state at depth d?
      std::vector<z3::expr> badLits;
      z3::expr act = c.bool_const(("b!act" + std::to_string(d)).c_str());
      std::vector<z3::expr> which;
      for (int b : bads) {
        const auto& B = sts.bads()[b];
        z3::expr p = u.at(B.pred, d, B.locals, "bad" + std::to_string(b));
        z3::expr lit = c.bool_const(("b!bad" + std::to_string(d) + "!" + std::to_string(b)).c_str());
        s.add(lit == p);
        which.push_back(lit);
      }
      s.add(z3::implies(act, mkOr(c, which)));
      QueryResult r = check(s, lim, {act});
      ++out.queries;
      if (r.answer == Answer::Incorrect) {
        z3::model m = s.get_model();
        out.answer = Answer::Incorrect;
        out.depth = d;
        for (int i = 0; i < d; ++i) {
          BmcStep st;
          st.transition = static_cast<int>(evalInt(m, sels[i]));
          st.tag = sts.transitions()[st.transition].tag;
          out.trace.push_back(st);
        }
        for (size_t i = 0; i < bads.size(); ++i) {
          if (m.eval(which[i], true).is_true()) { out.bad = bads[i]; break; }
        }
        for (const auto& p : u.paramTo()) out.param_values.push_back(evalInt(m, p));
        for (int i = 0; i <= d; ++i) {
          std::vector<int64_t> row;
          for (const auto& v : u.state(i)) row.push_back(evalInt(m, v));
          out.states.push_back(std::move(row));
        }
        if (out.bad >= 0 && sts.bads()[out.bad].transition >= 0) {
          BmcStep st;
          st.transition = sts.bads()[out.bad].transition;
          st.tag = sts.transitions()[st.transition].tag;
          out.trace.push_back(st);
        }
        break;
      }
      if (r.answer != Answer::Correct) {
        out.answer = r.answer;
        out.reason = r.reason + " at depth " + std::to_string(d);
        out.depth = d;
        break;
      }
      // 2. can any run go on past depth d?
      z3::expr go = c.bool_const(("b!go" + std::to_string(d)).c_str());
      s.add(z3::implies(go, u.enabled(d)));
      QueryResult r2 = check(s, lim, {go});
      ++out.queries;
      if (r2.answer == Answer::Correct) {
        out.answer = Answer::Correct;
        out.complete = true;
        out.depth = d;
        break;
      }
      if (r2.answer != Answer::Incorrect) {
        out.answer = r2.answer;
        out.reason = r2.reason + " at depth " + std::to_string(d);
        out.depth = d;
        break;
      }
      if (d == opts.max_depth) {
        out.answer = Answer::Correct;
        out.complete = false;
        out.depth = d;
        break;
      }
      // 3. unroll one more step
      z3::expr sel = c.int_const(("b!sel" + std::to_string(d)).c_str());
      sels.push_back(sel);
      s.add(u.step(d, sel));
    }
  } catch (const z3::exception& e) {
    out.answer = Answer::Error;
    out.reason = std::string("z3: ") + e.msg();
  }
  out.seconds = deadline.elapsedSeconds();
  return out;
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
    p.set("xform.slice", true);
    p.set("xform.inline_linear", false);
    p.set("xform.inline_eager", false);
    p.set("spacer.q3", false);
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
