// Guards on unbounded parameters in lap induction (trip_guards.h, docs/z3.md
// step 1).
#include "encoder/trip_guards.h"

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

}  // namespace

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
