// Guards on unbounded parameters in lap induction (trip_guards.h, docs/z3.md
// step 1).
#include "encoder/trip_guards.h"

#include <algorithm>

#include <fmt/format.h>

namespace cake::encoder::trip {

namespace {

// Collects the deciding conditions; false when one reads a parameter and a
// loop variable or the instance.
bool collectGuards(const ir::Block& b, std::vector<const ir::Expr*>& out) {
  using K = ir::ExprKind;
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::If && st.cond &&
        ir::exprUses(*st.cond, {K::Param, K::BlockIdx, K::GridDim})) {
      if (ir::exprUses(*st.cond, {K::LoopVar, K::Instance})) return false;
      out.push_back(st.cond.get());
    }
    if (!collectGuards(st.body, out) || !collectGuards(st.orelse, out)) return false;
  }
  return true;
}

// b with every `if` whose condition is guards[i] (by node) replaced by
// the branch bit i of mask chooses.
void splice(ir::Block& b, const std::vector<const ir::Expr*>& nodes, const std::vector<size_t>& which,
            uint32_t mask) {
  ir::Block out;
  for (ir::Stmt& st : b) {
    splice(st.body, nodes, which, mask);
    splice(st.orelse, nodes, which, mask);
    auto it = std::find(nodes.begin(), nodes.end(), st.cond.get());
    if (st.kind != ir::Stmt::Kind::If || !st.cond || it == nodes.end()) {
      out.push_back(std::move(st));
      continue;
    }
    ir::Block& taken = (mask >> which[static_cast<size_t>(it - nodes.begin())]) & 1 ? st.body : st.orelse;
    for (ir::Stmt& x : taken) out.push_back(std::move(x));
  }
  b = std::move(out);
}

// The guards' nodes, and the distinct conditions among them (up to
// structure: one outcome for every copy); false when the split does not apply.
bool distinctGuards(const ir::Schedule& s, int max_guards, std::vector<const ir::Expr*>& nodes,
                    std::vector<const ir::Expr*>& guards, std::vector<size_t>& which) {
  for (const ir::RoleBody& body : s.bodies)
    if (!collectGuards(body.body, nodes)) return false;
  for (const ir::Expr* n : nodes) {
    auto it = std::find_if(guards.begin(), guards.end(), [&](const ir::Expr* g) { return ir::sameExpr(*g, *n); });
    which.push_back(static_cast<size_t>(it - guards.begin()));  // nodes[i] is guards[which[i]]
    if (it == guards.end()) guards.push_back(n);
  }
  return !guards.empty() && static_cast<int>(guards.size()) <= max_guards;
}

}  // namespace

int guardCount(const ir::Schedule& s, int max_guards) {
  std::vector<const ir::Expr*> nodes, guards;
  std::vector<size_t> which;
  return distinctGuards(s, max_guards, nodes, guards, which) ? static_cast<int>(guards.size()) : 0;
}

std::vector<GuardCase> guardCases(const ir::Schedule& s,
                                  const std::function<bool(const std::vector<ir::ExprPtr>& facts)>& possible,
                                  int max_guards) {
  std::vector<const ir::Expr*> nodes, guards;
  std::vector<size_t> which;
  if (!distinctGuards(s, max_guards, nodes, guards, which)) return {};
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
    c.s = std::make_shared<ir::Schedule>(s);
    for (ir::RoleBody& body : c.s->bodies) splice(body.body, nodes, which, mask);
    for (const ir::ExprPtr& f : facts) c.s->assumes.push_back({f, s.range});
    c.text = std::move(text);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<GuardOutcome> guardOutcomes(const ir::Schedule& s, int max_guards) {
  std::vector<const ir::Expr*> guards;
  for (const ir::RoleBody& body : s.bodies)
    if (!collectGuards(body.body, guards)) return {};
  if (guards.empty() || static_cast<int>(guards.size()) > max_guards) return {};
  std::vector<GuardOutcome> out;
  for (uint32_t mask = 0; mask < (1u << guards.size()); ++mask) {
    GuardOutcome g;
    g.hook = [guards, mask](const ir::Expr& e, const ir::EvalEnv&) -> std::optional<int64_t> {
      for (size_t i = 0; i < guards.size(); ++i)
        if (&e == guards[i]) return (mask >> i) & 1;
      return std::nullopt;
    };
    for (size_t i = 0; i < guards.size(); ++i)
      g.text += fmt::format("{}{} {}", i ? ", " : "", ir::exprToString(*guards[i], s),
                            (mask >> i) & 1 ? "taken" : "not taken");
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace cake::encoder::trip
