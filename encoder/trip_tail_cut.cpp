#include "encoder/trip_tail_cut.h"

#include <fmt/format.h>

#include <set>
#include <vector>

#include "encoder/defined_premise.h"
#include "ir/expr_build.h"
#include "ir/expr_canon.h"

namespace cake::encoder::trip {

namespace {

using K = ir::ExprKind;
namespace xb = ir::build;  // (xb: a unity build shares this namespace)

constexpr size_t kMaxCandidates = 8;  // thresholds tried per loop
constexpr int kMaxCutLoops = 16;

ir::ExprPtr loopVarNode(int var) {
  auto v = std::make_shared<ir::Expr>();
  v->kind = K::LoopVar;
  v->index = var;
  return v;
}

ir::ExprPtr instanceNode() {
  auto v = std::make_shared<ir::Expr>();
  v->kind = K::Instance;
  return v;
}

// e with lm.instance() read as `with`.
ir::ExprPtr instanceAs(const ir::ExprPtr& e, const ir::ExprPtr& with) {
  if (!e || !ir::exprUses(*e, {K::Instance})) return e;
  if (e->kind == K::Instance) return with;
  auto out = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : out->args) a = instanceAs(a, with);
  return out;
}

// The step of `for v in lm.range(lo, hi, step)` is 1.
bool stepsByOne(const ir::Stmt& loop) {
  if (!loop.lo || !loop.hi) return false;
  const std::optional<int64_t> step = loop.step ? ir::constValue(loop.step) : std::optional<int64_t>(1);
  return step && *step == 1;
}

// lo <= v < hi: the facts a loop by 1 gives its variable inside its body.
std::vector<ir::ExprPtr> rangeOf(const ir::Stmt& loop) {
  if (!stepsByOne(loop)) return {};
  const ir::ExprPtr v = loopVarNode(loop.loop_var);
  return {xb::le(loop.lo, v), xb::lt(v, loop.hi)};
}

// A loop around a condition: its variable read at its least or greatest
// value to make a threshold of parameters only.
struct Around {
  int var;
  ir::ExprPtr lo, last;  // lo and hi - 1
};

class TailCutter {
 public:
  TailCutter(const ir::Schedule& s, const HoldsUnder& holds) : s_(s), holds_(holds), defined_(s, holds) {}

  // Cuts the loops of `block` (a role body of the copy; `instances` its
  // role's instance count), outermost first.
  void cutIn(ir::Block& block, int instances) {
    instances_ = instances;
    outer_ = {xb::le(xb::lit(0), instanceNode()), xb::lt(instanceNode(), xb::lit(instances))};
    bound_.clear();
    walk(block);
  }

  int cut = 0;
  std::vector<std::string> texts;

 private:
  const ir::Schedule& s_;
  const HoldsUnder& holds_;
  DefinedPremises defined_;  // which conditions and bounds may be premises (sound51, sound52)
  int instances_ = 1;
  std::vector<ir::ExprPtr> outer_;  // premises: the instance's range, the loops around
  std::set<int> bound_;             // the loops around: their variables

  void walk(ir::Block& block) {
    for (ir::Stmt& st : block) {
      if (st.kind == ir::Stmt::Kind::For) {
        if (bound_.count(st.loop_var)) return;  // shadowed: nothing below is asked
        if (cut < kMaxCutLoops && tryCut(st)) continue;
        const std::vector<ir::ExprPtr> r = rangeOf(st);
        outer_.insert(outer_.end(), r.begin(), r.end());
        bound_.insert(st.loop_var);
        walk(st.body);
        bound_.erase(st.loop_var);
        outer_.resize(outer_.size() - r.size());
        continue;
      }
      walk(st.body);
      walk(st.orelse);
    }
  }

  bool asked(const ir::Expr& e) const {
    return !(s_.cluster_ops && s_.clusterSize() > 1 && ir::exprUses(e, {K::BlockIdx, K::GridDim}));
  }

  bool tryCut(ir::Stmt& loop) {
    if (!stepsByOne(loop) || !asked(*loop.hi)) return false;
    std::vector<ir::ExprPtr> candidates;
    std::vector<Around> around;
    collect(loop.body, loop.loop_var, around, candidates);
    for (const ir::ExprPtr& k : candidates) {
      if (ir::sameExpr(*k, *loop.hi) || !holds_(xb::le(k, loop.hi), outer_)) continue;
      std::vector<ir::ExprPtr> past = outer_;
      for (const ir::ExprPtr& r : rangeOf(loop)) past.push_back(r);
      past.push_back(xb::ge(loopVarNode(loop.loop_var), k));
      bound_.insert(loop.loop_var);
      const bool dead = deadUnder(loop.body, past);
      bound_.erase(loop.loop_var);
      if (!dead) continue;
      texts.push_back(fmt::format("lm.range({}, {}) cut at {}", ir::exprToString(*loop.lo, s_),
                                  ir::exprToString(*loop.hi, s_), ir::exprToString(*k, s_)));
      loop.hi = k;
      ++cut;
      return true;
    }
    return false;
  }

  // Thresholds from the conditions under `block` that read loop variable v
  // and a parameter (`around`: the loops between the cut loop and them).
  void collect(const ir::Block& block, int v, std::vector<Around>& around, std::vector<ir::ExprPtr>& out) const {
    for (const ir::Stmt& st : block) {
      if (st.kind == ir::Stmt::Kind::For) {
        if (!stepsByOne(st)) continue;
        around.push_back({st.loop_var, st.lo, xb::sub(st.hi, xb::lit(1))});
        collect(st.body, v, around, out);
        around.pop_back();
        continue;
      }
      if (st.kind == ir::Stmt::Kind::If && st.cond) thresholds(st.cond, v, around, out);
      collect(st.body, v, around, out);
      collect(st.orelse, v, around, out);
    }
  }

  void thresholds(const ir::ExprPtr& cond, int v, const std::vector<Around>& around,
                  std::vector<ir::ExprPtr>& out) const {
    if (cond->kind == K::And) {
      for (const ir::ExprPtr& a : cond->args) thresholds(a, v, around, out);
      return;
    }
    if (!ir::dependsOnLoopVar(*cond, v) || !ir::exprUses(*cond, {K::Param})) return;
    ir::ExprPtr lhs, rhs;
    bool strict = true;
    switch (cond->kind) {
      case K::Lt: lhs = cond->args[0], rhs = cond->args[1]; break;
      case K::Le: lhs = cond->args[0], rhs = cond->args[1], strict = false; break;
      case K::Gt: lhs = cond->args[1], rhs = cond->args[0]; break;
      case K::Ge: lhs = cond->args[1], rhs = cond->args[0], strict = false; break;
      default: return;
    }
    // lhs - rhs = c * v + r: not taken once c * v >= -r (strict) or 1 - r
    const ir::ExprPtr d = xb::sub(lhs, rhs);
    const std::optional<int64_t> c = ir::constantDifference(*ir::substituteLoopVar(d, v, xb::lit(1)),
                                                            *ir::substituteLoopVar(d, v, xb::lit(0)));
    if (!c || *c <= 0) return;
    const ir::ExprPtr r = ir::substituteLoopVar(d, v, xb::lit(0));
    const ir::ExprPtr t = xb::sub(xb::lit(strict ? 0 : 1), r);
    for (const bool least : {true, false}) {
      ir::ExprPtr at = instanceAs(t, xb::lit(least ? 0 : instances_ - 1));
      for (auto it = around.rbegin(); it != around.rend(); ++it)
        at = ir::substituteLoopVar(at, it->var, least ? it->lo : it->last);
      const ir::ExprPtr spelled = ir::polynomialSpelling(at);
      if (!spelled || ir::exprUses(*spelled, {K::LoopVar, K::Instance, K::BlockIdx, K::GridDim})) continue;
      const ir::ExprPtr k = *c == 1 ? spelled : xb::cdiv(spelled, xb::lit(*c));
      if (out.size() >= kMaxCandidates) return;
      bool known = false;
      for (const ir::ExprPtr& o : out) known = known || ir::sameExpr(*o, *k);
      if (!known) out.push_back(k);
    }
  }

  // `e` evaluates (no 64-bit overflow, no zero divisor) wherever `premises`
  // hold. A premise is a fact only where it is defined (the prover reads
  // it as "defined and true"), so an undefined condition or bound inside
  // the tail would drop from the question the very bindings where the
  // builder cannot evaluate it: the copy, which never builds the tail,
  // would then prove a schedule whose systems do not build (sound51). The
  // rule is the gates' too (encoder/defined_premise.h).
  bool definedUnder(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& premises) {
    return defined_.definedUnder(e, premises);
  }

  // Every operation of `block` lies under an `if` branch not taken where
  // `premises` hold (the loops inside read with their ranges).
  bool deadUnder(const ir::Block& block, std::vector<ir::ExprPtr>& premises) {
    for (const ir::Stmt& st : block) {
      switch (st.kind) {
        case ir::Stmt::Kind::Op: return false;
        case ir::Stmt::Kind::For: {
          if (bound_.count(st.loop_var)) return false;
          const std::vector<ir::ExprPtr> r = rangeOf(st);
          for (const ir::ExprPtr& bound : r)
            if (!definedUnder(bound, premises)) return false;
          premises.insert(premises.end(), r.begin(), r.end());
          bound_.insert(st.loop_var);
          const bool dead = deadUnder(st.body, premises);
          bound_.erase(st.loop_var);
          premises.resize(premises.size() - r.size());
          if (!dead) return false;
          break;
        }
        case ir::Stmt::Kind::If:
          if (!st.cond || !asked(*st.cond)) return false;
          if (!branchDead(st.body, st.cond, premises)) return false;
          if (!st.orelse.empty() && !branchDead(st.orelse, xb::lnot(st.cond), premises)) return false;
          break;
      }
    }
    return true;
  }

  // The branch taken where `taken` holds builds nothing under `premises`.
  bool branchDead(const ir::Block& branch, const ir::ExprPtr& taken, std::vector<ir::ExprPtr>& premises) {
    if (holds_(xb::lnot(taken), premises)) return true;
    if (!definedUnder(taken, premises)) return false;
    premises.push_back(taken);
    const bool dead = deadUnder(branch, premises);
    premises.pop_back();
    return dead;
  }
};

}  // namespace

std::optional<CutTails> cutDeadTails(const ir::Schedule& s, const HoldsUnder& holds) {
  auto copy = std::make_shared<ir::Schedule>(s);
  TailCutter cutter(*copy, holds);
  for (ir::RoleBody& body : copy->bodies) {
    const int instances = body.role >= 0 && body.role < static_cast<int>(copy->roles.size())
                              ? copy->roles[body.role].instanceCount()
                              : 1;
    cutter.cutIn(body.body, instances);
  }
  if (!cutter.cut) return std::nullopt;
  CutTails out;
  out.s = std::move(copy);
  out.cut = cutter.cut;
  for (const std::string& t : cutter.texts)
    if (out.text.find(t) == std::string::npos) out.text += (out.text.empty() ? "" : ", ") + t;
  return out;
}

}  // namespace cake::encoder::trip
