#include "checks/fact_residues.h"

#include "encoder/bv_prover.h"

namespace cake::checks {
namespace {

// Z3's resource units for one question's two queries (each): the integer
// pre-tests' budget (model_check.cpp kRuleOutRlimit).
constexpr uint64_t kResidueRlimit = 2'000'000;

ir::ExprPtr paramExpr(int p) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = ir::ExprKind::Param;
  e->index = p;
  return e;
}

}  // namespace

std::vector<ir::ResidueFact> impliedResidues(const ir::Schedule& s) {
  std::vector<ir::ResidueFact> out;
  encoder::Limits limits;
  limits.rlimit = kResidueRlimit;
  for (const auto& [p, d] : ir::residueQuestions(s)) {
    const ir::ExprPtr x = paramExpr(p);
    const ir::ExprPtr residue = ir::makeExpr(ir::ExprKind::Mod, {x, ir::makeConst(d)});
    // Any value the facts allow (`P % d >= 0` holds for every P: d > 0).
    const encoder::BvResult any =
        encoder::intWitness(s, ir::makeExpr(ir::ExprKind::Ge, {residue, ir::makeConst(0)}), {}, limits);
    if (any.kind != encoder::BvVerdict::Fails || !any.model.params.count(p)) continue;
    const int64_t r = ((any.model.params.at(p) % d) + d) % d;
    const encoder::BvResult other =
        encoder::intWitness(s, ir::makeExpr(ir::ExprKind::Ne, {residue, ir::makeConst(r)}), {}, limits);
    if (other.kind == encoder::BvVerdict::Holds) out.push_back({x, d, r});
  }
  return out;
}

}  // namespace cake::checks
