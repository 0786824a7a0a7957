// Integer expressions compared by value (see value_equality.h).
#include "encoder/value_equality.h"

#include <algorithm>

namespace cake::encoder {

LoopBounds loopBounds(const ir::Stmt& loop) {
  return {loop.lo, loop.hi, loop.step ? loop.step : ir::makeConst(1)};
}

ValueComparer::ValueComparer(const ir::Schedule& s, Limits limits) : s_(s), limits_(limits) {}
ValueComparer::~ValueComparer() = default;

ValueEquality ValueComparer::compareLoops(const ir::Stmt& a, const ir::Stmt& b, const ir::LoopVarRename& rename) {
  const LoopBounds x = loopBounds(a), y = loopBounds(b);
  return compare({{x.lo, y.lo}, {x.hi, y.hi}, {x.step, y.step}}, rename);
}

ValueEquality ValueComparer::compare(const ExprPairs& given, const ir::LoopVarRename& rename) {
  ExprPairs open;  // the pairs the canonical form does not show equal, the second renamed
  for (const auto& [x, y] : given) {
    if (!x || !y) return ValueEquality::Unknown;
    if (ir::sameExpr(*x, *y) || ir::equalForAllValues(*x, *y, rename)) continue;
    open.emplace_back(x, ir::renameLoopVars(y, rename));
  }
  if (open.empty()) return ValueEquality::Equal;
  return differAtSomeSample(open) ? ValueEquality::Different : byProver(open);
}

// Constants that differ differ at every assignment (no sample needed: a
// tile loop from 0 by 1 against a consumer's from lm.instance() by 2 is
// asked per renaming, pingpong's 4 s a check when Z3 answered it); else
// the first allowed sample at which a pair's values differ.
bool ValueComparer::differAtSomeSample(const ExprPairs& pairs) {
  for (const auto& [x, y] : pairs) {
    const std::optional<int64_t> cx = ir::constValue(x), cy = ir::constValue(y);
    if (cx && cy && *cx != *cy) return true;
  }
  for (const ir::EvalEnv& env : samples())
    for (const auto& [x, y] : pairs) {
      const std::optional<int64_t> vx = ir::evaluate(*x, env), vy = ir::evaluate(*y, env);
      if (vx && vy && *vx != *vy) return true;
    }
  return false;
}

// Assignments in BvProver's domains (parameters and loop variables in the
// i32 range, lm.instance() in [0, 1024), lm.grid_dim(d) >= 1,
// 0 <= lm.block_idx(d) < lm.grid_dim(d)) at which every lm.assume fact is
// defined and true: every symbol at one of a few sizes (a tile count's 1,
// 2, 3; a K's 64, 65, 128 ...), the block index first and last. A few
// dozen evaluations, made once per comparer.
const std::vector<ir::EvalEnv>& ValueComparer::samples() {
  if (sampled_) return samples_;
  sampled_ = true;
  for (const int64_t v : {1, 2, 3, 4, 5, 8, 16, 32, 63, 64, 65, 100, 127, 128, 129, 256, 1000, 4096, 0, -1})
    addSamplesAt(v, samples_);
  return samples_;
}

// Every symbol at `v` (the block index first and last), where allowed.
void ValueComparer::addSamplesAt(int64_t v, std::vector<ir::EvalEnv>& out) const {
  for (const bool last_block : {false, true}) {
    ir::EvalEnv env;
    for (size_t p = 0; p < s_.params.size(); ++p) env.params[static_cast<int>(p)] = v;
    for (size_t l = 0; l < s_.loop_vars.size(); ++l) env.loop_vars[static_cast<int>(l)] = v;
    env.instance = std::clamp<int64_t>(v, 0, 1023);
    for (int d = 0; d < 3; ++d) {
      env.grid_dim[d] = std::max<int64_t>(v, 1);
      env.block_idx[d] = last_block ? *env.grid_dim[d] - 1 : 0;
    }
    if (last_block && *env.grid_dim[0] == 1) continue;  // the same as the first
    const bool allowed = std::all_of(s_.assumes.begin(), s_.assumes.end(), [&](const ir::Assume& a) {
      const std::optional<int64_t> holds = a.cond ? ir::evaluate(*a.cond, env) : std::nullopt;
      return holds && *holds != 0;
    });
    if (allowed) out.push_back(std::move(env));
  }
}

std::optional<ir::EvalEnv> ValueComparer::valueOutside(const ir::ExprPtr& e, const std::set<int64_t>& seen) {
  if (!e) return std::nullopt;
  // the samples, then every symbol at each constant of e and beside it (a
  // difference made at `K == 250` alone: `K // 250 - K // 251`)
  std::vector<ir::EvalEnv> near;
  std::set<int64_t> constants;
  ir::anySubExpr(*e, [&](const ir::Expr& x) {
    if (x.kind == ir::ExprKind::Const && std::abs(x.value) >= 2 && std::abs(x.value) < (int64_t{1} << 30))
      for (const int64_t d : {-1, 0, 1}) constants.insert(x.value + d);
    return false;
  });
  for (const int64_t c : constants) addSamplesAt(c, near);
  for (const std::vector<ir::EvalEnv>* envs : {&samples(), static_cast<const std::vector<ir::EvalEnv>*>(&near)})
    for (const ir::EvalEnv& env : *envs) {
      const std::optional<int64_t> v = ir::evaluate(*e, env);
      if (v && !seen.count(*v)) return env;
    }
  ir::ExprPtr cond = ir::makeConst(1);
  for (const int64_t v : seen)
    cond = ir::makeExpr(ir::ExprKind::And, {cond, ir::makeExpr(ir::ExprKind::Ne, {e, ir::makeConst(v)})});
  // |p| of each parameter e reads, smallest first, then of every other
  // i32 parameter: a fact that lets e differ only where another parameter is
  // large (`K % 64 == 0 or K < 64 or M > 100000`) gets that parameter's
  // least allowed value, not an arbitrary one of Z3's model, whose system
  // (M = 2^31 - 1: millions of tiles) no bounded check explores (helper
  // sound42, session 42).
  std::vector<ir::ExprPtr> least;
  for (const bool read : {true, false})
    for (int p = 0; p < static_cast<int>(s_.params.size()); ++p) {
      if (ir::readsSymbol(*e, ir::ExprKind::Param, p) != read || s_.params[p].type != ir::ParamType::I32) continue;
      auto x = std::make_shared<ir::Expr>();
      x->kind = ir::ExprKind::Param;
      x->index = p;
      least.push_back(ir::makeExpr(ir::ExprKind::Max, {x, ir::makeExpr(ir::ExprKind::Sub, {ir::makeConst(0), x})}));
    }
  if (!prover_) prover_ = std::make_unique<BvProver>(s_, limits_);
  ++prover_queries_;
  const BvResult r = prover_->smallestWitness(cond, least);
  if (r.kind != BvVerdict::Fails) return std::nullopt;
  ir::EvalEnv env = r.model.env(s_);
  const std::optional<int64_t> v = ir::evaluate(*e, env);  // (the model's value, checked by evaluation)
  if (!v || seen.count(*v)) return std::nullopt;
  return env;
}

ValueEquality ValueComparer::byProver(const ExprPairs& pairs) {
  if (prover_cap_ >= 0 && prover_queries_ >= prover_cap_) return ValueEquality::Unknown;
  ir::ExprPtr goal;
  for (const auto& [x, y] : pairs) {
    ir::ExprPtr eq = ir::makeExpr(ir::ExprKind::Eq, {x, y});
    goal = goal ? ir::makeExpr(ir::ExprKind::And, {goal, eq}) : eq;
  }
  if (!prover_) prover_ = std::make_unique<BvProver>(s_, limits_);
  ++prover_queries_;
  const BvResult r = prover_->prove(goal);
  return r.kind == BvVerdict::Holds                    ? ValueEquality::Equal
         : r.kind == BvVerdict::Fails && !r.undefined ? ValueEquality::Different
                                                       : ValueEquality::Unknown;
}

}  // namespace cake::encoder
