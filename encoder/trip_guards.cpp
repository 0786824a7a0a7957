// Guards on unbounded parameters in lap induction (trip_guards.h, docs/z3.md
// step 1).
#include "encoder/trip_guards.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ir/expect_tx.h"

namespace cake::encoder::trip {

namespace {

// e with every lm.block_idx(d) replaced by cluster[d] * lm.block_idx(d) +
// c[d], and every `lm.block_idx(d) % cluster[d]` (the rank) by c[d]: its
// value at that block index for every lm.block_idx(d) >= 0, written so that
// the solver need not divide (trip_cluster.h evaluates it so too).
ir::ExprPtr atCta(const ir::ExprPtr& e, const ir::Schedule& s, const int c[3]) {
  if (e->kind == ir::ExprKind::Mod && e->args.size() == 2 && e->args[0] && e->args[1] &&
      e->args[0]->kind == ir::ExprKind::BlockIdx && e->args[0]->index >= 0 && e->args[0]->index <= 2 &&
      ir::constValue(e->args[1]) == s.cluster[e->args[0]->index])
    return ir::makeConst(c[e->args[0]->index]);
  if (e->kind == ir::ExprKind::BlockIdx && e->index >= 0 && e->index <= 2)
    return ir::makeExpr(ir::ExprKind::Add,
                        {ir::makeExpr(ir::ExprKind::Mul, {ir::makeConst(s.cluster[e->index]), e}), ir::makeConst(c[e->index])});
  if (e->args.empty()) return e;
  std::vector<ir::ExprPtr> args;
  for (const ir::ExprPtr& a : e->args) args.push_back(a ? atCta(a, s, c) : a);
  auto out = std::make_shared<ir::Expr>(*e);
  out->args = std::move(args);
  return out;
}

// e with its sums written canonically: every maximal tree of +, -, unary -,
// products with a constant and constants becomes sum(coefficient * atom) +
// constant, the atoms (every other sub-expression, itself rewritten so)
// in the order of their first occurrence, equal atoms (sameExpr) merged and
// zero terms dropped. An identity of integers, so a goal over it holds
// exactly when over e; it lets `(2 * b + 1) - 1` and `2 * b + 0 - 0` be one
// term, whose floor division the solver then need not prove equal.
struct Linear {
  std::vector<std::pair<ir::ExprPtr, int64_t>> terms;
  int64_t constant = 0;
  void add(const ir::ExprPtr& atom, int64_t k) {
    for (auto& [a, c] : terms)
      if (ir::sameExpr(*a, *atom)) {
        c += k;
        return;
      }
    terms.emplace_back(atom, k);
  }
};
ir::ExprPtr canonical(const ir::ExprPtr& e);
// e with its arguments written canonically (e itself an atom).
ir::ExprPtr argsCanonical(const ir::ExprPtr& e) {
  if (e->args.empty()) return e;
  auto out = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : out->args)
    if (a) a = canonical(a);
  return out;
}
void linearOf(const ir::ExprPtr& e, int64_t k, Linear& out) {
  using K = ir::ExprKind;
  if (auto v = ir::constValue(e); v && e->kind == K::Const) {
    out.constant += k * *v;
    return;
  }
  if ((e->kind == K::Add || e->kind == K::Sub) && e->args.size() == 2 && e->args[0] && e->args[1]) {
    linearOf(e->args[0], k, out);
    linearOf(e->args[1], e->kind == K::Add ? k : -k, out);
    return;
  }
  if (e->kind == K::Neg && e->args.size() == 1 && e->args[0]) return linearOf(e->args[0], -k, out);
  if (e->kind == K::Mul && e->args.size() == 2 && e->args[0] && e->args[1]) {
    if (e->args[0]->kind == K::Const) return linearOf(e->args[1], k * e->args[0]->value, out);
    if (e->args[1]->kind == K::Const) return linearOf(e->args[0], k * e->args[1]->value, out);
  }
  out.add(argsCanonical(e), k);
}
ir::ExprPtr canonical(const ir::ExprPtr& e) {
  using K = ir::ExprKind;
  if (e->kind == K::Add || e->kind == K::Sub || e->kind == K::Neg || e->kind == K::Mul) {
    Linear l;
    linearOf(e, 1, l);
    // an atom the products did not take apart (a product of two
    // non-constants) is itself with its arguments rewritten (argsCanonical)
    ir::ExprPtr sum;
    for (const auto& [a, c] : l.terms) {
      if (c == 0) continue;
      ir::ExprPtr term = c == 1 ? a : ir::makeExpr(K::Mul, {ir::makeConst(c), a});
      sum = sum ? ir::makeExpr(K::Add, {sum, term}) : term;
    }
    if (!sum) return ir::makeConst(l.constant);
    return l.constant ? ir::makeExpr(K::Add, {sum, ir::makeConst(l.constant)}) : sum;
  }
  return argsCanonical(e);
}

// Is `goal` false at one of a few small assignments that satisfy every
// lm.assume fact (every parameter v in -1..4, every block index 0..3, every
// grid size 64)? A cheap answer before the solver, whose search for such a
// point over floor divisions by a parameter can take minutes; a refuted
// goal only keeps the split from applying.
bool refutedAtASample(const ir::Schedule& s, const ir::Expr& goal) {
  for (int64_t v = -1; v <= 4; ++v)
    for (int64_t b = 0; b <= 3; ++b) {
      ir::EvalEnv env;
      for (int p = 0; p < static_cast<int>(s.params.size()); ++p)
        if (s.params[p].type == ir::ParamType::I32) env.params[p] = v;
      for (int d = 0; d < 3; ++d) {
        env.block_idx[d] = b;
        env.grid_dim[d] = 64;
      }
      bool allowed = true;
      for (const ir::Assume& a : s.assumes) {
        const auto x = a.cond ? ir::evaluate(*a.cond, env) : std::nullopt;
        if (!x || *x == 0) allowed = false;
      }
      const auto g = ir::evaluate(goal, env);
      if (allowed && g && *g == 0) return true;
    }
  return false;
}

// Collects the deciding conditions; false when one reads a parameter and a
// loop variable or the instance, or (with `holds`) when one that reads a
// block index is not shown to take one outcome in every CTA of a modelled
// cluster (sameInEveryCta).
// (`instances`: the body's role's instance count, or 0 where a condition
// that reads lm.instance() refuses the split; `counts` gets it per node.)
bool collectGuards(const ir::Schedule& s, const ir::Block& b, std::vector<const ir::Expr*>& out, const Holds* holds,
                   int instances = 0, std::vector<int>* counts = nullptr) {
  using K = ir::ExprKind;
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::If && st.cond &&
        ir::exprUses(*st.cond, {K::Param, K::BlockIdx, K::GridDim})) {
      // (a condition that reads a loop variable too is no guard to decide:
      // a trip-count guard beside it, Triton's persistent prologue's
      // `if k_tiles > 1:` beside the refill's `if k + 2 < k_tiles:`, still
      // is; docs/z3.md "A self-prefetching persistent ring (helper tri47)")
      if (ir::exprUses(*st.cond, {K::LoopVar})) {
        if (!collectGuards(s, st.body, out, holds, instances, counts) ||
            !collectGuards(s, st.orelse, out, holds, instances, counts))
          return false;
        continue;
      }
      const bool per_instance = ir::exprUses(*st.cond, {K::Instance});
      if (per_instance && (instances <= 0 || (s.cluster_ops && s.clusterSize() > 1))) return false;
      if (holds) {
        const auto goals = sameInEveryCta(s, *st.cond);
        if (!goals) return false;
        for (const ir::ExprPtr& g : *goals)
          if (refutedAtASample(s, *g) || !(*holds)(g)) return false;
      }
      out.push_back(st.cond.get());
      if (counts) counts->push_back(per_instance ? instances : 0);
    }
    if (!collectGuards(s, st.body, out, holds, instances, counts) ||
        !collectGuards(s, st.orelse, out, holds, instances, counts))
      return false;
  }
  return true;
}

// e with every lm.instance() replaced by the constant i.
ir::ExprPtr atInstance(const ir::ExprPtr& e, int64_t i) {
  if (e->kind == ir::ExprKind::Instance) return ir::makeConst(i);
  if (e->args.empty()) return e;
  auto out = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : out->args)
    if (a) a = atInstance(a, i);
  return out;
}

// b with every `if` whose condition is guards[i] (by node) replaced by
// the branch bit i of mask chooses: its statements spliced into b, or
// (`keep`) the `if` kept with its condition the constant outcome (both
// branches stay, so every plan made from the statements stays too).
void splice(ir::Block& b, const std::vector<const ir::Expr*>& nodes, const std::vector<size_t>& which,
            uint32_t mask, bool keep) {
  ir::Block out;
  for (ir::Stmt& st : b) {
    splice(st.body, nodes, which, mask, keep);
    splice(st.orelse, nodes, which, mask, keep);
    auto it = std::find(nodes.begin(), nodes.end(), st.cond.get());
    if (st.kind != ir::Stmt::Kind::If || !st.cond || it == nodes.end()) {
      out.push_back(std::move(st));
      continue;
    }
    const bool taken = (mask >> which[static_cast<size_t>(it - nodes.begin())]) & 1;
    if (keep) {
      st.cond = ir::makeConst(taken ? 1 : 0, st.cond->range);
      out.push_back(std::move(st));
      continue;
    }
    for (ir::Stmt& x : taken ? st.body : st.orelse) out.push_back(std::move(x));
  }
  b = std::move(out);
}

// The derived expect_tx plan (ir/expect_tx.h) by the source locations of
// its loads: the batches, and the (role, barrier) pairs it derives for;
// nullopt when two TMA loads share a location.
struct PlanAt {
  std::set<std::vector<LoadAt>> batches;
  std::set<std::pair<int, int>> derived;
};
std::optional<PlanAt> planAt(const ir::Schedule& s) {
  std::set<LoadAt> seen;
  bool unique = true;
  for (const ir::RoleBody& body : s.bodies)
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      if (st.op.kind == ir::OpKind::TmaLoad) unique &= seen.insert({st.range.line, st.range.col}).second;
    });
  if (!unique) return std::nullopt;
  const ir::TxPlan plan = ir::planDerivedTx(s);
  PlanAt out;
  out.derived = plan.derived;
  for (const ir::TxBatch& b : plan.batches) {
    std::vector<LoadAt> loads;
    for (const ir::Stmt* l : b.loads) loads.push_back({l->range.line, l->range.col});
    out.batches.insert(std::move(loads));
  }
  return out;
}

}  // namespace

// Does the spliced copy keep the schedule's derived expect_tx? A spliced
// branch joins the statements around its `if` into one list, which can
// join two batches into one (one derived arrival instead of two), and it
// leaves out the other branch's ops, which can leave out a role's explicit
// lm.expect_tx (its loads then get derived ones). Every batch of the copy
// must be one of the schedule's and the derived pairs the same.
bool sameDerivedTx(const ir::Schedule& s, const ir::Schedule& copy) {
  const auto a = planAt(s), b = planAt(copy);
  if (!a || !b || a->derived != b->derived) return false;
  return std::all_of(b->batches.begin(), b->batches.end(), [&](const auto& x) { return a->batches.count(x) > 0; });
}

bool derivedTxReadAs(const ir::Schedule& s, const ir::Schedule& copy,
                     const std::function<std::vector<std::vector<LoadAt>>(const std::vector<LoadAt>&)>& read_as) {
  const auto a = planAt(s), b = planAt(copy);
  if (!a || !b || a->derived != b->derived) return false;
  std::set<std::vector<LoadAt>> read;
  for (const std::vector<LoadAt>& x : b->batches)
    for (std::vector<LoadAt>& y : read_as(x)) read.insert(std::move(y));
  return read == a->batches;
}

namespace {

// The guards' nodes, and the distinct conditions among them (up to
// structure: one outcome for every copy); false when the split does not apply.
// (`instances`, when given: conditions that read lm.instance() are guards
// too, and instances[g] is the most instances of a role that tests guard g,
// 0 for a guard that reads no instance.)
bool distinctGuards(const ir::Schedule& s, int max_guards, std::vector<const ir::Expr*>& nodes,
                    std::vector<const ir::Expr*>& guards, std::vector<size_t>& which, const Holds* holds,
                    std::vector<int>* instances = nullptr) {
  std::vector<int> counts;
  for (const ir::RoleBody& body : s.bodies) {
    const int n = !instances                                                           ? 0
                  : body.role >= 0 && body.role < static_cast<int>(s.roles.size()) ? std::max(1, s.roles[body.role].instanceCount())
                                                                                     : 1;
    if (!collectGuards(s, body.body, nodes, holds, n, &counts)) return false;
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Expr* n = nodes[i];
    auto it = std::find_if(guards.begin(), guards.end(), [&](const ir::Expr* g) { return ir::sameExpr(*g, *n); });
    which.push_back(static_cast<size_t>(it - guards.begin()));  // nodes[i] is guards[which[i]]
    if (it == guards.end()) {
      guards.push_back(n);
      if (instances) instances->push_back(0);
    }
    if (instances) (*instances)[which.back()] = std::max((*instances)[which.back()], counts[i]);
  }
  return !guards.empty() && static_cast<int>(guards.size()) <= max_guards;
}

// A copy of s with every `if` whose condition is nodes[i] replaced by the
// branch bit which[i] of mask chooses: spliced in, or, where splicing would
// change the derived expect_tx plan (sameDerivedTx), kept with its
// condition the constant outcome (the statements, and so the plan, stay).
std::shared_ptr<ir::Schedule> splicedCopy(const ir::Schedule& s, const std::vector<const ir::Expr*>& nodes,
                                          const std::vector<size_t>& which, uint32_t mask) {
  auto copy = std::make_shared<ir::Schedule>(s);
  for (ir::RoleBody& body : copy->bodies) splice(body.body, nodes, which, mask, false);
  if (sameDerivedTx(s, *copy)) return copy;
  copy = std::make_shared<ir::Schedule>(s);
  for (ir::RoleBody& body : copy->bodies) splice(body.body, nodes, which, mask, true);
  return copy;
}

}  // namespace

std::optional<std::vector<ir::ExprPtr>> sameInEveryCta(const ir::Schedule& s, const ir::Expr& cond) {
  if (!s.cluster_ops || s.clusterSize() <= 1 || !ir::exprUses(cond, {ir::ExprKind::BlockIdx}))
    return std::vector<ir::ExprPtr>{};
  for (const ir::Assume& a : s.assumes)
    if (a.cond && ir::exprUses(*a.cond, {ir::ExprKind::BlockIdx})) return std::nullopt;
  const ir::ExprPtr e = std::make_shared<ir::Expr>(cond);
  auto truth = [](const ir::ExprPtr& x) { return ir::makeExpr(ir::ExprKind::Not, {x}); };  // 0 or 1
  const int zero[3] = {0, 0, 0};
  const ir::ExprPtr first = truth(canonical(atCta(e, s, zero)));
  std::vector<ir::ExprPtr> goals;
  for (int x = 0; x < s.cluster[0]; ++x)
    for (int y = 0; y < s.cluster[1]; ++y)
      for (int z = 0; z < s.cluster[2]; ++z) {
        const int c[3] = {x, y, z};
        if (x || y || z) goals.push_back(ir::makeExpr(ir::ExprKind::Eq, {truth(canonical(atCta(e, s, c))), first}));
      }
  return goals;
}

int guardCount(const ir::Schedule& s, int max_guards) {
  std::vector<const ir::Expr*> nodes, guards;
  std::vector<size_t> which;
  return distinctGuards(s, max_guards, nodes, guards, which, nullptr) ? static_cast<int>(guards.size()) : 0;
}

std::vector<GuardCase> guardCases(const ir::Schedule& s,
                                  const std::function<bool(const std::vector<ir::ExprPtr>& facts)>& possible,
                                  const Holds& holds, int max_guards) {
  std::vector<const ir::Expr*> nodes, guards;
  std::vector<size_t> which;
  if (!distinctGuards(s, max_guards, nodes, guards, which, &holds)) return {};
  std::vector<GuardCase> out;
  for (uint32_t mask = 0; mask < (1u << guards.size()); ++mask) {
    std::vector<ir::ExprPtr> facts;
    std::string text;
    for (size_t i = 0; i < guards.size(); ++i) {
      auto cond = std::make_shared<ir::Expr>(*guards[i]);  // a node of its own (shares the arguments)
      facts.push_back((mask >> i) & 1 ? ir::ExprPtr(cond) : ir::makeExpr(ir::ExprKind::Not, {cond}));
      text += fmt::format("{}{} {}", i ? ", " : "", ir::exprToString(*guards[i], s),
                          (mask >> i) & 1 ? "taken" : "not taken");
    }
    if (!possible(facts)) continue;
    GuardCase c;
    c.s = splicedCopy(s, nodes, which, mask);
    for (const ir::ExprPtr& f : facts) c.s->assumes.push_back({f, s.range});
    c.text = std::move(text);
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<DecidedGuards> decideGuards(const ir::Schedule& s, const Holds& holds) {
  constexpr int kMaxDecided = 32;  // one bit of the splice mask each
  std::vector<const ir::Expr*> nodes, guards;
  std::vector<size_t> which;
  if (!distinctGuards(s, kMaxDecided, nodes, guards, which, &holds)) return std::nullopt;
  std::vector<int> decided(guards.size(), -1);  // per guard: its index among the decided ones
  std::vector<const ir::Expr*> decided_nodes;
  std::vector<size_t> decided_which;
  uint32_t mask = 0;
  DecidedGuards out;
  for (size_t g = 0; g < guards.size(); ++g) {
    auto cond = std::make_shared<ir::Expr>(*guards[g]);
    const bool taken = holds(cond);
    if (!taken && !holds(ir::makeExpr(ir::ExprKind::Not, {cond}))) continue;
    decided[g] = out.count++;
    if (taken) mask |= 1u << decided[g];
    out.text += fmt::format("{}{} {}", decided[g] ? ", " : "", ir::exprToString(*guards[g], s),
                            taken ? "taken" : "not taken");
  }
  if (out.count == 0) return std::nullopt;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (decided[which[i]] >= 0) {
      decided_nodes.push_back(nodes[i]);
      decided_which.push_back(static_cast<size_t>(decided[which[i]]));
    }
  out.s = splicedCopy(s, decided_nodes, decided_which, mask);
  return out;
}

namespace {

// The facts a loop gives its variable inside its body (decideLoopGuards);
// none where its step is not a non-zero constant.
std::vector<ir::ExprPtr> loopRange(const ir::Stmt& loop) {
  using K = ir::ExprKind;
  const std::optional<int64_t> step = loop.step ? ir::constValue(loop.step) : std::optional<int64_t>(1);
  if (!step || *step == 0 || !loop.lo || !loop.hi) return {};
  auto v = std::make_shared<ir::Expr>();
  v->kind = K::LoopVar;
  v->index = loop.loop_var;
  if (*step > 0) return {ir::makeExpr(K::Le, {loop.lo, v}), ir::makeExpr(K::Lt, {v, loop.hi})};
  return {ir::makeExpr(K::Lt, {loop.hi, v}), ir::makeExpr(K::Le, {v, loop.lo})};
}

// Every `if` condition that reads a loop variable, with its outcome under
// the ranges of the loops around each `if` it guards: 1 taken, 0 not, -1
// undecided (a node guarding several `if`s is decided only where every
// one of them gives it the same outcome: the splice replaces them all).
struct LoopGuardWalk {
  const ir::Schedule& s;
  const HoldsUnder& holds;
  std::vector<ir::ExprPtr> ranges;  // the enclosing loops' facts
  std::set<int> bound;              // the enclosing loops' variables
  std::vector<std::pair<const ir::Expr*, int>> outcomes;

  bool asked(const ir::Expr& cond) const {
    using K = ir::ExprKind;
    if (!ir::exprUses(cond, {K::LoopVar})) return false;
    return !(s.cluster_ops && s.clusterSize() > 1 && ir::exprUses(cond, {K::BlockIdx, K::GridDim}));
  }
  int outcome(const ir::ExprPtr& cond) const {
    if (!asked(*cond)) return -1;
    if (holds(cond, ranges)) return 1;
    return holds(ir::makeExpr(ir::ExprKind::Not, {cond}), ranges) ? 0 : -1;
  }
  void decide(const ir::ExprPtr& cond) {
    constexpr size_t kMaxAsked = 64;
    auto it = std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& o) { return o.first == cond.get(); });
    if (it == outcomes.end()) {
      if (outcomes.size() < kMaxAsked) outcomes.emplace_back(cond.get(), outcome(cond));
      else outcomes.emplace_back(cond.get(), -1);
    } else if (it->second >= 0 && outcome(cond) != it->second) {
      it->second = -1;
    }
  }
  void walk(const ir::Block& b) {
    for (const ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::For) {
        if (bound.count(st.loop_var)) {  // shadowed: the outer range is not this variable's
          undecideAll(st.body);
          continue;
        }
        const std::vector<ir::ExprPtr> r = loopRange(st);
        ranges.insert(ranges.end(), r.begin(), r.end());
        bound.insert(st.loop_var);
        walk(st.body);
        bound.erase(st.loop_var);
        ranges.resize(ranges.size() - r.size());
        continue;
      }
      if (st.kind == ir::Stmt::Kind::If && st.cond) decide(st.cond);
      walk(st.body);
      walk(st.orelse);
    }
  }
  // every `if` of b undecided (a node it shares with a decided one too)
  void undecideAll(const ir::Block& b) {
    for (const ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::If && st.cond) {
        auto it = std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& o) { return o.first == st.cond.get(); });
        if (it == outcomes.end()) outcomes.emplace_back(st.cond.get(), -1);
        else it->second = -1;
      }
      undecideAll(st.body);
      undecideAll(st.orelse);
    }
  }
};

}  // namespace

std::optional<DecidedGuards> decideLoopGuards(const ir::Schedule& s, const HoldsUnder& holds) {
  constexpr size_t kMaxDecided = 32;  // one bit of the splice mask each
  LoopGuardWalk w{s, holds, {}, {}, {}};
  for (const ir::RoleBody& body : s.bodies) w.walk(body.body);
  std::vector<const ir::Expr*> nodes;
  std::vector<size_t> which;
  uint32_t mask = 0;
  std::vector<std::string> texts;
  DecidedGuards out;
  for (const auto& [node, taken] : w.outcomes) {
    if (taken < 0 || nodes.size() >= kMaxDecided) continue;
    if (taken) mask |= 1u << nodes.size();
    which.push_back(nodes.size());
    nodes.push_back(node);
    std::string text = fmt::format("{} {}", ir::exprToString(*node, s), taken ? "taken" : "not taken");
    if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(std::move(text));
  }
  if (nodes.empty()) return std::nullopt;
  out.s = splicedCopy(s, nodes, which, mask);
  out.count = static_cast<int>(nodes.size());
  for (const std::string& t : texts) out.text += (out.text.empty() ? "" : ", ") + t;
  return out;
}

namespace {

using ir::sameOptExpr;

// An operand as the builder reads it: a scalar operand's literal is a value.
bool sameBuiltRef(const ir::BufferRef& a, const ir::BufferRef& b) {
  if (a.kind != b.kind || a.index != b.index || !sameOptExpr(a.slot, b.slot) || a.slices.size() != b.slices.size())
    return false;
  for (size_t i = 0; i < a.slices.size(); ++i)
    if (!sameOptExpr(a.slices[i].lo, b.slices[i].lo) || !sameOptExpr(a.slices[i].hi, b.slices[i].hi)) return false;
  return true;
}

// Everything of an op but the values it computes or writes (fill value,
// op=, axis=, base=, scalar operands) and its source location.
bool sameBuiltOp(const ir::Op& a, const ir::Op& b) {
  if (a.kind != b.kind || a.sel.mode != b.sel.mode || a.barrier != b.barrier || a.named_barrier != b.named_barrier ||
      a.coords.size() != b.coords.size())
    return false;
  for (size_t i = 0; i < a.coords.size(); ++i)
    if (!sameOptExpr(a.coords[i], b.coords[i])) return false;
  for (auto [x, y] : {std::pair{&a.sel.index, &b.sel.index}, {&a.sel.phase, &b.sel.phase}, {&a.bytes, &b.bytes},
                      {&a.count, &b.count}, {&a.pending, &b.pending}, {&a.init, &b.init},
                      {&a.multicast, &b.multicast}, {&a.cta, &b.cta}})
    if (!sameOptExpr(*x, *y)) return false;
  return sameBuiltRef(a.dst, b.dst) && sameBuiltRef(a.src, b.src) && sameBuiltRef(a.src2, b.src2);
}

// Names every view slot it touches by parameters and constants only (one
// index per binding; branchesBuildAlike says why).
bool viewSlotsFixed(const ir::Op& o) {
  using K = ir::ExprKind;
  auto fixed = [](const ir::ExprPtr& e) { return !e || !ir::exprUses(*e, {K::LoopVar, K::Instance, K::BlockIdx, K::GridDim}); };
  bool view = false;
  for (const ir::BufferRef* r : {&o.dst, &o.src, &o.src2})
    if (r->kind == ir::BufferRef::Kind::View) {
      view = true;
      if (!fixed(r->slot)) return false;
    }
  return !view || fixed(o.sel.index);
}

bool stmtBuildsAlike(const ir::Stmt& a, const ir::Stmt& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case ir::Stmt::Kind::Op: return sameBuiltOp(a.op, b.op) && viewSlotsFixed(a.op);
    case ir::Stmt::Kind::If:
      return sameOptExpr(a.cond, b.cond) && branchesBuildAlike(a.body, b.body) &&
             branchesBuildAlike(a.orelse, b.orelse);
    case ir::Stmt::Kind::For: return false;
  }
  return false;
}

void dropAlike(const ir::Schedule& s, ir::Block& b, const Holds& holds, AlikeGuards& out) {
  using K = ir::ExprKind;
  for (ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::If && st.cond && ir::exprUses(*st.cond, {K::Param, K::BlockIdx, K::GridDim}) &&
        branchesBuildAlike(st.body, st.orelse) &&
        holds(ir::makeExpr(K::Or, {st.cond, ir::makeExpr(K::Not, {st.cond})}))) {
      out.text += fmt::format("{}{}", out.count ? ", " : "", ir::exprToString(*st.cond, s));
      ++out.count;
      st.cond = ir::makeConst(1, st.cond->range);
      dropAlike(s, st.body, holds, out);  // the branch the copy builds
      continue;
    }
    dropAlike(s, st.body, holds, out);
    dropAlike(s, st.orelse, holds, out);
  }
}

}  // namespace

bool branchesBuildAlike(const ir::Block& a, const ir::Block& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!stmtBuildsAlike(a[i], b[i])) return false;
  return true;
}

std::optional<AlikeGuards> dropAlikeGuards(const ir::Schedule& s, const Holds& holds) {
  AlikeGuards out;
  auto copy = std::make_shared<ir::Schedule>(s);
  for (ir::RoleBody& body : copy->bodies) dropAlike(s, body.body, holds, out);
  if (out.count == 0) return std::nullopt;
  out.s = std::move(copy);
  return out;
}

bool isTruthValue(ir::ExprKind k) {
  using K = ir::ExprKind;
  return k == K::Lt || k == K::Le || k == K::Gt || k == K::Ge || k == K::Eq || k == K::Ne || k == K::And ||
         k == K::Or || k == K::Not;
}

namespace {
void collectAtoms(const ir::Block& b, int role, GuardAtoms& out) {
  using K = ir::ExprKind;
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::If && st.cond && isTruthValue(st.cond->kind) &&
        ir::exprUses(*st.cond, {K::Param, K::BlockIdx, K::GridDim}) && !ir::exprUses(*st.cond, {K::LoopVar})) {
      size_t i = 0;
      while (i < out.atoms.size() && !ir::sameExpr(*out.atoms[i].cond, *st.cond)) ++i;
      if (i == out.atoms.size()) out.atoms.push_back({st.cond, ir::exprUses(*st.cond, {K::Instance})});
      out.uses.push_back({i, st.cond, role});
    }
    collectAtoms(st.body, role, out);
    collectAtoms(st.orelse, role, out);
  }
}
}  // namespace

GuardAtoms guardAtoms(const ir::Schedule& s) {
  GuardAtoms out;
  for (const ir::RoleBody& rb : s.bodies)
    collectAtoms(rb.body, rb.role >= 0 && rb.role < static_cast<int>(s.roles.size()) ? rb.role : -1, out);
  return out;
}

std::vector<GuardOutcome> guardOutcomes(const ir::Schedule& s, const Holds& holds, int max_guards,
                                        const Possible* possible) {
  // Structurally equal conditions (no loop variable; in a cluster, one
  // outcome in every CTA) have one value for a binding: one outcome for all
  // their copies; one per instance where they read lm.instance().
  std::vector<const ir::Expr*> nodes, guards;
  std::vector<size_t> which;
  std::vector<int> instances;
  if (!distinctGuards(s, max_guards, nodes, guards, which, &holds, possible ? &instances : nullptr)) return {};
  // the outcomes: (guard, instance), instance -1 for a guard that reads none
  std::vector<std::pair<size_t, int64_t>> keys;
  for (size_t g = 0; g < guards.size(); ++g) {
    if (!possible || instances[g] == 0) keys.push_back({g, -1});
    else
      for (int64_t i = 0; i < instances[g]; ++i) keys.push_back({g, i});
  }
  const bool per_instance = keys.size() > guards.size();
  if (keys.size() > kMaxGuardOutcomes) return {};
  auto literal = [&](size_t k, bool value) {
    ir::ExprPtr c = std::make_shared<ir::Expr>(*guards[keys[k].first]);  // a node of its own (shares the arguments)
    if (keys[k].second >= 0) c = atInstance(c, keys[k].second);
    return value ? c : ir::makeExpr(ir::ExprKind::Not, {c});
  };
  // Per instance, a guard's outcome stands for a binding only where the
  // guard is defined (the builder evaluates it): shown for every allowed one.
  if (per_instance)
    for (size_t k = 0; k < keys.size(); ++k)
      if (!holds(ir::makeExpr(ir::ExprKind::Or, {literal(k, true), literal(k, false)}))) return {};
  // The outcome vectors: all of them, or (per instance) those whose every
  // prefix `possible` does not rule out (a depth-first search).
  std::vector<std::vector<bool>> vectors;
  std::vector<bool> v;
  std::vector<ir::ExprPtr> lits;
  std::function<void()> search = [&] {
    if (v.size() == keys.size()) {
      vectors.push_back(v);
      return;
    }
    for (const bool value : {true, false}) {
      v.push_back(value);
      lits.push_back(literal(v.size() - 1, value));
      if (!per_instance || (*possible)(lits)) search();
      lits.pop_back();
      v.pop_back();
    }
  };
  search();
  std::vector<GuardOutcome> out;
  for (const std::vector<bool>& vec : vectors) {
    GuardOutcome g;
    std::map<std::pair<size_t, int64_t>, bool> outcome;
    for (size_t k = 0; k < keys.size(); ++k) outcome[keys[k]] = vec[k];
    g.hook = [nodes, which, outcome](const ir::Expr& e, const ir::EvalEnv& env) -> std::optional<int64_t> {
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (&e != nodes[i]) continue;
        auto it = outcome.find({which[i], -1});
        if (it == outcome.end()) {
          if (!env.instance) return std::nullopt;  // evaluated as usual: its reads are recorded
          it = outcome.find({which[i], *env.instance});
          if (it == outcome.end()) return std::nullopt;
        }
        return it->second ? 1 : 0;
      }
      return std::nullopt;
    };
    for (size_t k = 0; k < keys.size(); ++k)
      g.text += fmt::format("{}{}{} {}", k ? ", " : "", ir::exprToString(*guards[keys[k].first], s),
                            keys[k].second >= 0 ? fmt::format(" at instance {}", keys[k].second) : "",
                            vec[k] ? "taken" : "not taken");
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace cake::encoder::trip
