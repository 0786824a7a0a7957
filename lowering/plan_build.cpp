// Stage 1: PlanBuilder computes the KernelPlan of a schedule (names,
// shared-memory layout, roles, barriers, MMA plans, fragment layouts,
// scratch, grid) and reports lower.* where it cannot. See lower_internal.h.
#include <algorithm>
#include <stdexcept>

#include "ir/smem_layout.h"
#include "ir/target.h"
#include "ir/tmem.h"
#include "lowering/lower_internal.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;

void PlanBuilder::error(ir::Rule rule, const ir::SourceRange& r, std::string msg) {
  findings_.push_back(ir::makeFinding(rule, r, std::move(msg)));
}

std::string PlanBuilder::uniqueName(const std::string& raw) {
  std::string base = sanitizeIdent(raw), n = base;
  for (int i = 2; usedNames_.count(n); ++i) n = fmt::format("{}_{}", base, i);
  usedNames_.insert(n);
  return n;
}

void PlanBuilder::assignNames() {
  for (const auto& p : s_.params) paramNames_.push_back(uniqueName(p.name));
  for (const auto& p : s_.pools) poolNames_.push_back(uniqueName(p.name));
  for (const auto& v : s_.views) viewNames_.push_back(uniqueName(v.name));
  for (const auto& t : s_.tmems) tmemNames_.push_back(uniqueName(t.name));
  for (const auto& r : s_.regs) regsNames_.push_back(uniqueName(r.name));
  for (const auto& b : s_.barriers) barNames_.push_back(uniqueName(b.name));
  // loop variables live in their own scopes: unique against the names above only;
  // a trip counter the front end made (`tile#trip`, a loop with a symbolic step)
  // also against every written loop variable, which may be nested in its loop
  const std::set<std::string> globals = usedNames_;
  std::set<std::string> written = globals;
  for (const auto& l : s_.loop_vars)
    if (l.name.find('#') == std::string::npos) written.insert(sanitizeIdent(l.name));
  for (const auto& l : s_.loop_vars) {
    const std::set<std::string>& taken = l.name.find('#') == std::string::npos ? globals : written;
    std::string base = sanitizeIdent(l.name), n = base;
    for (int i = 2; taken.count(n); ++i) n = fmt::format("{}_{}", base, i);
    loopNames_.push_back(n);
  }
}

bool PlanBuilder::blockView(int v) {
  const int64_t rb = viewRowBytes(v);
  const int sw = ir::swizzleBytes(s_.views[v].swizzle);
  if (sw && rb == sw) return true;  // already canonical
  int W = sw;
  if (!W) W = rb % 128 == 0 ? 128 : rb % 64 == 0 ? 64 : rb % 32 == 0 ? 32 : 0;
  const Tile t = viewTile(v);
  auto off = constOf(s_.views[v].offset);
  if (!W || rb % W || t.R % 8 || !off || *off % (8 * W) || viewShape(v).size() > 2) return false;
  viewBlock_[v] = W;
  return true;
}

// Unswizzled views that a TMA store reads are staging tiles written from
// registers (an accumulator copy, an element-wise op). Row-major with rows of
// 128 B or more, the 8 rows a warp writes at once share their banks (8-way
// conflicts for a wgmma accumulator); stored blocked and swizzled (the TMA
// store swizzles back), each row's chunk lands in its own banks. Only the
// physical layout changes: every access goes through viewOffset and the TMA
// boxes, so the synchronisation the checker verified is emitted unchanged.
void PlanBuilder::blockStagingViews() {
  using K = ir::BufferRef::Kind;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      if (op.kind != OpKind::TmaStore || op.src.kind != K::View) return;
      const int v = op.src.index;
      if (ir::swizzleBytes(s_.views[v].swizzle) || viewBlock_[v] || viewRowBytes(v) < 64) return;
      blockView(v);
    });
}

void PlanBuilder::analyzeParams() {
  tensors_.assign(s_.params.size(), TensorInfo{});
  for (size_t i = 0; i < s_.params.size(); ++i) tensors_[i].rank = ir::tmaRank(s_.params[i].type);
  auto note = [&](int p, size_t rank, const ir::SourceRange& r, std::optional<ir::DType> dt, bool ptr) {
    auto& t = tensors_[p];
    if (t.rank == 0) t.rank = static_cast<int>(rank);
    else if (t.rank != static_cast<int>(rank))
      error(ir::Rule::LowerLayout, r,
            fmt::format("tensor '{}' is addressed with {} coordinates here and {} elsewhere", s_.params[p].name,
                        rank, t.rank));
    if (dt && !t.dtypeKnown) {
      t.dtype = *dt;
      t.dtypeKnown = true;
    }
    if (ptr) t.ptr = true;
  };
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      using K = ir::BufferRef::Kind;
      switch (op.kind) {
        case OpKind::TmaLoad:
        case OpKind::TmaStore: {
          const auto& view = op.kind == OpKind::TmaLoad ? op.dst : op.src;
          const auto& tensor = op.kind == OpKind::TmaLoad ? op.src : op.dst;
          if (view.kind != K::View || tensor.kind != K::Param) return;
          tmaps_.insert({tensor.index, view.index});
          note(tensor.index, op.coords.size(), op.range, s_.views[view.index].dtype, false);
          break;
        }
        case OpKind::CpAsync:
          if (op.dst.kind == K::View && op.src.kind == K::Param)
            note(op.src.index, op.coords.size(), op.range, s_.views[op.dst.index].dtype, true);
          break;
        case OpKind::Copy: case OpKind::Fill: case OpKind::Unary: case OpKind::Binary: case OpKind::Reduce: {
          std::optional<ir::DType> other;
          for (const auto* r : {&op.dst, &op.src, &op.src2})
            if (r->kind == K::View || r->kind == K::Regs || r->kind == K::Tmem) {
              other = refDtype(*r);
              break;
            }
          for (const auto* r : {&op.dst, &op.src, &op.src2})
            if (r->kind == K::Param) note(r->index, op.coords.size(), op.range, other, true);
          break;
        }
        default:
          break;
      }
    });
  // parameters known to be >= 0 (lm.assume(p > c), p >= c with c >= 0) index without floor corrections
  std::function<void(const Expr&)> scan = [&](const Expr& c) {
    if (c.kind == ExprKind::And) {
      scan(*c.args[0]);
      scan(*c.args[1]);
      return;
    }
    auto isP = [](const Expr& e) { return e.kind == ExprKind::Param; };
    auto cst = [](const Expr& e) { return e.kind == ExprKind::Const ? std::optional<int64_t>(e.value) : std::nullopt; };
    if (c.args.size() != 2) return;
    const Expr &l = *c.args[0], &r = *c.args[1];
    if ((c.kind == ExprKind::Gt || c.kind == ExprKind::Ge) && isP(l) && cst(r) && *cst(r) >= -1 + (c.kind == ExprKind::Ge))
      nonnegParams_.insert(l.index);
    if ((c.kind == ExprKind::Lt || c.kind == ExprKind::Le) && isP(r) && cst(l) && *cst(l) >= -1 + (c.kind == ExprKind::Le))
      nonnegParams_.insert(r.index);
  };
  for (const auto& a : s_.assumes)
    if (a.cond) scan(*a.cond);
}

void PlanBuilder::needConst(const ir::ExprPtr& e, const ir::SourceRange& r, const std::string& what) {
  if (!e || constOf(e)) return;
  std::set<int> ps;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    if (x.kind == ExprKind::Param && !spec_.count(x.index)) ps.insert(x.index);
    for (const auto& a : x.args)
      if (a) walk(*a);
  };
  walk(*e);
  std::vector<std::string> names;
  for (int p : ps) {
    names.push_back(s_.params[p].name);
    unspecialized_.insert(s_.params[p].name);
  }
  error(ir::Rule::LowerUnsupported, r,
        names.empty()
            ? fmt::format("{} is not a constant", what)
            : fmt::format("{} depends on {}: lowering needs constant shapes; specialise the kernel for a value "
                          "(LowerOptions::specialize, `cake lower --set {}=...`)",
                          what, fmt::join(names, ", "), names[0]));
}

void PlanBuilder::layoutSmem() {
  for (const auto& p : s_.pools) {
    auto bytes = constOf(p.bytes);
    if (!bytes || *bytes <= 0) {
      if (!bytes) needConst(p.bytes, p.range, fmt::format("the size of pool '{}'", p.name));
      else error(ir::Rule::LowerUnsupported, p.range, fmt::format("pool '{}' needs a positive size", p.name));
      return;
    }
  }
  // The one placement (ir/smem_layout.h), the one the layout gates verify,
  // at the specialised values: constant once every pool size is.
  smemLayout_ = ir::smemLayout(s_);
  auto at = [&](const ir::ExprPtr& e) {
    auto v = constOf(e);
    if (!v) throw std::logic_error("cake: a shared-memory offset is not constant although every pool size is");
    return *v;
  };
  for (const auto& base : smemLayout_.pool_base) poolOffset_.push_back(at(base));
  for (size_t v = 0; v < s_.views.size(); ++v) {
    const auto& view = s_.views[v];
    auto o = constOf(view.offset);
    bool shape_ok = !view.shape.empty();
    for (const auto& d : view.shape) shape_ok = shape_ok && constOf(d) && *constOf(d) > 0;
    if (!o || !shape_ok) {
      needConst(view.offset, view.range, fmt::format("the offset of view '{}'", view.name));
      for (const auto& d : view.shape) needConst(d, view.range, fmt::format("the shape of view '{}'", view.name));
      if (!failed())
        error(ir::Rule::LowerUnsupported, view.range, fmt::format("view '{}': lowering needs a positive shape", view.name));
      continue;
    }
    const int sw = ir::swizzleBytes(view.swizzle);
    const int vi = static_cast<int>(v);
    if (sw) {
      const int64_t period = sw * 8;  // 256 / 512 / 1024 B
      if (*o % period || viewSlotBytes(vi) % period)
        error(ir::Rule::LowerLayout, view.range,
              fmt::format("view '{}': with a {}B swizzle its offset and slot size must be multiples of {} B", view.name,
                          sw, period));
    } else if (*o % 16) {
      error(ir::Rule::LowerLayout, view.range, fmt::format("view '{}': offset must be a multiple of 16 B", view.name));
    }
  }
  barOffset_ = at(smemLayout_.barrier_base);
  for (int64_t b : smemLayout_.barrier_slot_base) barSlotBase_.push_back(static_cast<int>(b));
  if (smemLayout_.tmem_slot) tmemSlotOffset_ = at(smemLayout_.tmem_slot);
  smemUsed_ = at(smemLayout_.total);
}

void PlanBuilder::analyzeRoles() {
  warps_ = s_.warpCount();
  threads_ = warps_ * 32;
  const ir::TargetLimits& lim = ir::targetLimits(target_);
  if (threads_ <= 0 || warps_ > lim.max_warps_per_block) {
    error(ir::Rule::LowerUnsupported, s_.range,
          fmt::format("{} threads per block (1..{} lower)", threads_, 32 * lim.max_warps_per_block));
    return;
  }
  regCap_ = lim.launchRegsPerThread(threads_);
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    const auto& role = s_.roles[r];
    bool single = true;
    for (const auto& body : s_.bodies)
      if (body.role == static_cast<int>(r))
        ir::forEachOp(body.body, [&](const Stmt& st) { single = single && opIsElected(st.op); });
    roleSingle_.push_back(single);
    for (int w : role.warps)
      if (w >= warps_)
        error(ir::Rule::LowerUnsupported, role.range,
              fmt::format("role '{}' uses warp {} but the block has {} warps (decorator warps=)", role.name, w, warps_));
    if (role.regs && target_ != ir::Target::SM80) {
      // setmaxnreg is warpgroup-wide: the role must own whole aligned warpgroups
      std::set<int> w(role.warps.begin(), role.warps.end());
      bool ok = threads_ % 128 == 0;
      for (int x : role.warps)
        for (int k = 0; k < 4; ++k) ok = ok && w.count(x / 4 * 4 + k);
      if (!ok)
        error(ir::Rule::LowerLayout, role.range,
              fmt::format("role '{}' has regs={} but does not own whole warpgroups (setmaxnreg is per warpgroup)",
                          role.name, *role.regs));
      if (*role.regs < 24 || *role.regs > 256 || *role.regs % 8)
        error(ir::Rule::LowerLayout, role.range,
              fmt::format("role '{}': regs={} must be a multiple of 8 in [24, 256]", role.name, *role.regs));
    }
    if (role.group > 0 && role.warps.size() % role.group)
      error(ir::Rule::LowerLayout, role.range, fmt::format("role '{}': {} warps do not split into groups of {}", role.name,
                                                    role.warps.size(), role.group));
  }
  // named barriers: ids 1..n
  int id = 1;
  for (const auto& nb : s_.named_barriers) {
    namedBarId_.push_back(id++);
    int t = 0;
    for (int r : nb.roles) t += static_cast<int>(s_.roles[r].warps.size()) * 32;
    namedBarThreads_.push_back(t);
    for (int r : nb.roles) roleSingle_[r] = false;  // bar.sync needs every thread
  }
  // then one per instance of each multi-warp role that syncs its own warps
  roleInstBar_.assign(s_.roles.size(), -1);
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    const auto& role = s_.roles[r];
    if (roleSingle_[r] || role.warpsPerInstance() <= 1) continue;
    if (role.instanceCount() == 1 && static_cast<int>(role.warps.size()) == warps_) continue;  // __syncthreads
    roleInstBar_[r] = id;
    id += role.instanceCount();
  }
  if (id > 16)
    error(ir::Rule::LowerUnsupported, s_.range,
          fmt::format("{} named barriers + the multi-warp instances' own barriers need {} of the 15 hardware barriers",
                      s_.named_barriers.size(), id - 1));
}

void PlanBuilder::analyzeBarriers() {
  std::set<int> commitBars;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      if (st.op.kind == OpKind::MmaCommit && st.op.barrier >= 0) commitBars.insert(st.op.barrier);
    });
  txPlan_ = ir::planDerivedTx(s_);
  for (size_t b = 0; b < s_.barriers.size(); ++b) {
    int64_t w = 1;
    if (!commitBars.count(static_cast<int>(b)))
      for (int r : s_.barriers[b].prod)
        if (!roleSingle_[r] && s_.roles[r].warpsPerInstance() > 1) w = lcm64(w, s_.roles[r].warpsPerInstance());
    barWeight_.push_back(static_cast<int>(w));
  }
}

void PlanBuilder::analyzeLoops(const ir::Block& b) {
  for (const auto& st : b) {
    if (st.kind == Stmt::Kind::For) {
      if (st.loop_var >= static_cast<int>(loopNonneg_.size())) loopNonneg_.resize(st.loop_var + 1, false);
      auto step = st.step ? constOf(st.step) : std::optional<int64_t>(1);
      loopNonneg_[st.loop_var] = step && *step > 0 && nonneg(*st.lo);
      analyzeLoops(st.body);
    } else if (st.kind == Stmt::Kind::If) {
      analyzeLoops(st.body);
      analyzeLoops(st.orelse);
    }
  }
}

namespace {
// the instance's warps are whole aligned warpgroups
bool alignedWarpgroups(const ir::Role& role) {
  const int wpi = role.warpsPerInstance();
  if (wpi % 4) return false;
  for (int i = 0; i < role.instanceCount(); ++i) {
    const int first = role.warps[i * wpi];
    if (first % 4) return false;
    for (int k = 1; k < wpi; ++k)
      if (role.warps[i * wpi + k] != first + k) return false;
  }
  return true;
}
}  // namespace

// The warp grid of an mma.sync accumulator: the most square m16 x n16 split of the instance's warps
// (one warp column where a fragment a operand in the accumulator's layout needs whole rows of K).
bool PlanBuilder::mmaSyncWarpGrid(Tile tacc, int wpi, bool oneColumn, MmaPlan& p) const {
  int best = -1;
  for (int wm = 1; wm <= wpi; ++wm) {
    if (wpi % wm) continue;
    if (oneColumn && wm != wpi) continue;
    const int wn = wpi / wm;
    if (tacc.R % (16 * wm) || tacc.C % (16 * wn)) continue;
    const int score = static_cast<int>(std::abs(tacc.R / wm - tacc.C / wn));
    if (best < 0 || score < best) {
      best = score;
      p.wm = wm;
      p.wn = wn;
    }
  }
  return best >= 0;
}

// lm.mma(acc, fa, fb) with both operands register fragments: mma.sync m16n8k16 over the warp grid, each
// operand in its ldmatrix register layout (Family::operand; filled by lm.copy from a shared-memory slot,
// docs/ir-reference.md "mma.sync operand fragments").
void PlanBuilder::planMmaFragments(const ir::Op& op, int wpi) {
  using K = ir::BufferRef::Kind;
  auto fail = [&](ir::Rule rule, const std::string& m) { error(rule, op.range, m); };
  if (target_ != ir::Target::SM80)
    return fail(ir::Rule::LowerUnsupported, "an mma with b from registers (mma.sync operand fragments) is lowered for sm_80 only");
  if (op.src.kind != K::Regs)
    return fail(ir::Rule::LowerUnsupported, "an mma with b from registers needs a from registers too (operand fragments)");
  if (op.dst.kind != K::Regs || !op.dst.slices.empty() || !op.src.slices.empty() || !op.src2.slices.empty())
    return fail(ir::Rule::LowerUnsupported, "an mma on operand fragments takes whole fragments and a register accumulator");
  if (s_.regs[op.dst.index].dtype != ir::DType::F32) return fail(ir::Rule::LowerLayout, "mma accumulators are f32 fragments");
  const ir::DType adt = s_.regs[op.src.index].dtype, bdt = s_.regs[op.src2.index].dtype;
  if ((adt != ir::DType::BF16 && adt != ir::DType::F16) || adt != bdt)
    return fail(ir::Rule::LowerLayout, "mma.sync operand fragments are bf16 or f16, both of one type");
  const Tile tacc = regsTile(op.dst.index), ta = regsTile(op.src.index), tb = regsTile(op.src2.index);
  if (ta.C != tb.C || ta.R != tacc.R || tb.R != tacc.C)
    return fail(ir::Rule::LowerLayout, fmt::format("mma shapes: acc {}x{}, a {}x{}, b {}x{}: need acc = a rows x b rows "
                                                   "and a common K", tacc.R, tacc.C, ta.R, ta.C, tb.R, tb.C));
  if (ta.C % 16) return fail(ir::Rule::LowerLayout, fmt::format("mma.sync K = {} is not a multiple of 16", ta.C));
  MmaPlan p;
  if (!mmaSyncWarpGrid(tacc, wpi, false, p))
    return fail(ir::Rule::LowerLayout, fmt::format("mma.sync accumulator {}x{} does not split over {} warps in m16 x "
                                                   "n16 tiles", tacc.R, tacc.C, wpi));
  p.kind = MmaPlan::MmaSync;
  p.ty = adt == ir::DType::BF16 ? "bf16" : "f16";
  p.kstep = 16;
  p.frags = true;
  mma_[&op] = p;
}

void PlanBuilder::planMmas() {
  using K = ir::BufferRef::Kind;
  // roles with an mma whose a is a fragment: their mma.sync accumulators use
  // one warp column (wn = 1) so that a fragment holds whole rows of K
  std::set<int> rsRoles;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      if (st.op.kind == OpKind::Mma && st.op.src.kind == K::Regs && st.op.src2.kind == K::View) rsRoles.insert(body.role);
    });
  for (const auto& body : s_.bodies) {
    const auto& role = s_.roles[body.role];
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      if (op.kind != OpKind::Mma) return;
      auto fail = [&](ir::Rule rule, const std::string& m) { error(rule, op.range, m); };
      if (op.src2.kind == K::Regs) return planMmaFragments(op, role.warpsPerInstance());
      if (op.src2.kind != K::View) return fail(ir::Rule::LowerUnsupported, "an mma whose b operand is not a view slot");
      const int vb = op.src2.index;
      const auto& B = s_.views[vb];
      Tile tb, ta, tacc;
      if (!refTile(op.src2, tb)) return fail(ir::Rule::LowerUnsupported, "the mma b operand's slice has no constant extent");
      if (!refTile(op.src, ta)) return fail(ir::Rule::LowerUnsupported, "the mma a operand's slice has no constant extent");
      if (!refTile(op.dst, tacc)) return fail(ir::Rule::LowerUnsupported, "the mma accumulator's slice has no constant extent");
      // a sliced accumulator: whole rows, a constant column range (wgmma only, checked below)
      std::optional<int64_t> acc0;
      if (!op.dst.slices.empty()) {
        if (op.dst.kind != K::Regs || regsTile(op.dst.index).R != tacc.R || op.dst.slices.size() != 2)
          return fail(ir::Rule::LowerUnsupported, "a sliced mma accumulator that is not a column range of a 2-D fragment");
        const auto& cs = op.dst.slices[1];
        acc0 = cs.lo ? constOf(cs.lo) : std::optional<int64_t>(0);
        if (!acc0) return fail(ir::Rule::LowerLayout, "the column slice of an mma accumulator must start at a constant");
      }
      if (op.src.kind == K::View && viewShape(op.src.index).size() != 2)
        return fail(ir::Rule::LowerUnsupported, "an mma operand view that is not 2-D");
      if (viewShape(vb).size() != 2) return fail(ir::Rule::LowerUnsupported, "an mma operand view that is not 2-D");
      // a column slice of a view operand (a k-step range of the slot): its
      // first column, in elements; lowered for mma.sync only (below)
      auto colStart = [&](const ir::BufferRef& r) -> std::optional<int64_t> {
        if (r.slices.size() < 2 || (!r.slices[1].lo && !r.slices[1].hi)) return 0;
        return r.slices[1].lo ? constOf(r.slices[1].lo) : std::optional<int64_t>(0);
      };
      const bool colSliced = (op.src.slices.size() > 1 && (op.src.slices[1].lo || op.src.slices[1].hi)) ||
                             (op.src2.slices.size() > 1 && (op.src2.slices[1].lo || op.src2.slices[1].hi));
      const auto ka0 = colStart(op.src), kb0 = colStart(op.src2);
      if (!ka0 || !kb0) return fail(ir::Rule::LowerLayout, "the column slice of an mma operand must start at a constant");
      if (colSliced && op.src.kind == K::Regs && (*ka0 != 0 || ta.C != regsTile(op.src.index).C))
        return fail(ir::Rule::LowerLayout, "a register a operand of an mma is not sliced along columns");
      const int64_t K = ta.C;
      if (tb.C != K || ta.R != tacc.R || tb.R != tacc.C)
        return fail(ir::Rule::LowerLayout, fmt::format("mma shapes: acc {}x{}, a {}x{}, b {}x{}: need acc = a rows x b rows "
                                                "and a common K", tacc.R, tacc.C, ta.R, ta.C, tb.R, tb.C));
      const ir::DType adt = refDtype(op.src), bdt = B.dtype;
      auto tyName = [](ir::DType d) -> std::string {
        switch (d) {
          case ir::DType::BF16: return "bf16";
          case ir::DType::F16: return "f16";
          case ir::DType::E4M3: return "e4m3";
          case ir::DType::E5M2: return "e5m2";
          case ir::DType::F32: return "tf32";
          default: return "";
        }
      };
      auto smemOk = [&](int v) { return blockView(v); };
      MmaPlan p;
      if (op.dst.kind == K::Tmem) {
        if (target_ != ir::Target::SM100a)
          return fail(ir::Rule::LowerUnsupported, "an mma into TMEM (tcgen05) needs sm_100a");
        if (op.src.kind != K::View) return fail(ir::Rule::LowerUnsupported, "tcgen05.mma with a from registers or TMEM");
        p.kind = MmaPlan::Tcgen05;
        p.ty = tyName(adt);
        if (adt != bdt || p.ty.empty())
          return fail(ir::Rule::LowerLayout, "tcgen05.mma operands must have one type of bf16, f16, e4m3, e5m2 or f32 (tf32)");
        p.kstep = 32 / ir::dtypeBytes(adt);
        if (!smemOk(op.src.index) || !smemOk(vb))
          return fail(ir::Rule::LowerLayout, "tcgen05.mma operands need the K-major canonical layout: rows of a multiple of 32 "
                                      "bytes, a multiple of 8 rows, and an offset aligned to the swizzle atom (8 rows)");
        if (ta.R != 64 && ta.R != 128) return fail(ir::Rule::LowerLayout, fmt::format("tcgen05.mma M = {} (64 or 128)", ta.R));
        if (tb.R % (ta.R == 64 ? 8 : 16) || tb.R < 8 || tb.R > 256)
          return fail(ir::Rule::LowerLayout, fmt::format("tcgen05.mma N = {} (a multiple of {} up to 256)", tb.R,
                                                  ta.R == 64 ? 8 : 16));
        if (K % p.kstep) return fail(ir::Rule::LowerLayout, fmt::format("tcgen05.mma K = {} is not a multiple of {}", K, p.kstep));
        mma_[&op] = p;
        return;
      }
      if (op.dst.kind != K::Regs) return fail(ir::Rule::LowerUnsupported, "an mma accumulator that is not regs or TMEM");
      if (s_.regs[op.dst.index].dtype != ir::DType::F32)
        return fail(ir::Rule::LowerLayout, "mma accumulators are f32 fragments");
      const int wpi = role.warpsPerInstance();
      std::string whyNotWgmma;
      bool wg = target_ == ir::Target::SM90a;
      if (!wg) whyNotWgmma = "wgmma is sm_90a only";
      if (wg && !alignedWarpgroups(role)) {
        wg = false;
        whyNotWgmma = fmt::format("role '{}' instances are not whole aligned warpgroups", role.name);
      }
      const int G = std::max(1, wpi / 4);
      // transposed wgmma (docs/ir-extensions.md "Transposed wgmma"): M rows that
      // no m64 block tiles (decode M) but N columns that do, a from a view (it
      // becomes the wgmma's B, which is never in registers): acc^T = b . a^T
      bool trans = false;
      if (wg && (tacc.R % (64 * G) || tacc.C % 8 || tacc.C > 256)) {
        if (op.src.kind == K::View && tacc.C % (64 * G) == 0 && tacc.R % 8 == 0 && tacc.R >= 8 && tacc.R <= 256) {
          trans = true;
        } else {
          wg = false;
          whyNotWgmma = fmt::format("accumulator {}x{} is not {} x (multiple of 64) rows by 8..256 columns (nor, "
                                    "transposed with a from shared memory, 8..256 rows by {} x (multiple of 64) columns)",
                                    tacc.R, tacc.C, G, G);
        }
      }
      const std::string ty = tyName(bdt);
      if (wg && (ty.empty() || (op.src.kind == K::View && adt != bdt))) {
        wg = false;
        whyNotWgmma = "operand types";
      }
      if (wg && (!smemOk(vb) || (op.src.kind == K::View && !smemOk(op.src.index)))) {
        wg = false;
        whyNotWgmma = "wgmma operands need the K-major canonical layout (rows of a multiple of 32 bytes, 8-row atoms)";
      }
      if (op.src.kind == K::Regs && !wg) {
        // mma.sync m16n8k16 with A from the fragment (its mma.sync layout, one warp column)
        if (bdt != ir::DType::BF16 && bdt != ir::DType::F16)
          return fail(ir::Rule::LowerLayout, "mma.sync with a from registers needs bf16 or f16 b");
        if (adt != bdt && adt != ir::DType::F32)
          return fail(ir::Rule::LowerLayout, "the a fragment of an mma must have b's type (or f32, converted)");
        if (K % 16) return fail(ir::Rule::LowerLayout, fmt::format("mma.sync K = {} is not a multiple of 16", K));
        if (tacc.R % (16 * wpi) || tacc.C % 16)
          return fail(ir::Rule::LowerLayout, fmt::format("mma.sync with a from registers: accumulator {}x{} must split into "
                                                  "{} warps of 16-row multiples, columns a multiple of 16 ({})",
                                                  tacc.R, tacc.C, wpi, whyNotWgmma));
        if (viewRowBytes(vb) % 16) return fail(ir::Rule::LowerLayout, "ldmatrix needs operand rows of a multiple of 16 bytes");
        p.kind = MmaPlan::MmaSync;
        p.rs = true;
        p.ty = tyName(bdt);
        p.wm = wpi;
        p.wn = 1;
        p.kstep = 16;
      } else if (op.src.kind == K::Regs) {
        if (bdt != ir::DType::BF16 && bdt != ir::DType::F16)
          return fail(ir::Rule::LowerLayout, "wgmma with a from registers needs bf16 or f16 operands");
        if (adt != bdt && adt != ir::DType::F32)
          return fail(ir::Rule::LowerLayout, "the a fragment of a wgmma must have b's type (or f32, converted)");
        p.kind = MmaPlan::Wgmma;
        p.rs = true;
        p.G = G;
        p.ty = ty;
        p.kstep = 16;
        if (K % 16) return fail(ir::Rule::LowerLayout, fmt::format("wgmma K = {} is not a multiple of 16", K));
      } else if (op.src.kind != K::View) {
        return fail(ir::Rule::LowerUnsupported, "an mma whose a operand is not a view slot or regs");
      } else if (wg) {
        p.kind = MmaPlan::Wgmma;
        p.G = G;
        p.trans = trans;
        p.ty = ty;
        p.kstep = 32 / ir::dtypeBytes(bdt);
        if (K % p.kstep) return fail(ir::Rule::LowerLayout, fmt::format("wgmma K = {} is not a multiple of {}", K, p.kstep));
      } else {
        // mma.sync m16n8k16 over a warp grid of the instance
        if ((adt != ir::DType::BF16 && adt != ir::DType::F16) || adt != bdt)
          return fail(ir::Rule::LowerLayout, "mma.sync (" + whyNotWgmma + ") takes bf16 or f16 operands of one type");
        if (K % 16) return fail(ir::Rule::LowerLayout, fmt::format("mma.sync K = {} is not a multiple of 16", K));
        if (viewRowBytes(op.src.index) % 16 || viewRowBytes(vb) % 16)
          return fail(ir::Rule::LowerLayout, "ldmatrix needs operand rows of a multiple of 16 bytes");
        if (!mmaSyncWarpGrid(tacc, wpi, rsRoles.count(body.role) > 0, p))
          return fail(ir::Rule::LowerLayout, fmt::format("mma.sync accumulator {}x{} does not split over {} warps in m16 x "
                                                  "n16 tiles ({})", tacc.R, tacc.C, wpi, whyNotWgmma));
        p.kind = MmaPlan::MmaSync;
        p.ty = ty;
        p.kstep = 16;
      }
      if (acc0) {
        if (p.kind != MmaPlan::Wgmma || p.trans)
          return fail(ir::Rule::LowerLayout, "a column slice of an mma accumulator is lowered for wgmma (not transposed) "
                                             "only");
        if (*acc0 % 8 || tacc.C % 8 || tacc.C < 8 || tacc.C > 256)
          return fail(ir::Rule::LowerLayout, fmt::format("an mma accumulator's column slice {}:{} must start at a multiple "
                                                         "of 8 and be 8..256 columns wide (a multiple of 8)",
                                                         *acc0, *acc0 + tacc.C));
        p.acc0 = *acc0;
        p.accN = tacc.C;
      }
      if (colSliced) {
        if (p.kind != MmaPlan::MmaSync)
          return fail(ir::Rule::LowerLayout, "a column slice (k-step range) of an mma operand is lowered for mma.sync only");
        for (auto [ref, c0] : {std::pair{&op.src, *ka0}, std::pair{&op.src2, *kb0}}) {
          if (ref->kind != K::View) continue;
          const int64_t W = viewTile(ref->index).C, eb = ir::dtypeBytes(s_.views[ref->index].dtype);
          if (c0 < 0 || c0 + K > W)
            return fail(ir::Rule::LowerLayout, fmt::format("mma operand columns {}:{} outside the slot's {}", c0, c0 + K, W));
          if ((c0 * eb) % 16)
            return fail(ir::Rule::LowerLayout, fmt::format("an mma operand's column slice starts at column {}: ldmatrix "
                                                    "needs a multiple of 16 bytes", c0));
        }
        p.ka0 = *ka0;
        p.kb0 = *kb0;
      }
      mma_[&op] = p;
    });
  }
}

void PlanBuilder::analyzeFragments() {
  using K = ir::BufferRef::Kind;
  // normalised tiles: a rank-1 fragment is a row (1, n), except the result
  // of a reduction over the last axis of a 2-D fragment, which is a column
  regsTiles_.clear();
  std::vector<Tile> tiles;
  for (size_t r = 0; r < s_.regs.size(); ++r) tiles.push_back(regsTile(static_cast<int>(r)));
  regsTiles_ = tiles;
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      if (op.kind == OpKind::Reduce && op.dst.kind == K::Regs && s_.regs[op.dst.index].shape.size() == 1) {
        size_t srank = 0;
        if (op.src.kind == K::Regs) srank = s_.regs[op.src.index].shape.size();
        if (op.src.kind == K::View) srank = s_.views[op.src.index].shape.size();
        if (srank == 2 && op.axis == 1) {
          std::swap(regsTiles_[op.dst.index].R, regsTiles_[op.dst.index].C);
          if (op.src2.kind == K::Regs && s_.regs[op.src2.index].shape.size() == 1)  // value= beside dst
            regsTiles_[op.src2.index] = regsTiles_[op.dst.index];
        }
      }
    });

  // union-find over (role, regs)
  std::map<std::pair<int, int>, int> id;
  std::vector<int> parent;
  std::vector<std::vector<Family>> anchors;
  auto node = [&](int role, int regs) {
    auto [it, inserted] = id.insert({{role, regs}, static_cast<int>(parent.size())});
    if (inserted) {
      parent.push_back(it->second);
      anchors.emplace_back();
    }
    return it->second;
  };
  std::function<int(int)> find = [&](int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
  auto unite = [&](int a, int b) { parent[find(a)] = find(b); };
  for (const auto& body : s_.bodies) {
    const int r = body.role;
    const auto& role = s_.roles[r];
    const int T = role.warpsPerInstance() * 32;
    ir::forEachOp(body.body, [&](const Stmt& st) {
      const auto& op = st.op;
      std::vector<int> regsOps;
      for (const auto* ref : {&op.dst, &op.src, &op.src2})
        if (ref->kind == K::Regs) {
          const bool wgAccSlice = op.kind == OpKind::Mma && ref == &op.dst && [&] {
            auto it = mma_.find(&op);
            return it != mma_.end() && it->second.accN > 0;
          }();
          if (!ref->slices.empty() && !wgAccSlice && (op.kind == OpKind::Mma || op.kind == OpKind::Reduce ||
                                       (op.kind == OpKind::Copy && (op.dst.kind == K::Tmem || op.src.kind == K::Tmem)))) {
            error(ir::Rule::LowerUnsupported, op.range,
                  fmt::format("a sliced register fragment ('{}') as an mma, reduce or TMEM operand",
                              s_.regs[ref->index].name));
            return;
          }
          regsOps.push_back(node(r, ref->index));
        }
      if (op.kind == OpKind::Mma) {
        auto it = mma_.find(&op);
        if (it == mma_.end() || op.dst.kind != K::Regs) return;
        Family f;
        f.T = T;
        if (it->second.kind == MmaPlan::Wgmma) {
          f.kind = Family::Wg;
          f.G = it->second.G;
          f.trans = it->second.trans;
        } else {
          f.kind = Family::Mma;
          f.wm = it->second.wm;
          f.wn = it->second.wn;
        }
        anchors[find(node(r, op.dst.index))].push_back(f);
        if (it->second.frags) {  // each operand in its own ldmatrix layout, not the accumulator's
          Family fa = f, fb = f;
          fa.operand = Family::OperandA;
          fb.operand = Family::OperandB;
          anchors[find(node(r, op.src.index))].push_back(fa);
          anchors[find(node(r, op.src2.index))].push_back(fb);
          return;
        }
        if (op.src.kind == K::Regs) unite(node(r, op.src.index), node(r, op.dst.index));
        return;
      }
      const bool tmemMove = op.kind == OpKind::TmemLoad || op.kind == OpKind::TmemStore;
      if (tmemMove || (op.kind == OpKind::Copy && (op.dst.kind == K::Tmem || op.src.kind == K::Tmem))) {
        const auto& rr = op.dst.kind == K::Regs ? op.dst : op.src;
        if (rr.kind != K::Regs) return;
        Family f;
        f.kind = Family::Generic;
        f.T = T;
        f.tmem = true;
        anchors[find(node(r, rr.index))].push_back(f);
        return;
      }
      for (size_t i = 1; i < regsOps.size(); ++i) unite(regsOps[i], regsOps[0]);
    });
  }
  // merge anchors per component
  std::map<int, std::vector<std::pair<int, int>>> members;
  for (const auto& [key, x] : id) members[find(x)].push_back(key);
  for (auto& [root, keys] : members) {
    std::vector<Family> fams;
    for (const auto& key : keys)
      for (const auto& f : anchors[id[key]]) fams.push_back(f);
    const auto& role = s_.roles[keys[0].first];
    Family fam;
    fam.kind = Family::Generic;
    fam.T = role.warpsPerInstance() * 32;
    if (!fams.empty()) {
      fam = fams[0];
      for (const auto& f : fams)
        if (!(f == fam)) {
          error(ir::Rule::LowerLayout, s_.regs[keys[0].second].range,
                fmt::format("fragments connected to '{}' in role '{}' need two register layouts ({} and {}): split "
                            "them or copy through shared memory",
                            s_.regs[keys[0].second].name, role.name, fam.describe(), f.describe()));
          break;
        }
      for (const auto& f : fams) fam.tmem = fam.tmem || f.tmem;
    } else {
      bool allRows = true, anyCol = false;
      for (const auto& key : keys) {
        allRows = allRows && regsTiles_[key.second].R == 1;
        anyCol = anyCol || regsTiles_[key.second].C > 1;
      }
      fam.colsMajor = allRows && anyCol;
    }
    for (const auto& key : keys) {
      std::string why;
      auto l = layoutFor(fam, regsTiles_[key.second], &why);
      if (!l) {
        error(ir::Rule::LowerLayout, s_.regs[key.second].range,
              fmt::format("fragment '{}' ({}x{}) in role '{}': {}", s_.regs[key.second].name,
                          regsTiles_[key.second].R, regsTiles_[key.second].C, role.name, why));
        continue;
      }
      if (static_cast<int64_t>(l->NR()) * l->NC() > 1024)
        error(ir::Rule::LowerLayout, s_.regs[key.second].range,
              fmt::format("fragment '{}' needs {} elements per thread in role '{}' (at most 1024 are lowered)",
                          s_.regs[key.second].name, static_cast<int64_t>(l->NR()) * l->NC(), role.name));
      frag_[key] = *l;
    }
  }
}

void PlanBuilder::analyzeScratch() {
  using K = ir::BufferRef::Kind;
  roleScratch_.assign(s_.roles.size(), -1);
  roleScratchStride_.assign(s_.roles.size(), 0);
  // From the layout's scratch base, for the roles it names (more than one
  // warp per instance, an lm.reduce of registers) whose reduction crosses
  // warps in the fragment layout; its scratch_bound covers them all.
  const auto base = constOf(smemLayout_.scratch_base);
  if (!base) throw std::logic_error("cake: the reduction scratch base is not constant although the layout is");
  int64_t off = *base;
  for (const int r : smemLayout_.scratch_roles) {
    const auto& role = s_.roles[r];
    bool need = false;
    for (const auto& b2 : s_.bodies) {
      if (b2.role != r) continue;
      ir::forEachOp(b2.body, [&](const Stmt& st) {
        const auto& op = st.op;
        if (op.kind != OpKind::Reduce || op.src.kind != K::Regs) return;
        auto it = frag_.find({r, op.src.index});
        if (it == frag_.end()) return;
        const int rd = reduceDim(op);
        if (rd < 0) return;
        const Dist& dd = rd == 0 ? it->second.row : it->second.col;
        if (dd.kind == Dist::Cyclic || dd.kind == Dist::WgRow || (dd.kind == Dist::MmaRow && dd.wm > 1) ||
            (dd.kind == Dist::MmaCol && dd.wn > 1))
          need = true;
      });
    }
    if (!need) continue;
    roleScratch_[r] = off;
    roleScratchStride_[r] = ir::reductionScratchStride(s_, r);
    off += roleScratchStride_[r] * role.instanceCount();
  }
  smemUsed_ = std::max(smemUsed_, off);
  const ir::TargetLimits& lim = ir::targetLimits(target_);
  if (ir::requestedSmemBytes(smemUsed_) > lim.smem_per_block)
    error(ir::Rule::LowerLayout, s_.range,
          fmt::format("shared memory {} B (+{} B alignment slack) exceeds the {} B a block can have on {}", smemUsed_,
                      ir::hw::kSmemAlignSlack, lim.smem_per_block, ir::targetName(target_)));
}

// Bit d set: the expression reads lm.grid_dim(d).
static int gridDimsRead(const ir::Expr& e) {
  int m = e.kind == ExprKind::GridDim && e.index >= 0 && e.index < 3 ? 1 << e.index : 0;
  for (const auto& a : e.args)
    if (a) m |= gridDimsRead(*a);
  return m;
}

void PlanBuilder::deriveGrid() {
  using K = ir::BufferRef::Kind;
  int gridDims = 0;  // bit d: the schedule reads lm.grid_dim(d)
  auto visit = [&](const ir::ExprPtr& e) {
    if (e) gridDims |= gridDimsRead(*e);
  };
  const ir::Op* out = nullptr;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const auto& st : b) {
      if (st.kind == Stmt::Kind::For) {
        visit(st.lo);
        visit(st.hi);
        walk(st.body);
      } else if (st.kind == Stmt::Kind::If) {
        visit(st.cond);
        walk(st.body);
        walk(st.orelse);
      } else {
        for (const auto& c : st.op.coords) visit(c);
        visit(st.op.sel.index);
        if (!out && st.op.dst.kind == K::Param && !st.op.coords.empty()) out = &st.op;
      }
    }
  };
  for (const auto& body : s_.bodies) walk(body.body);
  for (auto& g : gridHost_) g = "1";
  // lm.grid_dim(0) is the persistent stride (tile = block_idx(0) + t * grid_dim(0)):
  // dimension 0 gets one CTA per SM. lm.grid_dim(1) / (2) only read the
  // launched grid (a split count, a per-CTA rotation of the K walk), so those
  // dimensions are derived from the output store as they are without it; a
  // persistent schedule whose output moves with block_idx(1) / (2) gets those
  // dimensions from the store too (before, any lm.grid_dim made the grid
  // (#SMs, 1, 1), and such a kernel silently left most of C unwritten).
  if (gridDims & 1) {
    persistent_ = true;
    gridDerived_ = true;
    gridHost_[0] = "cake_num_sms";
  }
  if (!out) return;
  const int p = out->dst.index;
  int tindex = 0;
  for (int i = 0; i < p; ++i) tindex += ir::isTensorParam(s_.params[i].type) ? 1 : 0;
  ir::EvalEnv env;
  for (size_t q = 0; q < s_.params.size(); ++q) env.params[static_cast<int>(q)] = 1 << 20;
  specEnv(env);
  for (size_t v = 0; v < s_.loop_vars.size(); ++v) env.loop_vars[static_cast<int>(v)] = 0;
  env.instance = 0;
  for (int d = 0; d < 3; ++d) {
    env.block_idx[d] = 0;
    env.grid_dim[d] = 1;
  }
  bool any = false;
  for (int d = persistent_ ? 1 : 0; d < 3; ++d) {
    for (size_t c = 0; c < out->coords.size(); ++c) {
      ir::EvalEnv e1 = env;
      e1.block_idx[d] = 1;
      auto v0 = ir::evaluate(*out->coords[c], env), v1 = ir::evaluate(*out->coords[c], e1);
      if (!v0 || !v1) return;
      const int64_t step = *v1 - *v0;
      if (step > 0) {
        gridHost_[d] = fmt::format("cake_cdiv(static_cast<int>(cake_t[{}].dims[{}]), {})", tindex, c, step);
        any = true;
        break;
      }
    }
  }
  if (persistent_) return;
  gridDerived_ = any;
  // A 2-D grid of independent CTAs (no clusters) is walked in groups of
  // block rows (see emitRaster); a persistent schedule orders its own tiles.
  raster_ = any && gridHost_[0] != "1" && gridHost_[1] != "1" && s_.cluster[0] * s_.cluster[1] * s_.cluster[2] == 1;
}

bool PlanBuilder::bindGemm(bool report) {
  std::vector<int> tp;
  bool ok = true;
  auto bad = [&](const ir::SourceRange& r, const std::string& m) {
    ok = false;
    if (report) error(ir::Rule::LowerBinding, r, m);
  };
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const auto& p = s_.params[i];
    if (ir::isTensorParam(p.type)) {
      tp.push_back(static_cast<int>(i));
      const auto& t = tensors_[i];
      if (!(p.type == ir::ParamType::Tma2d || (p.type == ir::ParamType::Gmem && (t.rank == 2 || t.rank == 0))))
        bad(p.range, fmt::format("tensor parameter '{}' is {} (rank {}): a GEMM binds rank-2 tensors", p.name,
                                 ir::paramTypeName(p.type), t.rank));
      if (t.dtypeKnown && t.dtype != ir::DType::BF16)
        bad(p.range, fmt::format("tensor parameter '{}' holds {}: the GEMM run is bf16", p.name, ir::dtypeName(t.dtype)));
    } else if (p.type == ir::ParamType::I32) {
      if (p.name != "M" && p.name != "N" && p.name != "K")
        bad(p.range, fmt::format("i32 parameter '{}' has no value in a GEMM run (only M, N and K are bound)", p.name));
    } else {
      bad(p.range, fmt::format("parameter '{}' ({}) has no value in a GEMM run", p.name, ir::paramTypeName(p.type)));
    }
  }
  if (tp.size() != 3)
    bad(s_.range, fmt::format("a GEMM binds three tensor parameters A [M,K], B [N,K], C [M,N]; schedule '{}' has {}",
                              s_.name, tp.size()));
  if (ok && !gridDerived_) {
    ok = false;
    if (report)
      error(ir::Rule::LowerGrid, s_.range,
            "no store to an output tensor whose coordinates move with lm.block_idx (and no lm.grid_dim): the grid "
            "of a GEMM run cannot be derived");
  }
  return ok;
}


// The wgmma helper functions the kernel calls: one per (N, type, A from
// registers) of the wgmma ops, N the accumulator's columns.
void PlanBuilder::planWgmmaHelpers() {
  for (const auto& body : s_.bodies)
    ir::forEachOp(body.body, [&](const Stmt& st) {
      auto it = mma_.find(&st.op);
      if (it == mma_.end() || it->second.kind != MmaPlan::Wgmma) return;
      if (const Layout* f = layoutOf(body.role, st.op.dst.index))
        wgmmaHelpers_.insert({static_cast<int>(it->second.trans ? f->t.R : it->second.accN ? it->second.accN : f->t.C),
                              it->second.ty, it->second.rs,
                              it->second.trans});
    });
}

bool PlanBuilder::build() {
  target_ = opts_.target != ir::Target::Unspecified ? opts_.target : s_.target;
  if (target_ == ir::Target::Unspecified) target_ = s_.tmems.empty() ? ir::Target::SM90a : ir::Target::SM100a;
  if (opts_.target != ir::Target::Unspecified && s_.target != ir::Target::Unspecified && opts_.target != s_.target) {
    error(ir::Rule::LowerUnsupported, s_.range,
          fmt::format("schedule '{}' is written for {}, not {}: lowering never retargets a schedule", s_.name,
                      ir::targetName(s_.target), ir::targetName(opts_.target)));
    return false;
  }
  auto plainIdent = [](const std::string& n) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    for (char c : n)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return !isReserved(n);
  };
  if (!opts_.namespace_name.empty() && !plainIdent(opts_.namespace_name)) {
    error(ir::Rule::LowerUnsupported, s_.range,
          fmt::format("namespace name '{}' is not a plain C++ identifier", sanitizeComment(opts_.namespace_name)));
    return false;
  }
  for (const auto& [name, v] : opts_.specialize) {
    bool found = false;
    for (size_t i = 0; i < s_.params.size(); ++i)
      if (s_.params[i].name == name && s_.params[i].type == ir::ParamType::I32) {
        spec_[static_cast<int>(i)] = v;
        found = true;
      }
    if (!found)
      error(ir::Rule::LowerUnsupported, s_.range,
            fmt::format("specialize: schedule '{}' has no i32 parameter '{}'", s_.name, sanitizeComment(name)));
  }
  specEnv(specEnv_);
  for (const auto& a : s_.assumes)
    if (!spec_.empty() && a.cond)
      if (auto v = ir::evaluate(*a.cond, specEnv_); v && *v == 0)
        error(ir::Rule::LowerUnsupported, a.range,
              fmt::format("the specialised values violate lm.assume({})", pyText(a.cond)));
  if (failed()) return false;
  // (the same fact tells the model checker how this kernel's threads end:
  // ir::kernelEndsWithBlockBarrier, the trailing __syncthreads of the
  // TMEM dealloc)
  usesTmem_ = ir::kernelUsesTmem(s_);
  assignNames();
  viewBlock_.assign(s_.views.size(), 0);
  analyzeParams();
  layoutSmem();
  for (const auto& r : s_.regs)
    for (const auto& d : r.shape) needConst(d, r.range, fmt::format("the shape of fragment '{}'", r.name));
  for (const auto& t : s_.tmems) {
    needConst(t.cols, t.range, fmt::format("the columns of '{}'", t.name));
    needConst(t.width, t.range, fmt::format("the width of '{}'", t.name));
    for (const auto& d : t.shape) needConst(d, t.range, fmt::format("the shape of '{}'", t.name));
  }
  if (failed()) return false;
  analyzeRoles();
  if (failed()) return false;
  analyzeBarriers();
  for (const auto& b : s_.bodies) analyzeLoops(b.body);
  if (opts_.problem == Problem::Gemm)
    for (size_t i = 0; i < s_.params.size(); ++i)
      if (s_.params[i].type == ir::ParamType::I32 &&
          (s_.params[i].name == "M" || s_.params[i].name == "N" || s_.params[i].name == "K"))
        nonnegParams_.insert(static_cast<int>(i));
  planMmas();
  blockStagingViews();
  analyzeFragments();
  planWgmmaHelpers();
  // stage 2, validation (validate.cpp): needs the MMA plans and fragment
  // layouts, not the scratch or the grid; run here, its findings come in the
  // order the rules have always reported them
  checkOps();
  if (usesTmem_ && target_ != ir::Target::SM100a)
    error(ir::Rule::LowerUnsupported, s_.range, "TMEM needs sm_100a");
  if (usesTmem_) {
    int64_t need = 0;
    for (const auto& t : s_.tmems) need = std::max(need, constOf(t.cols).value_or(0) + constOf(t.width).value_or(0));
    int cols = 32;
    while (cols < need) cols *= 2;
    if (cols > ir::hw::kTmemColumns)
      error(ir::Rule::LowerLayout, s_.range,
            fmt::format("TMEM columns [0, {}) exceed the {} of an SM", need, ir::hw::kTmemColumns));
    tmemCols_ = cols;
    // TMEM ops name an lm.tmem region, so the layout placed the slot.
    if (tmemSlotOffset_ < 0) throw std::logic_error("cake: TMEM is used but the layout has no TMEM address slot");
  }
  analyzeScratch();
  planInstanceSyncs();
  deriveGrid();
  if (opts_.problem == Problem::Gemm) gemm_ = bindGemm(true);
  else if (opts_.problem == Problem::Auto) gemm_ = bindGemm(false);
  // stage 2 for the compute ops, on the finished plan (fragment layouts,
  // scratch); only a plan without findings gets here, as it only reached
  // emission before these checks moved out of it
  if (!failed()) checkComputeOps();
  return !failed();
}

}  // namespace cake::lowering::detail
