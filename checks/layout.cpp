// The layout / hardware-contract gate driver: op sites, the solver-backed
// obligation bookkeeping, findings and verdicts.
#include "checks/layout.h"

#include <algorithm>

#include <fmt/format.h>

#include "checks/layout_internal.h"
#include "encoder/defined_premise.h"

namespace cake::checks {
namespace layout {

using ir::Expr;
using ir::ExprKind;

// ------------------------------------------------ expression construction
// (the constant-folding builders are ir/expr_build.h)

ExprPtr symbol(ExprKind k, int index) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->index = index;
  return e;
}

void pushLoopPremises(const ir::Stmt& st, std::vector<ExprPtr>& premises, bool upper) {
  ExprPtr v = symbol(ExprKind::LoopVar, st.loop_var);
  int64_t step = 1;
  if (st.step) isConst(st.step, &step);
  if (!st.lo || !st.hi) return;
  if (step > 0) {
    premises.push_back(ge(v, st.lo));
    if (upper) premises.push_back(lt(v, st.hi));
  } else if (step < 0) {
    premises.push_back(le(v, st.lo));
    if (upper) premises.push_back(gt(v, st.hi));
  }
  if (step != 1 && step != -1 && step != 0) premises.push_back(eq(mod(sub(v, st.lo), lit(step)), lit(0)));
}

void pushInstancePremises(int instances, std::vector<ExprPtr>& premises) {
  ExprPtr inst = symbol(ExprKind::Instance, 0);
  premises.push_back(ge(inst, lit(0)));
  premises.push_back(lt(inst, lit(std::max(instances, 1))));
}

// ---------------------------------------------------------- target facts

TargetInfo targetInfo(ir::Target t) { return ir::targetLimits(t); }



// ---------------------------------------------------------------- gates

static void collectSites(const ir::Schedule& s, const ir::Block& block, int role,
                         std::vector<ExprPtr>& premises, std::vector<OpSite>& out) {
  for (size_t i = 0; i < block.size(); ++i) {
    const ir::Stmt& st = block[i];
    switch (st.kind) {
      case ir::Stmt::Kind::Op: {
        OpSite site;
        site.stmt = &st;
        site.role = role;
        site.block = &block;
        site.index = i;
        site.premises = premises;
        out.push_back(std::move(site));
        break;
      }
      case ir::Stmt::Kind::For: {
        size_t mark = premises.size();
        pushLoopPremises(st, premises);
        collectSites(s, st.body, role, premises, out);
        premises.resize(mark);
        break;
      }
      case ir::Stmt::Kind::If: {
        size_t mark = premises.size();
        if (st.cond) premises.push_back(st.cond);
        collectSites(s, st.body, role, premises, out);
        premises.resize(mark);
        if (st.cond) premises.push_back(lnot(st.cond));
        collectSites(s, st.orelse, role, premises, out);
        premises.resize(mark);
        break;
      }
    }
  }
}

// What a cp.async into a slot of `v` needs: its chunk (ir::cpAsyncChunkBytes
// of a slot row, as the lowering copies it, emit_copy.cpp cpAsyncChunk), so
// a 4-byte row (one i32 index per slot) needs 4, not 16; a row no chunk
// divides is stored element by element (0: nothing beyond the element); a
// row width that is not a constant keeps the widest chunk.
static int64_t cpAsyncAlignment(const ir::View& v) {
  const auto cols = v.shape.empty() ? std::optional<int64_t>(1) : ir::constValue(v.shape.back());
  return cols ? ir::cpAsyncChunkBytes(*cols * ir::dtypeBytes(v.dtype)) : 16;
}

encoder::Limits limitsOf(const CheckOptions& o) {
  encoder::Limits l;
  l.timeout_ms = o.timeout_ms;
  l.memory_mb = o.memory_mb;
  return l;
}

Gates::Gates(const ir::Schedule& sched, const CheckOptions& o, ir::DiagnosticSink& k)
    : s(sched), opts(o), sink(k),
      ti(targetInfo(o.target != ir::Target::Unspecified ? o.target : sched.target)),
      prover(sched, limitsOf(o)) {
  prover.setBudget(o.timeout_ms);  // --timeout bounds the gates' queries together
  for (const ir::RoleBody& body : s.bodies) {
    std::vector<ExprPtr> premises;
    if (body.role >= 0 && body.role < static_cast<int>(s.roles.size()))
      pushInstancePremises(s.roles[body.role].instanceCount(), premises);
    collectSites(s, body.body, body.role, premises, sites);
  }
  // Which views TMA copies and MMAs touch, and the alignment each view's
  // slots need: the strictest of its uses (docs/rules/layout.misaligned.md).
  const size_t nv = s.views.size();
  view_tma.assign(nv, false);
  view_mma.assign(nv, false);
  view_align.assign(nv, 1);
  view_align_why.assign(nv, "");
  std::vector<bool> mma_regs(s.regs.size(), false);  // a register fragment an MMA reads
  for (const OpSite& site : sites) {
    const ir::Op& op = site.op();
    if (op.kind != ir::OpKind::Mma) continue;
    for (const ir::BufferRef* r : {&op.src, &op.src2})
      if (r->kind == ir::BufferRef::Kind::Regs && r->index >= 0 && r->index < static_cast<int>(mma_regs.size()))
        mma_regs[r->index] = true;
  }
  auto isView = [&](const ir::BufferRef& r) {
    return r.kind == ir::BufferRef::Kind::View && r.index >= 0 && r.index < static_cast<int>(nv);
  };
  auto need = [&](const ir::BufferRef& r, int64_t a, const std::string& why) {
    if (!isView(r) || a <= view_align[r.index]) return;
    view_align[r.index] = a;
    view_align_why[r.index] = why;
  };
  for (const OpSite& site : sites) {
    const ir::Op& op = site.op();
    // Every access: one element at a time at least (ld.shared / st.shared
    // of the element's width, lowering/prelude.cpp cake_lds / cake_sts).
    for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
      if (isView(*r)) {
        const int64_t e = ir::dtypeBytes(s.views[r->index].dtype);
        need(*r, e, fmt::format("{} bytes, a {}-byte element", e, e));
      }
    switch (op.kind) {
      case ir::OpKind::TmaLoad:
        if (isView(op.dst)) view_tma[op.dst.index] = true;
        need(op.dst, 128, "128 bytes, as a TMA copy needs");
        break;
      case ir::OpKind::TmaStore:
        if (isView(op.src)) view_tma[op.src.index] = true;
        need(op.src, 128, "128 bytes, as a TMA copy needs");
        break;
      case ir::OpKind::Mma:
        for (const ir::BufferRef* r : {&op.src, &op.src2}) {
          if (isView(*r)) view_mma[r->index] = true;
          need(*r, 16, "16 bytes, as an MMA operand needs (a shared-memory descriptor or ldmatrix)");
        }
        break;
      case ir::OpKind::CpAsync:
        if (isView(op.dst)) {
          const int64_t ch = cpAsyncAlignment(s.views[op.dst.index]);
          if (ch) need(op.dst, ch, fmt::format("{} bytes, as cp.async needs (its {}-byte chunks)", ch, ch));
        }
        break;
      case ir::OpKind::Copy:
        // a copy into an MMA operand fragment reads its slot with ldmatrix
        if (op.dst.kind == ir::BufferRef::Kind::Regs && op.dst.index >= 0 &&
            op.dst.index < static_cast<int>(mma_regs.size()) && mma_regs[op.dst.index])
          need(op.src, 16, "16 bytes, as ldmatrix needs (a copy into an MMA operand fragment)");
        // a register -> shared copy stores adjacent pairs of 2- or 4-byte
        // elements at once (cake_sts_pair) unless it is one column wide
        if (isView(op.dst) && op.src.kind == ir::BufferRef::Kind::Regs) {
          const int64_t e = ir::dtypeBytes(s.views[op.dst.index].dtype);
          const std::vector<ExprPtr> shape = refShape(op.dst);
          const auto width = shape.empty() ? std::optional<int64_t>(1) : ir::constValue(shape.back());
          if ((e == 2 || e == 4) && (!width || *width != 1))
            need(op.dst, 2 * e, fmt::format("{} bytes, as a register copy's paired {}-byte stores need", 2 * e, e));
        }
        break;
      default: break;
    }
  }
  pool_align.assign(s.pools.size(), 16);
  for (size_t v = 0; v < nv; ++v) {
    const int64_t atom = 8 * ir::swizzleBytes(s.views[v].swizzle);
    if (atom > view_align[v]) {
      view_align[v] = atom;
      view_align_why[v] = fmt::format("{} bytes, the {} swizzle atom (8 rows of {} bytes)", atom,
                                      ir::swizzleName(s.views[v].swizzle), ir::swizzleBytes(s.views[v].swizzle));
    }
    if (view_align_why[v].empty()) view_align_why[v] = fmt::format("{} bytes", view_align[v]);
    int p = s.views[v].pool;
    if (p >= 0 && p < static_cast<int>(s.pools.size())) pool_align[p] = std::max(pool_align[p], view_align[v]);
  }
}

void VerdictAgg::record(const ir::Schedule& s, const encoder::BvResult& r, bool is_symbolic) {
  ++obligations;
  if (is_symbolic) ++symbolic;
  switch (r.kind) {
    case encoder::BvVerdict::Holds: break;
    case encoder::BvVerdict::Fails:
      if (failed++ == 0) first_failure = r.model.empty() ? "" : r.model.toString(s);
      break;
    case encoder::BvVerdict::Unknown: unknown.push_back(r.detail); break;
    case encoder::BvVerdict::Error: errors.push_back(r.detail); break;
  }
}

PropertyVerdict VerdictAgg::verdict(const ir::Schedule& s, std::string_view rule, bool vacuous) const {
  PropertyVerdict v;
  v.property = std::string(rule);
  if (failed > 0) {
    v.kind = VerdictKind::Counterexample;
    v.detail = fmt::format("{} of {} obligation(s) fail", failed, obligations);
    if (!first_failure.empty()) v.detail += ", e.g. " + first_failure;
  } else if (!errors.empty()) {
    v.kind = VerdictKind::Error;
    v.detail = errors.front();
  } else if (!unknown.empty()) {
    v.kind = VerdictKind::Unknown;
    v.detail = fmt::format("{} of {} obligation(s) undecided: {}", unknown.size(), obligations, unknown.front());
  } else {
    v.kind = VerdictKind::Proved;
    std::string domain;
    if (!s.assumes.empty()) {
      std::vector<std::string> parts;
      for (const auto& a : s.assumes) parts.push_back(a.cond ? ir::exprToString(*a.cond, s) : std::string("?"));
      domain = fmt::format(" allowed by lm.assume({})", fmt::join(parts, "), lm.assume("));
    }
    if (symbolic == 0)
      v.detail = fmt::format("{} obligation(s), all constant", obligations);
    else if (vacuous)
      v.detail = fmt::format("{} obligation(s) ({} symbolic) hold vacuously: the assumptions contradict",
                             obligations, symbolic);
    else
      v.detail = fmt::format("{} obligation(s) ({} symbolic) hold for every value of the parameters, role "
                             "instances and loop variables{}",
                             obligations, symbolic, domain);
  }
  return v;
}

void Gates::record(std::string_view rule, const encoder::BvResult& r, bool symbolic) {
  agg[std::string(rule)].record(s, r, symbolic);
}

encoder::BvResult Gates::check(std::string_view rule, const ExprPtr& goal, const std::vector<ExprPtr>& premises) {
  encoder::BvResult r = prover.prove(goal, premises);
  record(rule, r, !r.constant);
  return r;
}

encoder::BvResult Gates::possible(std::string_view rule, const ExprPtr& cond, const std::vector<ExprPtr>& premises) {
  encoder::BvResult r = prover.witness(cond, premises);
  record(rule, r, !r.constant);
  return r;
}

void Gates::fact(std::string_view rule, bool ok, const std::string& what) {
  encoder::BvResult r;
  r.kind = ok ? encoder::BvVerdict::Holds : encoder::BvVerdict::Fails;
  r.constant = true;
  record(rule, r, false);
}

ir::Finding Gates::finding(std::string_view rule, const ir::SourceRange& at, std::string message) {
  ir::Finding f = ir::makeFinding(layoutRule(rule), at, std::move(message));
  if (ti.known) f.subject["target"] = std::string(ir::targetName(ti.target));
  return f;
}

void Gates::note(ir::Finding& f, const ir::SourceRange& at, std::string message) {
  f.notes.push_back(ir::Note{at, std::move(message)});
}

void Gates::emit(ir::Finding f, const encoder::BvResult* r) {
  if (r && r->kind == encoder::BvVerdict::Fails) {
    f.verdict = "counterexample";
    if (!r->model.empty()) f.data["counterexample"] = r->model.toJson(s);
    if (r->undefined) f.data["undefined"] = true;
  }
  sink.add(std::move(f));
}

std::string Gates::str(const ExprPtr& e) const { return e ? ir::exprToString(*e, s) : std::string("?"); }

std::optional<int64_t> Gates::valueAt(const ExprPtr& e, const encoder::BvResult* r) const {
  if (!e) return std::nullopt;
  if (r && !r->model.empty()) return ir::evaluate(*e, r->model.env(s));
  return ir::evaluate(*e, ir::EvalEnv{});
}

std::string Gates::show(const ExprPtr& e, const encoder::BvResult* r) const {
  int64_t v;
  if (isConst(e, &v)) return std::to_string(v);
  std::string text = str(e);
  if (auto val = valueAt(e, r)) return fmt::format("{} = {}", text, *val);
  return text;
}

std::string Gates::when(const encoder::BvResult& r) const {
  std::string out;
  if (r.kind == encoder::BvVerdict::Fails) {
    const encoder::BvModel& m = r.goal_model.empty() ? r.model : r.goal_model;
    if (!m.empty()) out = " when " + m.toString(s);
  }
  if (r.kind == encoder::BvVerdict::Fails && r.undefined)
    out += " (the arithmetic overflows 64 bits or divides by zero there)";
  return out;
}

ExprPtr Gates::slotBytes(int v) const {
  const ir::View& view = s.views[v];
  return mul(product(view.shape), lit(ir::dtypeBytes(view.dtype)));
}

ExprPtr Gates::viewBytes(int v) const { return mul(lit(std::max(s.views[v].stages, 1)), slotBytes(v)); }

std::vector<ExprPtr> Gates::refShape(const ir::BufferRef& r) const {
  const std::vector<ExprPtr>* base = nullptr;
  switch (r.kind) {
    case ir::BufferRef::Kind::View:
      if (r.index >= 0 && r.index < static_cast<int>(s.views.size())) base = &s.views[r.index].shape;
      break;
    case ir::BufferRef::Kind::Tmem:
      if (r.index >= 0 && r.index < static_cast<int>(s.tmems.size())) base = &s.tmems[r.index].shape;
      break;
    case ir::BufferRef::Kind::Regs:
      if (r.index >= 0 && r.index < static_cast<int>(s.regs.size())) base = &s.regs[r.index].shape;
      break;
    default: break;
  }
  if (!base) return {};
  std::vector<ExprPtr> out = *base;
  for (size_t d = 0; d < r.slices.size() && d < out.size(); ++d) {
    const ir::Slice& sl = r.slices[d];
    ExprPtr lo = sl.lo ? sl.lo : lit(0);
    ExprPtr hi = sl.hi ? sl.hi : out[d];
    out[d] = sub(hi, lo);
  }
  return out;
}

ir::DType Gates::refDtype(const ir::BufferRef& r) const {
  switch (r.kind) {
    case ir::BufferRef::Kind::View: return s.views[r.index].dtype;
    case ir::BufferRef::Kind::Tmem: return s.tmems[r.index].dtype;
    case ir::BufferRef::Kind::Regs: return s.regs[r.index].dtype;
    default: return ir::DType::F32;
  }
}

std::string Gates::refName(const ir::BufferRef& r) const {
  switch (r.kind) {
    case ir::BufferRef::Kind::View: return s.views[r.index].name;
    case ir::BufferRef::Kind::Tmem: return s.tmems[r.index].name;
    case ir::BufferRef::Kind::Regs: return s.regs[r.index].name;
    case ir::BufferRef::Kind::Param: return s.params[r.index].name;
    default: return "?";
  }
}

ir::SourceRange Gates::refDecl(const ir::BufferRef& r) const {
  switch (r.kind) {
    case ir::BufferRef::Kind::View: return s.views[r.index].range;
    case ir::BufferRef::Kind::Tmem: return s.tmems[r.index].range;
    case ir::BufferRef::Kind::Regs: return s.regs[r.index].range;
    case ir::BufferRef::Kind::Param: return s.params[r.index].range;
    default: return r.range;
  }
}

const OpSite* Gates::firstUse(ir::BufferRef::Kind k, int index, std::optional<ir::OpKind> kind) const {
  for (const OpSite& site : sites) {
    const ir::Op& op = site.op();
    if (kind && op.kind != *kind) continue;
    for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
      if (r->kind == k && r->index == index) return &site;
  }
  return nullptr;
}

std::vector<int> Gates::instanceWarps(int role, int i) const {
  const ir::Role& r = s.roles[role];
  if (r.group <= 0) return r.warps;
  std::vector<int> out;
  for (int k = i * r.group; k < (i + 1) * r.group && k < static_cast<int>(r.warps.size()); ++k)
    out.push_back(r.warps[k]);
  return out;
}

std::vector<PropertyVerdict> Gates::verdicts() const {
  std::vector<PropertyVerdict> out;
  for (const auto& [rule, a] : agg) out.push_back(a.verdict(s, rule, vacuous));
  return out;
}

}  // namespace layout

namespace layout {

// An lm.assume fact that may be undefined (64-bit overflow, a zero
// divisor) reads "undefined or true" in every proof (BvProver, sound52):
// it narrows nothing where it is undefined. Said where it is written.
// The width argument settles most facts; the others ask whether the fact
// is defined wherever the other facts hold.
void warnAssumesThatMayOverflow(Gates& g) {
  for (const ir::Assume& a : g.s.assumes) {
    if (!a.cond || encoder::definedByWidth(g.s, *a.cond)) continue;
    const encoder::BvResult r = g.prover.prove(lor(a.cond, lnot(a.cond)));
    if (r.kind == encoder::BvVerdict::Holds) continue;
    const std::string values = r.kind == encoder::BvVerdict::Fails && !r.goal_model.empty()
                                   ? " (e.g. " + r.goal_model.toString(g.s) + ")"
                                   : "";
    g.emit(g.finding("layout.assume-overflow", a.range,
                     fmt::format("lm.assume({}) may overflow 64 bits or divide by zero for some parameter values{}; "
                                 "there it narrows nothing: the checks consider those values too",
                                 g.str(a.cond), values)));
  }
}

}  // namespace layout

void runLayoutGates(const ir::Schedule& s, const CheckOptions& opts, ir::DiagnosticSink& sink,
                    nlohmann::json& resources, std::vector<PropertyVerdict>& verdicts) {
  layout::Gates g(s, opts, sink);

  // Contradictory assumptions make every symbolic proof vacuous (and leave
  // the model checker no values to check): an error. Assumptions the solver
  // cannot settle leave every proof in doubt: unknown.
  if (!s.assumes.empty()) {
    encoder::BvVerdict c = g.prover.assumptionsConsistent();
    if (c == encoder::BvVerdict::Fails) {
      g.vacuous = true;
      // An assumption false on its own (`lm.assume(0 == 1)`) is the place.
      size_t at = 0;
      for (size_t i = 0; i < s.assumes.size(); ++i)
        if (s.assumes[i].cond && !encoder::hasFreeSymbols(*s.assumes[i].cond) &&
            ir::evaluate(*s.assumes[i].cond, ir::EvalEnv{}).value_or(0) == 0) {
          at = i;
          break;
        }
      ir::Finding f = g.finding("layout.assume-contradiction", s.assumes[at].range,
                                "no parameter values satisfy every lm.assume of this schedule; nothing it says "
                                "can be checked (every symbolic check would hold vacuously)");
      for (size_t i = 0; i < s.assumes.size(); ++i)
        if (i != at) layout::Gates::note(f, s.assumes[i].range, "together with this assumption");
      g.emit(std::move(f));
    } else if (c != encoder::BvVerdict::Holds) {
      verdicts.push_back({"layout.assume-contradiction", VerdictKind::Unknown,
                          "the solver could not settle whether the lm.assume facts can hold together"});
    }
  }

  layout::warnAssumesThatMayOverflow(g);

  if (!g.ti.known) {
    ir::Finding f = g.finding(
        "target.unspecified", s.range,
        fmt::format("schedule '{}' names no target: skipped the target-specific gates (target.feature, "
                    "layout.smem-limit, mma.no-instruction, mma.dtype, mma.operand-location, mma.swizzle, "
                    "mma.warpgroup); give @cake.schedule(target=...) or --target",
                    s.name));
    g.emit(std::move(f));
  } else {
    layout::runTargetFeatureGates(g);
  }
  layout::runRoleGates(g);
  layout::runSmemGates(g);
  layout::runCpAsyncGlobalGates(g);
  layout::runTmaGates(g);
  layout::runMmaGates(g);
  layout::runTmemGates(g);
  if (opts.cross_cta_stores) layout::runGlobalStoreGates(g);
  if (opts.resource_report) resources = layout::buildResourceReport(g);
  auto v = g.verdicts();
  verdicts.insert(verdicts.end(), v.begin(), v.end());
}

}  // namespace cake::checks
