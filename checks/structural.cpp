#include "checks/structural.h"

#include <algorithm>
#include <array>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "checks/layout_internal.h"
#include "encoder/bv_prover.h"

namespace cake::checks {

using namespace cake::ir;


std::span<const RuleInfo> structuralRules() { return rulesOf(RuleOwner::Structural); }

namespace {

// One enclosing loop or guard on the path to an op.
struct Context {
  const Stmt* stmt;
  bool in_else;
};

class StructuralChecker {
 public:
  StructuralChecker(const Schedule& s, DiagnosticSink& sink, const CheckOptions& opts)
      : s_(s), sink_(sink), opts_(opts) {}

  void run(std::vector<PropertyVerdict>* verdicts) {
    for (const RoleBody& body : s_.bodies) {
      role_ = body.role;
      used_roles_.insert(body.role);
      std::vector<Context> ctx;
      walk(body.body, ctx);
    }
    reportUnused();
    // A verdict only where the prover was needed: the constant cases are
    // decided exactly (a finding or nothing), as before.
    if (verdicts && slots_.symbolic > 0)
      verdicts->push_back(slots_.verdict(s_, "struct.slot-out-of-range", vacuous_));
  }

 private:
  const Schedule& s_;
  DiagnosticSink& sink_;
  const CheckOptions& opts_;
  int role_ = -1;
  std::unique_ptr<encoder::BvProver> prover_;  // made on first use
  bool vacuous_ = false;                       // the assumptions contradict each other
  layout::VerdictAgg slots_;                   // struct.slot-out-of-range obligations
  std::set<int> used_views_, used_tmems_, used_regs_, used_barriers_, used_named_, used_roles_;

  void walk(const Block& block, std::vector<Context>& ctx) {
    for (const Stmt& st : block) {
      if (st.kind == Stmt::Kind::Op) {
        checkOp(st.op, ctx);
        continue;
      }
      ctx.push_back({&st, false});
      walk(st.body, ctx);
      ctx.back().in_else = true;
      walk(st.orelse, ctx);
      ctx.pop_back();
    }
  }

  void noteBuffer(const BufferRef& b) {
    switch (b.kind) {
      case BufferRef::Kind::View: used_views_.insert(b.index); break;
      case BufferRef::Kind::Tmem: used_tmems_.insert(b.index); break;
      case BufferRef::Kind::Regs: used_regs_.insert(b.index); break;
      default: break;
    }
  }

  void checkOp(const Op& op, const std::vector<Context>& ctx) {
    noteBuffer(op.dst);
    noteBuffer(op.src);
    noteBuffer(op.src2);
    if (op.named_barrier >= 0) used_named_.insert(op.named_barrier);
    if (op.barrier >= 0) {
      used_barriers_.insert(op.barrier);
      checkDirection(op);
      if (op.sel.mode == SlotSel::Mode::Stage)
        checkSlotRange(op, ctx, s_.barriers[op.barrier].count, "barrier", s_.barriers[op.barrier].name,
                       s_.barriers[op.barrier].range);
    }
    // A staged view addressed with stage= (tma_load, tma_store, cp_async).
    const BufferRef* staged = op.dst.kind == BufferRef::Kind::View ? &op.dst
                            : op.src.kind == BufferRef::Kind::View ? &op.src : nullptr;
    // (view[e].tma_load names its view slot by e, iter=/stage= only its barrier slot)
    bool view_selects_by_sel = ir::opInfo(op.kind).receiver == ir::OpReceiver::View && !(staged && staged->slot);
    if (staged && view_selects_by_sel && op.sel.mode == SlotSel::Mode::Stage) {
      const View& v = s_.views[staged->index];
      checkSlotRange(op, ctx, v.stages, "view", v.name, v.range);
    }
  }

  bool roleIn(const std::vector<int>& roles) const {
    return std::find(roles.begin(), roles.end(), role_) != roles.end();
  }

  void checkDirection(const Op& op) {
    const Barrier& b = s_.barriers[op.barrier];
    bool arrives = ir::opInfo(op.kind).has(ir::OpFlag::Arrives);
    bool waits = op.kind == OpKind::Wait;
    const std::string& role_name = s_.roles[role_].name;
    if (arrives && !roleIn(b.prod)) {
      Finding f = makeFinding(rule("struct.wrong-direction"), op.range,
                              fmt::format("role '{}' arrives on barrier '{}' ({}), but is not one of its producers",
                                          role_name, b.name, opName(op.kind)));
      f.notes.push_back({b.range, fmt::format("'{}' declared here with prod={}", b.name, roleList(b.prod))});
      f.subject = {{"role", role_name}, {"barrier", b.name}};
      sink_.add(std::move(f));
    }
    if (waits && !roleIn(b.cons)) {
      Finding f = makeFinding(rule("struct.wrong-direction"), op.range,
                              fmt::format("role '{}' waits on barrier '{}', but is not one of its consumers",
                                          role_name, b.name));
      f.notes.push_back({b.range, fmt::format("'{}' declared here with cons={}", b.name, roleList(b.cons))});
      f.subject = {{"role", role_name}, {"barrier", b.name}};
      sink_.add(std::move(f));
    }
  }

  std::string roleList(const std::vector<int>& roles) const {
    std::vector<std::string> names;
    for (int r : roles) names.push_back(s_.roles[r].name);
    return fmt::format("[{}]", fmt::join(names, ", "));
  }

  // Evaluate the stage= index for every combination of the enclosing loops'
  // values (when their bounds are constant) and every role instance, skipping
  // combinations that an enclosing guard rules out. Where that does not
  // decide every combination (a symbolic loop bound, guard or index, or too
  // many combinations), the prover decides the rest.
  void checkSlotRange(const Op& op, const std::vector<Context>& ctx, int count, std::string_view what,
                      const std::string& name, const SourceRange& decl) {
    const int kMaxCombinations = 1 << 14;
    std::vector<std::pair<int, std::vector<int64_t>>> loops;  // loop var -> values
    long long combos = 1;
    bool decided = true;  // the index evaluated on every path enumerated
    for (const Context& c : ctx) {
      if (c.stmt->kind != Stmt::Kind::For) continue;
      auto lo = constValue(c.stmt->lo), hi = constValue(c.stmt->hi);
      auto step = c.stmt->step ? constValue(c.stmt->step) : std::optional<int64_t>(1);
      // Symbolic: values unknown here. An index that does not depend on the
      // variable still evaluates; one that does is left to the prover.
      if (!lo || !hi || !step || *step == 0) continue;
      std::vector<int64_t> vals;
      for (int64_t v = *lo; (*step > 0 ? v < *hi : v > *hi) && static_cast<int>(vals.size()) <= kMaxCombinations; v += *step)
        vals.push_back(v);
      combos *= std::max<size_t>(vals.size(), 1);
      if (vals.empty()) return recordConstant(true);  // the op never runs
      if (combos > kMaxCombinations) return proveSlotRange(op, ctx, count, what, name, decl);
      loops.push_back({c.stmt->loop_var, std::move(vals)});
    }
    int instances = s_.roles[role_].instanceCount();
    std::vector<size_t> idx(loops.size(), 0);
    while (true) {
      for (int inst = 0; inst < instances; ++inst) {
        EvalEnv env;
        env.instance = inst;
        for (size_t i = 0; i < loops.size(); ++i) env.loop_vars[loops[i].first] = loops[i].second[idx[i]];
        if (!guardsHold(ctx, env)) continue;
        auto v = evaluate(*op.sel.index, env);
        if (!v) decided = false;
        if (v && (*v < 0 || *v >= count)) {
          // The op is the primary location: after substitution the index's own
          // range may point at a loop variable's definition.
          Finding f = makeFinding(rule("struct.slot-out-of-range"), op.range,
                                  fmt::format("stage={} is outside the {} slots [0, {}) of {} '{}'", *v, count,
                                              count, what, name));
          f.notes.push_back({decl, fmt::format("'{}' declared here with {} slots", name, count)});
          f.subject = {{"role", s_.roles[role_].name}, {"instance", inst}, {what, name}, {"slot", *v}};
          sink_.add(std::move(f));
          return recordConstant(false);  // one finding per op
        }
      }
      size_t i = 0;
      for (; i < idx.size(); ++i) {
        if (++idx[i] < loops[i].second.size()) break;
        idx[i] = 0;
      }
      if (i == idx.size()) break;
    }
    if (decided) return recordConstant(true);
    proveSlotRange(op, ctx, count, what, name, decl);
  }

  void recordConstant(bool holds) {
    encoder::BvResult r;
    r.kind = holds ? encoder::BvVerdict::Holds : encoder::BvVerdict::Fails;
    r.constant = true;
    slots_.record(s_, r, false);
  }

  encoder::BvProver& prover() {
    if (!prover_) {
      prover_ = std::make_unique<encoder::BvProver>(s_, layout::limitsOf(opts_));
      prover_->setBudget(opts_.timeout_ms);  // --timeout bounds its queries together
      vacuous_ = !s_.assumes.empty() && prover_->assumptionsConsistent() == encoder::BvVerdict::Fails;
    }
    return *prover_;
  }

  // Prove 0 <= e < count for every value of the parameters (under the
  // lm.assume facts), role instances and enclosing loop variables that
  // reaches the op: the loops' ranges (with their steps) and the enclosing
  // guards (negated in else branches) are the premises. Fails is a
  // reachable out-of-range index; Unknown leaves the verdict unknown.
  // The range [lo, hi] of an index from its syntax alone, for every value of
  // the symbols in it: constants, the instance ([0, instances)), `x % c`
  // with a constant c > 0 ([0, c - 1] whatever x is), and sums, differences
  // and constant multiples of those. nullopt where a symbol's range is
  // unknown here (a parameter, a loop variable) or a bound overflows.
  static std::optional<std::pair<int64_t, int64_t>> syntacticRange(const ir::Expr& e, int instances) {
    using Range = std::pair<int64_t, int64_t>;
    auto arg = [&](size_t i) { return syntacticRange(*e.args[i], instances); };
    switch (e.kind) {
      case ir::ExprKind::Const: return Range{e.value, e.value};
      case ir::ExprKind::Instance: return Range{0, std::max(instances, 1) - 1};
      case ir::ExprKind::Mod: {
        auto c = ir::constValue(e.args[1]);
        if (c && *c > 0) return Range{0, *c - 1};
        return std::nullopt;
      }
      case ir::ExprKind::Add:
      case ir::ExprKind::Sub:
      case ir::ExprKind::Mul: {
        auto a = arg(0), b = arg(1);
        if (!a || !b) return std::nullopt;
        int64_t v[4];
        auto op = [&](int64_t x, int64_t y, int64_t* out) {
          if (e.kind == ir::ExprKind::Add) return __builtin_add_overflow(x, y, out);
          if (e.kind == ir::ExprKind::Sub) return __builtin_sub_overflow(x, y, out);
          return __builtin_mul_overflow(x, y, out);
        };
        // The extremes of a sum, difference or product of two intervals lie
        // at corners: the four combinations of their bounds.
        if (op(a->first, b->first, &v[0]) || op(a->first, b->second, &v[1]) || op(a->second, b->first, &v[2]) ||
            op(a->second, b->second, &v[3]))
          return std::nullopt;
        return Range{std::min({v[0], v[1], v[2], v[3]}), std::max({v[0], v[1], v[2], v[3]})};
      }
      default: return std::nullopt;
    }
  }

  void proveSlotRange(const Op& op, const std::vector<Context>& ctx, int count, std::string_view what,
                      const std::string& name, const SourceRange& decl) {
    using namespace layout;
    auto pathPremises = [&](bool upper) {
      std::vector<ExprPtr> premises;
      pushInstancePremises(s_.roles[role_].instanceCount(), premises);
      for (const Context& c : ctx) {
        if (c.stmt->kind == Stmt::Kind::For) pushLoopPremises(*c.stmt, premises, upper);
        else if (c.stmt->cond) premises.push_back(c.in_else ? lnot(c.stmt->cond) : c.stmt->cond);
      }
      return premises;
    };
    const ExprPtr& e = op.sel.index;
    // An index whose range follows from its syntax alone (`x % c` is in
    // [0, c) whatever x is, floor modulo; `2 * lm.instance() + (n0 + t) % 2`)
    // needs no query: those over products of trip counts can time out.
    if (auto r = syntacticRange(*e, s_.roles[role_].instanceCount()); r && r->first >= 0 && r->second < count) {
      encoder::BvResult holds;
      holds.kind = encoder::BvVerdict::Holds;
      slots_.record(s_, holds, true);
      return;
    }
    ExprPtr goal = land(ge(e, lit(0)), lt(e, lit(count)));
    // First without the loops' upper bounds (trip counts such as
    // cdiv(max(E * m_tiles * n_tiles - block_idx, 0), grid_dim) make slow
    // queries, and `t % 2` needs none): holding there, it holds with them.
    encoder::BvResult r = prover().prove(goal, pathPremises(false));
    std::vector<ExprPtr> premises = pathPremises(true);
    if (r.kind != encoder::BvVerdict::Holds) r = prover().prove(goal, premises);
    if (r.kind == encoder::BvVerdict::Fails && !r.undefined) r = smallest(goal, premises, r);
    slots_.record(s_, r, !r.constant);
    if (r.kind != encoder::BvVerdict::Fails) return;

    EvalEnv env = r.model.env(s_);
    std::optional<int64_t> v = evaluate(*e, env);
    // "for k = 3 (K = 193)": the index's own symbols, then the rest of the witness.
    encoder::BvModel rest = r.model;
    for (const auto& [k, x] : r.goal_model.params) rest.params.erase(k);
    for (const auto& [k, x] : r.goal_model.loop_vars) rest.loop_vars.erase(k);
    if (r.goal_model.instance) rest.instance.reset();
    std::string at = r.goal_model.toString(s_);
    std::string others = rest.toString(s_);
    if (at.empty()) std::swap(at, others);
    std::string witness = at.empty() ? "" : " for " + at + (others.empty() ? "" : " (" + others + ")");
    std::string value = v && !r.undefined ? fmt::format("is {}", *v) : "is undefined (its arithmetic overflows 64 bits or divides by zero)";
    Finding f = makeFinding(rule("struct.slot-out-of-range"), op.range,
                            fmt::format("stage={} {}{}, outside the {} slots [0, {}) of {} '{}'",
                                        exprToString(*e, s_), value, witness, count, count, what, name));
    f.notes.push_back({decl, fmt::format("'{}' declared here with {} slots", name, count)});
    f.subject = {{"role", s_.roles[role_].name}, {what, name}};
    if (r.model.instance) f.subject["instance"] = *r.model.instance;
    if (v && !r.undefined) f.subject["slot"] = *v;
    f.verdict = "counterexample";
    if (!r.model.empty()) f.data["counterexample"] = r.model.toJson(s_);
    sink_.add(std::move(f));
  }

  // A readable counterexample: each symbol of the witness in turn (loop
  // variables, the instance, then parameters) at its value closest to zero
  // on the same side of it, the earlier ones fixed. Keeps `r` where the
  // solver gives up.
  encoder::BvResult smallest(const ExprPtr& goal, std::vector<ExprPtr> premises, const encoder::BvResult& r) {
    using namespace layout;
    std::vector<std::pair<ExprPtr, int64_t>> syms;
    for (const auto& [k, x] : r.model.loop_vars) syms.push_back({symbol(ExprKind::LoopVar, k), x});
    if (r.model.instance) syms.push_back({symbol(ExprKind::Instance, 0), *r.model.instance});
    for (const auto& [k, x] : r.model.params) syms.push_back({symbol(ExprKind::Param, k), x});
    std::vector<ExprPtr> search = premises;
    search.push_back(lnot(goal));
    std::vector<ExprPtr> fixed;
    for (const auto& [x, val] : syms) {
      std::vector<ExprPtr> side = search;
      side.push_back(val >= 0 ? ge(x, lit(0)) : lt(x, lit(0)));
      // The largest -x is the smallest x >= 0; the largest x < 0 is the closest to zero.
      std::optional<int64_t> m = prover().maximum(val >= 0 ? sub(lit(0), x) : x, side);
      if (!m) continue;
      ExprPtr fix = eq(x, lit(val >= 0 ? -*m : *m));
      search.push_back(fix);
      fixed.push_back(fix);
    }
    if (fixed.empty()) return r;
    premises.insert(premises.end(), fixed.begin(), fixed.end());
    encoder::BvResult small = prover().prove(goal, premises);
    return small.kind == encoder::BvVerdict::Fails && !small.undefined ? small : r;
  }

  // False only when some enclosing guard evaluates and rules this path out.
  static bool guardsHold(const std::vector<Context>& ctx, const EvalEnv& env) {
    for (const Context& c : ctx) {
      if (c.stmt->kind != Stmt::Kind::If || !c.stmt->cond) continue;
      auto v = evaluate(*c.stmt->cond, env);
      if (v && ((*v != 0) == c.in_else)) return false;
    }
    return true;
  }

  template <typename Table>
  void reportUnusedIn(const Table& table, const std::set<int>& used, std::string_view what) {
    for (int i = 0; i < static_cast<int>(table.size()); ++i) {
      if (used.count(i)) continue;
      Finding f = makeFinding(rule("struct.unused"), table[i].range,
                              fmt::format("{} '{}' is declared but never used", what, table[i].name));
      f.subject = {{std::string(what), table[i].name}};
      sink_.add(std::move(f));
    }
  }

  void reportUnused() {
    std::set<int> used_pools;
    // A pool is used when any of its views is declared (the view may itself be unused).
    for (const View& v : s_.views) used_pools.insert(v.pool);
    reportUnusedIn(s_.pools, used_pools, "pool");
    reportUnusedIn(s_.views, used_views_, "view");
    reportUnusedIn(s_.tmems, used_tmems_, "tmem");
    reportUnusedIn(s_.regs, used_regs_, "register fragment");
    reportUnusedIn(s_.barriers, used_barriers_, "barrier");
    reportUnusedIn(s_.named_barriers, used_named_, "named barrier");
    reportUnusedIn(s_.roles, used_roles_, "role");
  }
};

}  // namespace

void runStructuralChecks(const Schedule& s, DiagnosticSink& sink, const CheckOptions& opts,
                         std::vector<PropertyVerdict>* verdicts) {
  StructuralChecker(s, sink, opts).run(verdicts);
}

}  // namespace cake::checks
