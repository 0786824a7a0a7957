// Stage 3, the kernel: its parameters, shared-memory carve-up, barrier
// initialisation, one branch per role, the role's blocks and the syncs the
// plan puts among an instance's threads. See emit.h and docs/gpu.md.
#include <numeric>
#include <stdexcept>

#include "ir/target.h"
#include "lowering/emit.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;

std::string Emitter::kernel() {
  out_.clear();
  emitKernel();
  return std::move(out_);
}

std::string Emitter::host() {
  out_.clear();
  emitHost();
  return std::move(out_);
}

void Emitter::internalError(const ir::Op& op, const std::string& what) const {
  throw std::logic_error(
      fmt::format("internal error: lowering {}: {} (the plan's validation let it through)", op.range.str(), what));
}

void Emitter::line(const std::string& l) {
  if (l.empty()) {
    out_ += "\n";
    return;
  }
  out_.append(static_cast<size_t>(std::max(indent_, 0)) * 2, ' ');
  out_ += l;
  out_ += "\n";
}

// (validation made sure a barrier of several slots names one)
std::string Emitter::barSlotAddr(int b, const ir::SlotSel& sel) const {
  const int count = s_.barriers[b].count;
  if (count == 1 || sel.mode == ir::SlotSel::Mode::None) return plan_.barName(b);
  return "(" + plan_.barName(b) + " + 8 * (" + plan_.slotOf(sel.index, count) + "))";
}

bool Emitter::multiThread() const { return !single_; }

void Emitter::elected(const std::function<void()>& body) {
  if (single_) {
    body();
    return;
  }
  open("if (cake_elected)");
  body();
  close();
}

void Emitter::instSync() {
  const auto& role = s_.roles[role_];
  if (single_) return;
  if (role.warpsPerInstance() == 1)
    line("__syncwarp();");
  else if (plan_.roleInstBar_[role_] < 0)
    line("__syncthreads();  // the instance is the whole block");
  else
    line(fmt::format("cake_bar_sync(cake_inst_bar, {});  // this instance's {} threads", role.warpsPerInstance() * 32,
                     role.warpsPerInstance() * 32));
}

// An sm_80 loop `for v in lm.range(lo, hi)` (step 1, lo a constant) whose body names view slots as `v + c`
// is emitted unrolled by the least common multiple U of those views' stages (at most 4): U copies of the
// body per pass, copy u with v = base + u, so that each slot of `v + c` is the constant (lo + u + c) mod
// stages (an immediate shared-memory offset), then the remaining iterations as the plain loop. The same
// iterations in the same order; only the slot arithmetic (`cake_slot<3>(k)`: a division by a constant
// per use, 4 uniform instructions each in the sm_80 GEMM's SASS) leaves the loop. docs/gpu.md "sm_80:
// the interior test's bounds and constant slots". Other targets keep the plain loop (their lowered
// output unchanged). The unroll factor, or 1 for the plain loop.
int64_t Emitter::slotUnroll(const Stmt& loop, int64_t step) const {
  if (plan_.target_ != ir::Target::SM80 || step != 1 || !plan_.constOf(loop.lo)) return 1;
  const auto hi = plan_.constOf(loop.hi);
  int64_t u = 1;
  const auto note = [&](const ir::ExprPtr& e, int stages) {
    if (!e || stages <= 1) return;
    auto vc = loopVarPlusConst(*e);
    if (vc && vc->first == loop.loop_var) u = std::lcm(u, static_cast<int64_t>(stages));
  };
  ir::forEachOp(loop.body, [&](const Stmt& st) {
    const ir::Op& op = st.op;
    for (const auto* r : {&op.dst, &op.src, &op.src2})
      if (r->kind == ir::BufferRef::Kind::View) {
        note(r->slot, s_.views[r->index].stages);
        if (r == &op.dst && op.sel.mode != ir::SlotSel::Mode::None && !r->slot) note(op.sel.index, s_.views[r->index].stages);
      }
  });
  // (a constant trip count below the factor would run the remainder loop only)
  return u <= 4 && !(hi && *hi - *plan_.constOf(loop.lo) < u) ? u : 1;
}

// What a slot-unrolled loop's steady pass may take as given (outside nested loops): the guards
// `if (v + c < hi)` (hi the loop's own bound), which hold in every iteration with v + reach < hi, reach
// the largest such c (at least 0); and the stepped 2-D cp.async copies whose coordinates are affine in v.
void Emitter::collectSteady(const ir::Block& b, const Stmt& loop, int64_t& reach, std::vector<const Stmt*>& guards,
                            std::vector<const ir::Op*>& copies) const {
  for (const Stmt& s : b) {
    if (s.kind == Stmt::Kind::For) continue;  // a nested loop's copies keep their tests
    if (s.kind == Stmt::Kind::If) {
      const ir::Expr& c = *s.cond;
      if (c.kind == ir::ExprKind::Lt && c.args.size() == 2 && ir::sameExpr(*c.args[1], *loop.hi))
        if (auto vc = loopVarPlusConst(*c.args[0]); vc && vc->first == loop.loop_var) {
          guards.push_back(&s);
          reach = std::max(reach, vc->second);
          collectSteady(s.body, loop, reach, guards, copies);  // (the else branch never runs there)
          continue;
        }
      collectSteady(s.body, loop, reach, guards, copies);
      collectSteady(s.orelse, loop, reach, guards, copies);
      continue;
    }
    const ir::Op& op = s.op;
    if (op.kind == OpKind::CpAsync && op.coords.size() == 2 && cpAsyncPassBytes(op) &&
        cpHoisted_.count(cpHoistName(op)) && ir::affineIn(*op.coords[0], loop.loop_var) &&
        ir::affineIn(*op.coords[1], loop.loop_var))
      copies.push_back(&op);
  }
}

void Emitter::emitSlotUnrolledLoop(const Stmt& loop, int64_t unroll) {
  const std::string v = plan_.loopNames_[loop.loop_var], base = "cake_kb_" + v, hi = plan_.expr(loop.hi);
  const int64_t lo = *plan_.constOf(loop.lo);
  comment(fmt::format("loop '{}' unrolled by {}, the slots' stages' common multiple: each copy's slots are constants", v,
                      unroll));
  openScope();
  line(fmt::format("int {} = {};", base, lo));
  const auto emitCopies = [&] {
    for (int64_t u = 0; u < unroll; ++u) {
      openScope();
      line(fmt::format("const int {0} = {1} + {2};  (void){0};", v, base, u));  // (unused where only its slots named it)
      plan_.slotResidue_[loop.loop_var] = {lo + u, unroll};
      walkBlock(loop.body);
      plan_.slotResidue_.erase(loop.loop_var);
      close();
    }
  };
  // The steady pass: while every guard `if (v + c < hi)` holds (v + reach < hi) and every stepped copy of
  // the body is interior, the same passes with those guards and interior tests taken as true (and their
  // else paths left out), so the copies are branch-free and ptxas interleaves their address arithmetic and
  // LDGSTS with the MMAs. A copy's interior test constrains affine functions of v to intervals, so it holds
  // for every v in [lo, hi - reach - 1] when it holds at both ends: cake_ss_v tests the ends once. The
  // iterations, their operations and their order are those of the loop below. docs/gpu.md "sm_80: a
  // guard-free steady state".
  int64_t reach = 0;
  std::vector<const Stmt*> guards;
  std::vector<const ir::Op*> copies;
  collectSteady(loop.body, loop, reach, guards, copies);
  if (!copies.empty()) {
    const std::string ss = "cake_ss_" + v;
    comment(fmt::format("steady pass: every copy interior for {} in [{}, {} - {}]", v, lo, sanitizeComment(hi), reach + 1));
    line(fmt::format("bool {} = true;", ss));
    std::set<std::string> tests;
    for (const std::string& at : {std::to_string(lo), fmt::format("({}) - {}", hi, reach + 1)}) {
      openScope();
      line(fmt::format("const int {0} = {1};  (void){0};", v, at));
      for (const ir::Op* op : copies) {
        const std::string t = fmt::format(
            "static_cast<unsigned long long>(static_cast<long long>({0})) < static_cast<unsigned long long>({1}_rl) && "
            "static_cast<unsigned long long>(static_cast<long long>({2})) < static_cast<unsigned long long>({1}_cl)",
            plan_.expr(op->coords[0]), cpHoistName(*op), plan_.expr(op->coords[1]));
        if (tests.insert(at + t).second) line(fmt::format("{0} = {0} && {1};", ss, t));
      }
      close();
    }
    steadyGuards_ = {guards.begin(), guards.end()};
    steadyCopies_ = {copies.begin(), copies.end()};
    open(fmt::format("if ({0}) for (; {1} + {2} <= {3}; {1} += {4})", ss, base, unroll + reach, hi, unroll));
    emitCopies();
    close();
    steadyGuards_.clear();
    steadyCopies_.clear();
  }
  open(fmt::format("for (; {0} + {1} <= {2}; {0} += {1})", base, unroll, hi));
  emitCopies();
  close();
  open(fmt::format("for (int {0} = {1}; {0} < {2}; ++{0})", v, base, hi));
  walkBlock(loop.body);
  close();
  close();
}

void Emitter::walkBlock(const ir::Block& b) {
  const auto txBefore = plan_.derivedTx(b);
  for (size_t i = 0; i < b.size(); ++i) {
    const Stmt& s = b[i];
    if (s.kind == Stmt::Kind::For) {
      const std::string v = plan_.loopNames_[s.loop_var];
      const auto step = s.step ? plan_.constOf(s.step).value_or(1) : 1;
      const std::string cmp = step > 0 ? "<" : ">";
      const std::string inc = step == 1 ? "++" + v : fmt::format("{} += {}", v, step);
      emitInitHoists(s);
      const int64_t unroll = slotUnroll(s, step);
      if (unroll > 1) {
        emitSlotUnrolledLoop(s, unroll);
        continue;
      }
      open(fmt::format("for (int {0} = {1}; {0} {2} {3}; {4})", v, plan_.expr(s.lo), cmp, plan_.expr(s.hi), inc));
      walkBlock(s.body);
      close();
      continue;
    }
    if (s.kind == Stmt::Kind::If) {
      if (steadyGuards_.count(&s)) {
        openScope();
        comment(fmt::format("{} holds in the steady pass", sanitizeComment(plan_.expr(s.cond))));
        walkBlock(s.body);
        close();
        continue;
      }
      open(fmt::format("if ({})", plan_.expr(s.cond)));
      walkBlock(s.body);
      if (!s.orelse.empty()) {
        close("} else {");
        ++indent_;
        walkBlock(s.orelse);
      }
      close();
      continue;
    }
    if (opts_.comments && s.range.file) {
      std::string src = sanitizeComment(s.range.file->lineText(s.range.line));
      src.erase(0, src.find_first_not_of(' '));
      if (!src.empty()) line(fmt::format("// {}:{}  {}", sanitizeComment(s.range.file->name), s.range.line, src));
    }
    auto it = txBefore.find(i);
    if (it != txBefore.end()) emitArrive(s.op, it->second, false);
    if (plan_.syncBefore_.count(&s)) {
      comment("threads of this instance touched these buffers since its last sync");
      instSync();
    }
    emitOp(s.op);
  }
}

void Emitter::emitOp(const ir::Op& op) {
  const auto& role = s_.roles[role_];
  // operand fragments: filled by their ldmatrix load, read by an mma (PlanBuilder::checkOperandFragments)
  if (op.kind != OpKind::Mma && !plan_.operandFragmentLoad(role_, op))
    for (const auto* r : {&op.dst, &op.src, &op.src2})
      if (r->kind == K::Regs && plan_.operandFragment(role_, r->index))
        internalError(op, "an operand fragment named by an op other than its load and an mma");
  switch (op.kind) {
    case OpKind::Wait: emitWait(op); break;
    case OpKind::Arrive: emitArrive(op, 0, false); break;
    case OpKind::ExpectTx: emitArrive(op, 0, true); break;
    case OpKind::TmaLoad: emitTmaLoad(op); break;
    case OpKind::TmaStore: emitTmaStore(op); break;
    case OpKind::TmaStoreCommit: elected([&] { line("cake_tma_store_commit();"); }); break;
    case OpKind::TmaStoreWait: {
      const int64_t n = op.pending ? plan_.constOf(op.pending).value_or(0) : 0;
      elected([&] { line(fmt::format("cake_tma_store_wait<{}>();  // reads of the stored slots done", n)); });
      if (!single_) instSync();
      break;
    }
    case OpKind::CpAsync: emitCpAsync(op); break;
    case OpKind::CpAsyncCommit: line("cake_cp_async_commit();"); break;
    case OpKind::CpAsyncWait: {
      const int64_t n = op.pending ? plan_.constOf(op.pending).value_or(0) : 0;
      line(fmt::format("cake_cp_async_wait<{}>();", n));
      comment("every thread's copies landed: sync the instance so each sees all of them");
      instSync();
      break;
    }
    case OpKind::Sync:
    case OpKind::BarArrive: {
      // bar.sync waits (tensor-core fences on both sides); bar.arrive only signals.
      const int nb = op.named_barrier;
      const bool waits = op.kind == OpKind::Sync;
      tcFenceBefore();
      line(fmt::format("cake_bar_{}({}, {});  // {}", waits ? "sync" : "arrive", plan_.namedBarId_[nb],
                       plan_.namedBarThreads_[nb], sanitizeComment(s_.named_barriers[nb].name)));
      if (waits) tcFenceAfter();
      break;
    }
    case OpKind::ClusterSync:
      // every thread of the instance (validation keeps it at the role's top
      // level): step out of an elected-thread role's `if (cake_elected)`
      if (single_) close();
      tcFenceBefore();
      line("cake_cluster_sync();  // barrier.cluster arrive (release) + wait (acquire)");
      tcFenceAfter();
      if (single_) open("if (cake_elected)");
      break;
    case OpKind::FenceProxy: line("cake_fence_proxy_async();"); break;
    case OpKind::Mma: emitMma(op); break;
    case OpKind::MmaCommit:
    case OpKind::MmaWait:
      emitMmaCommit(op);
      break;
    case OpKind::Copy:
      if (op.dst.kind == K::Tmem || op.src.kind == K::Tmem) emitTmemCopy(op);
      else if (const Layout* l = plan_.operandFragmentLoad(role_, op)) emitFragmentLoad(op, *l);
      else emitElementwise(op);
      break;
    case OpKind::TmemLoad:
    case OpKind::TmemStore: emitTmemCopy(op); break;
    case OpKind::TmemLoadWait: line("cake_tmem_wait_ld();  // tcgen05.wait::ld: this thread's tcgen05.ld are done"); break;
    case OpKind::TmemStoreWait: line("cake_tmem_wait_st();  // tcgen05.wait::st: this thread's tcgen05.st are done"); break;
    // programmatic dependent launch: every thread of the instance runs them
    case OpKind::GridDepWait: line("cake_griddep_wait();  // the preceding grid has completed, its writes are visible"); break;
    case OpKind::LaunchDependents: line("cake_griddep_launch_dependents();"); break;
    case OpKind::Fill:
    case OpKind::Unary:
    case OpKind::Binary:
      emitElementwise(op);
      break;
    case OpKind::Reduce: emitReduce(op); break;
  }
  (void)role;
}

void Emitter::emitRole(int r, const std::vector<const ir::RoleBody*>& bodies) {
  const auto& role = s_.roles[r];
  role_ = r;
  single_ = plan_.roleSingle_[r];
  const auto& w = role.warps;
  bool contiguous = true;
  for (size_t i = 1; i < w.size(); ++i) contiguous = contiguous && w[i] == w[i - 1] + 1;
  std::string pred, pos;
  if (contiguous) {
    pred = w.size() == 1 ? fmt::format("cake_warp == {}", w[0])
                         : fmt::format("cake_warp >= {} && cake_warp < {}", w[0], w.back() + 1);
    pos = fmt::format("cake_warp - {}", w[0]);
  } else {
    // the role's warps in the order written: position = index in that list
    std::string list;
    for (size_t i = 0; i < w.size(); ++i) list += fmt::format("{}{}", i ? ", " : "", w[i]);
    pred = fmt::format("cake_role_pos(cake_warp, cake_warps_{}) >= 0", r);
    pos = fmt::format("cake_role_pos(cake_warp, cake_warps_{})", r);
    (void)list;
  }
  const int wpi = role.warpsPerInstance();
  line(fmt::format("if ({}) {{", pred));
  ++indent_;
  comment(fmt::format("role '{}': warps [{}], {} instance{} of {} warp{}{}{}", sanitizeComment(role.name),
                      fmt::join(w, ", "), role.instanceCount(), role.instanceCount() > 1 ? "s" : "", wpi,
                      wpi > 1 ? "s" : "", role.regs ? fmt::format(", setmaxnreg {}", *role.regs) : std::string(),
                      single_ ? "; only waits, arrivals, TMA and tcgen05 issue: runs on one elected thread per instance"
                              : ""));
  if (role.regs && *role.regs != plan_.regCap_) {
    if (plan_.target_ == ir::Target::SM80)
      comment(fmt::format("regs={} ignored: setmaxnreg needs sm_90a or later", *role.regs));
    else if (*role.regs > plan_.regCap_)
      line(fmt::format("cake_setmaxnreg_inc<{}>();  // from {} at launch", *role.regs, plan_.regCap_));
    else
      line(fmt::format("cake_setmaxnreg_dec<{}>();  // from {} at launch", *role.regs, plan_.regCap_));
  }
  line(fmt::format("const int cake_instance = ({}) / {};", pos, wpi));
  line(fmt::format("const int cake_inst_thread = (({}) % {}) * 32 + cake_lane;", pos, wpi));
  line("const bool cake_elected = cake_inst_thread == 0;");
  line("const int cake_wwarp = cake_inst_thread / 32;  // warp within the instance");
  line("(void)cake_instance; (void)cake_elected; (void)cake_wwarp;");
  if (plan_.roleInstBar_[r] >= 0)
    line(fmt::format("const int cake_inst_bar = {} + cake_instance;  // named barrier of this instance",
                     plan_.roleInstBar_[r]));
  if (plan_.roleInstBar_[r] >= 0) line("(void)cake_inst_bar;");
  if (plan_.roleScratch_[r] >= 0)
    line(fmt::format("const uint32_t cake_scratch = cake_smem + {} + cake_instance * {};  // reduction scratch",
                     plan_.roleScratch_[r], plan_.roleScratchStride_[r]));
  // fragments and phase bits of this role
  std::set<int> regsUsed;
  stagePhaseBars_.clear();
  for (const auto* body : bodies)
    ir::forEachOp(body->body, [&](const Stmt& st) {
      for (const auto* ref : {&st.op.dst, &st.op.src, &st.op.src2})
        if (ref->kind == K::Regs) regsUsed.insert(ref->index);
      if (st.op.kind == OpKind::Wait && !st.op.sel.phase && st.op.sel.mode != ir::SlotSel::Mode::Iter)
        stagePhaseBars_.insert(st.op.barrier);
    });
  for (int b : stagePhaseBars_)
    line(fmt::format("uint32_t cake_phase_{} = 0;  // phase bit per slot of '{}' for this instance", plan_.barName(b),
                     sanitizeComment(s_.barriers[b].name)));
  for (int x : regsUsed) {
    auto it = plan_.frag_.find({r, x});
    if (it == plan_.frag_.end()) continue;
    const Layout& l = it->second;
    if (l.fam.kind == Family::Mma && l.fam.operand != Family::Acc) {
      // ldmatrix registers: [m16 tile (a) or n16 pair (b) of the warp][k-step][4], two elements each
      line(fmt::format("uint32_t {}[{}][{}][4];  // {} {}x{}: {}, {} per thread", plan_.regsName(x), l.NR() / 2, l.NC() / 4,
                       sanitizeComment(s_.regs[x].name), l.t.R, l.t.C, l.fam.describe(), l.NR() * l.NC()));
      continue;
    }
    line(fmt::format("{} {}[{}][{}];  // {} {}x{}: {}, {} per thread", cType(s_.regs[x].dtype), plan_.regsName(x), l.NR(),
                     l.NC(), sanitizeComment(s_.regs[x].name), l.t.R, l.t.C, l.fam.describe(), l.NR() * l.NC()));
  }
  emitCpAsyncHoists(bodies);
  emitLdmHoists(bodies);
  if (single_) open("if (cake_elected)");
  for (const auto* body : bodies) walkBlock(body->body);
  if (single_) close();
  --indent_;
  line("}");
}

void Emitter::emitKernel() {
  // kernel parameters
  std::vector<std::string> params;
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const auto& p = s_.params[i];
    const int pi = static_cast<int>(i);
    if (ir::isTensorParam(p.type)) {
      for (const auto& [tp, tv] : plan_.tmaps_)
        if (tp == pi) params.push_back("const __grid_constant__ CUtensorMap " + plan_.tmapName(tp, tv));
      if (plan_.tensors_[pi].ptr)
        params.push_back(fmt::format("{}* {}, const cake_ext<{}> cake_ext_{}", cType(plan_.tensors_[pi].dtype), plan_.paramName(pi),
                                     std::max(1, plan_.tensors_[pi].rank), plan_.paramName(pi)));
    } else if (p.type == ir::ParamType::I32) {
      params.push_back("const int " + plan_.paramName(pi));
    } else {
      params.push_back("const float " + plan_.paramName(pi));
    }
  }
  // non-contiguous roles: their warp lists
  bool lists = false;
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    const auto& w = s_.roles[r].warps;
    bool contiguous = true;
    for (size_t i = 1; i < w.size(); ++i) contiguous = contiguous && w[i] == w[i - 1] + 1;
    if (contiguous) continue;
    lists = true;
    line(fmt::format("__device__ const int cake_warps_{}[{}] = {{{}}};  // role '{}', warps in instance order", r,
                     w.size() + 1, fmt::format("{}, -1", fmt::join(w, ", ")), sanitizeComment(s_.roles[r].name)));
  }
  if (lists) {
    line("// position of warp w in a role's warp list (-1: not in the role)");
    line("__device__ __forceinline__ int cake_role_pos(int w, const int* list) {");
    line("  for (int i = 0; list[i] >= 0; ++i)");
    line("    if (list[i] == w) return i;");
    line("  return -1;");
    line("}");
    line("");
  }
  comment(fmt::format("schedule '{}' ({}): {} threads, {} B shared memory (+{} alignment slack)",
                      sanitizeComment(s_.name), ir::targetName(plan_.target_), plan_.threads_, plan_.smemUsed_,
                      ir::hw::kSmemAlignSlack));
  std::string attrs = fmt::format("__launch_bounds__({}, 1)", plan_.threads_);
  if (s_.cluster[0] * s_.cluster[1] * s_.cluster[2] > 1)
    attrs += fmt::format(" __cluster_dims__({}, {}, {})", s_.cluster[0], s_.cluster[1], s_.cluster[2]);
  line(fmt::format("__global__ void {} {}(", attrs, plan_.kernelName()));
  for (size_t i = 0; i < params.size(); ++i) line("    " + params[i] + (i + 1 < params.size() ? "," : ") {"));
  if (params.empty()) line("    ) {");
  ++indent_;
  // The base is rounded up inside the slack that requestedSmemBytes adds.
  line(fmt::format("extern __shared__ __align__({}) uint8_t cake_smem_raw[];", ir::hw::kSmemAlignSlack));
  line(fmt::format("const uint32_t cake_smem = (cake_smem_u32(cake_smem_raw) + {}u) & ~{}u;", ir::hw::kSmemAlignSlack - 1,
                   ir::hw::kSmemAlignSlack - 1));
  for (size_t p = 0; p < s_.pools.size(); ++p)
    line(fmt::format("const uint32_t cake_pool_{} = cake_smem + {};  // {} ({} B)", plan_.poolNames_[p], plan_.poolOffset_[p],
                     sanitizeComment(s_.pools[p].name), *plan_.constOf(s_.pools[p].bytes)));
  for (size_t v = 0; v < s_.views.size(); ++v) {
    const auto& view = s_.views[v];
    const int vi = static_cast<int>(v);
    std::vector<int64_t> sh = plan_.viewShape(vi);
    line(fmt::format("const uint32_t {} = cake_pool_{} + {};  // {} {}, {} slot{} of {} B{}", plan_.viewName(vi),
                     plan_.poolNames_[view.pool], *plan_.constOf(view.offset), fmt::join(sh, "x"), ir::dtypeName(view.dtype),
                     view.stages, view.stages > 1 ? "s" : "", plan_.viewSlotBytes(vi),
                     view.swizzle != ir::Swizzle::None ? fmt::format(", {} swizzle", ir::swizzleName(view.swizzle))
                                                        : std::string()));
    line(fmt::format("(void){};", plan_.viewName(vi)));
  }
  for (size_t b = 0; b < s_.barriers.size(); ++b) {
    const auto& bar = s_.barriers[b];
    line(fmt::format("const uint32_t {} = cake_smem + {};  // {} mbarrier{}, 8 B each", plan_.barName(static_cast<int>(b)),
                     plan_.barOffset_ + 8 * plan_.barSlotBase_[b], bar.count, bar.count > 1 ? "s" : ""));
    line(fmt::format("(void){};", plan_.barName(static_cast<int>(b))));
  }
  line("const int cake_warp = threadIdx.x / 32, cake_lane = threadIdx.x % 32;");
  line("(void)cake_lane;");
  emitRaster();
  line("");
  if (!s_.barriers.empty() || !plan_.tmaps_.empty()) {
    open("if (threadIdx.x == 0)");
    for (size_t b = 0; b < s_.barriers.size(); ++b) {
      const auto& bar = s_.barriers[b];
      const int w = plan_.barWeight_[b];
      std::string why = fmt::format("init_count {}", bar.init_count);
      if (w > 1) why += fmt::format(" x {} (one arrival per warp of an arriving instance)", w);
      line(fmt::format("for (int s = 0; s < {}; ++s) cake_mbar_init({} + 8 * s, {});  // {}", bar.count,
                       plan_.barName(static_cast<int>(b)), bar.init_count * w, why));
    }
    if (!s_.barriers.empty()) line("cake_fence_mbarrier_init();");
    for (const auto& [tp, tv] : plan_.tmaps_) line(fmt::format("cake_prefetch_tensormap(&{});", plan_.tmapName(tp, tv)));
    close();
  }
  if (plan_.usesTmem_) {
    comment(fmt::format("TMEM: warp 0 allocates {} columns (covers every lm.tmem) and publishes the base", plan_.tmemCols_));
    line(fmt::format("if (cake_warp == 0) cake_tmem_alloc(cake_smem + {}, {});", plan_.tmemSlotOffset_, plan_.tmemCols_));
    line("cake_tc_fence_before();");
  }
  line("__syncthreads();");
  if (plan_.usesTmem_) {
    line("cake_tc_fence_after();");
    line(fmt::format("const uint32_t cake_tmem_base = cake_lds<uint32_t>(cake_smem + {});", plan_.tmemSlotOffset_));
  }
  line("");
  bool first = true;
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    std::vector<const ir::RoleBody*> bodies;
    for (const auto& b : s_.bodies)
      if (b.role == static_cast<int>(r)) bodies.push_back(&b);
    if (bodies.empty()) continue;
    if (!first) {
      out_.resize(out_.size() - 1);  // "}\n" -> "} else "
      out_ += " else ";
      const size_t pos = out_.size();
      emitRole(static_cast<int>(r), bodies);
      size_t k = pos;
      while (k < out_.size() && out_[k] == ' ') ++k;
      out_.erase(pos, k - pos);
    } else {
      emitRole(static_cast<int>(r), bodies);
    }
    first = false;
  }
  // (a warp without a role comes straight here, and no thread of the CTA
  // exits before all arrive: ir::kernelEndsWithBlockBarrier, which the
  // model checker's cluster barrier reads too)
  if (plan_.usesTmem_) {
    comment("every role is done with TMEM: warp 0 frees it");
    line("cake_tc_fence_before();");
    line("__syncthreads();");
    open("if (cake_warp == 0)");
    line("cake_tc_fence_after();");
    line(fmt::format("cake_tmem_dealloc(cake_tmem_base, {});", plan_.tmemCols_));
    close();
  }
  --indent_;
  line("}");
}

// The CTAs of a 2-D grid run in launch order (x fastest). Walking x (the
// first block coordinate, the M tiles of a GEMM) in groups of G keeps the
// CTAs that run together on a few rows of A and columns of B, so they hit
// in L2. The map is a bijection of the grid onto itself and the CTAs of a
// schedule never communicate, so every CTA still runs exactly the
// verified program for its (lm.block_idx(0), lm.block_idx(1)).
// G is 16 for sm_80 kernels, where it was timed faster (fragsp13 at 4096^3: 0.596-0.597 of cuBLAS against
// 0.593 with 8, docs/gpu.md "sm_80: a 16-byte epilogue and groups of 16 block rows"), 8 for the others
// (their sm_90a / sm_100a timings were taken with 8).
void Emitter::emitRaster() {
  if (!plan_.raster_) return;
  const int g = plan_.target_ == ir::Target::SM80 ? 16 : 8;
  comment(fmt::format("CTA order: groups of {} lm.block_idx(0) values, lm.block_idx(1) inside a group (L2 reuse)", g));
  comment("64-bit: gridDim.x * gridDim.y may pass 2^31");
  line("const unsigned long long cake_blin = blockIdx.x + 1ull * gridDim.x * blockIdx.y;");
  line(fmt::format("const unsigned long long cake_bgrp = {}ull * gridDim.y;  // blocks per group", g));
  line(fmt::format("const unsigned cake_bx0 = static_cast<unsigned>(cake_blin / cake_bgrp * {});  // first block row of the group", g));
  line(fmt::format("const unsigned cake_bgm = gridDim.x - cake_bx0 < {}u ? gridDim.x - cake_bx0 : {}u;", g, g));
  line("const int cake_bx = static_cast<int>(cake_bx0 + cake_blin % cake_bgrp % cake_bgm);");
  line("const int cake_by = static_cast<int>(cake_blin % cake_bgrp / cake_bgm);");
  line("(void)cake_bx; (void)cake_by;");
}

}  // namespace cake::lowering::detail
