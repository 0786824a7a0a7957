// Stage 1's queries: what the builder and the emitter ask of a KernelPlan
// (names, C++ expressions, shapes, layouts, addresses). See lower_internal.h.
#include <bit>

#include "ir/global_box.h"
#include "ir/tmem.h"
#include "lowering/lower_internal.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;

std::string KernelPlan::kernelName() const { return "cake_" + sanitizeIdent(s_.name) + "_kernel"; }

// ------------------------------------------------------------- expressions

bool KernelPlan::nonneg(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::Const: return e.value >= 0;
    case ExprKind::Param:
      if (auto it = spec_.find(e.index); it != spec_.end()) return it->second >= 0;
      return nonnegParams_.count(e.index) > 0;
    case ExprKind::LoopVar:
      return e.index >= 0 && e.index < static_cast<int>(loopNonneg_.size()) && loopNonneg_[e.index];
    case ExprKind::BlockIdx:
    case ExprKind::GridDim:
    case ExprKind::Instance:
      return true;
    case ExprKind::Add:
    case ExprKind::Mul:
    case ExprKind::FloorDiv:
    case ExprKind::CDiv:
    case ExprKind::Min:
      return nonneg(*e.args[0]) && nonneg(*e.args[1]);
    case ExprKind::Mod:
      return nonneg(*e.args[1]);
    case ExprKind::Max:
      return nonneg(*e.args[0]) || nonneg(*e.args[1]);
    case ExprKind::Lt: case ExprKind::Le: case ExprKind::Gt: case ExprKind::Ge:
    case ExprKind::Eq: case ExprKind::Ne: case ExprKind::And: case ExprKind::Or: case ExprKind::Not:
      return true;
    default:
      return false;
  }
}

std::string KernelPlan::expr(const ir::ExprPtr& e, bool host) const { return e ? expr(*e, host) : "0"; }

std::string KernelPlan::expr(const Expr& e, bool host) const {
  auto a = [&](int i) { return expr(*e.args[i], host); };
  auto bin = [&](const char* op) { return "(" + a(0) + " " + op + " " + a(1) + ")"; };
  switch (e.kind) {
    case ExprKind::Const:
      if (e.value > 2147483647 || e.value < -2147483647) return fmt::format("{}LL", e.value);
      return std::to_string(e.value);
    case ExprKind::Param:
      if (auto it = spec_.find(e.index); it != spec_.end()) return std::to_string(it->second);
      return paramName(e.index);
    case ExprKind::LoopVar: return loopNames_[e.index];
    case ExprKind::BlockIdx:
      if (!host && raster_ && e.index < 2) return e.index == 0 ? "cake_bx" : "cake_by";
      return host ? "0" : std::string("static_cast<int>(blockIdx.") + "xyz"[e.index] + ")";
    case ExprKind::GridDim:
      return host ? "1" : std::string("static_cast<int>(gridDim.") + "xyz"[e.index] + ")";
    case ExprKind::Instance: return host ? "0" : "cake_instance";
    case ExprKind::Neg: return "(-" + a(0) + ")";
    case ExprKind::Add: return bin("+");
    case ExprKind::Sub: return bin("-");
    case ExprKind::Mul: return bin("*");
    case ExprKind::FloorDiv:
      if (nonneg(*e.args[0]) && nonneg(*e.args[1])) return bin("/");
      return "cake_floordiv(" + a(0) + ", " + a(1) + ")";
    case ExprKind::Mod:
      if (nonneg(*e.args[0]) && nonneg(*e.args[1])) return bin("%");
      return "cake_mod(" + a(0) + ", " + a(1) + ")";
    case ExprKind::Min: return "cake_min(" + a(0) + ", " + a(1) + ")";
    case ExprKind::Max: return "cake_max(" + a(0) + ", " + a(1) + ")";
    case ExprKind::CDiv:
      if (nonneg(*e.args[0]) && nonneg(*e.args[1]))
        return "((" + a(0) + " + " + a(1) + " - 1) / " + a(1) + ")";
      return "cake_cdiv(" + a(0) + ", " + a(1) + ")";
    case ExprKind::Lt: return bin("<");
    case ExprKind::Le: return bin("<=");
    case ExprKind::Gt: return bin(">");
    case ExprKind::Ge: return bin(">=");
    case ExprKind::Eq: return bin("==");
    case ExprKind::Ne: return bin("!=");
    case ExprKind::And: return bin("&&");
    case ExprKind::Or: return bin("||");
    case ExprKind::Not: return "(!" + a(0) + ")";
  }
  return "0";
}

std::string KernelPlan::pyText(const ir::ExprPtr& e) const {
  return e ? sanitizeComment(ir::exprToString(*e, s_)) : "?";
}

std::vector<int64_t> KernelPlan::viewShape(int v) const {
  std::vector<int64_t> d;
  for (const auto& x : s_.views[v].shape) d.push_back(constOf(x).value_or(1));
  return d;
}

Tile KernelPlan::viewTile(int v) const {
  auto d = viewShape(v);
  Tile t;
  if (d.empty()) return t;
  t.C = d.back();
  t.R = 1;
  for (size_t i = 0; i + 1 < d.size(); ++i) t.R *= d[i];
  return t;
}

int64_t KernelPlan::viewSlotBytes(int v) const {
  Tile t = viewTile(v);
  return t.R * t.C * ir::dtypeBytes(s_.views[v].dtype);
}

std::string KernelPlan::viewOffset(int v, const std::string& row, const std::string& colBytes) const {
  const int W = viewBlock_.empty() ? 0 : viewBlock_[v];
  if (!W) {
    const int sw = ir::swizzleBytes(s_.views[v].swizzle);
    return fmt::format("cake_swz<{}>(static_cast<uint32_t>(({}) * {} + ({})))", sw, row, viewRowBytes(v), colBytes);
  }
  const Tile t = viewTile(v);
  return fmt::format("(static_cast<uint32_t>({2}) / {0}u * {1}u + cake_swz<{0}>(static_cast<uint32_t>(({3}) * {0} + "
                     "static_cast<uint32_t>({2}) % {0}u)))",
                     W, t.R * W, colBytes, row);
}

// Rows one swizzle wide (a blocked view, or a row as wide as its swizzle):
// an S-byte swizzle XORs the 16-byte chunk index (bits 4..) with the row
// bits 7.., which repeat every 8 * S bytes, so rows k apart with k * S a
// multiple of 8 * S share their swizzle.
bool KernelPlan::viewRowsSplit(int v, int64_t grain) const {
  const int S = viewSwizzleEff(v);
  if (S < 32 || viewRowPitch(v) != S) return false;
  return grain == 0 || (grain * S) % (8 * S) == 0;
}

std::string KernelPlan::viewRowSwizzle(int v, const std::string& rowBytes) const {
  return fmt::format("(({} >> 3) & {}u)", rowBytes, (viewSwizzleEff(v) / 16 - 1) << 4);
}

std::string KernelPlan::viewOffsetSplit(int v, const std::string& rowBytes, const std::string& swz,
                                        const std::string& k, const std::string& colBytes) const {
  const int64_t P = viewRowPitch(v);
  const std::string block =
      viewBlock_[v] ? fmt::format("static_cast<uint32_t>({}) / {}u * {}u + ", colBytes, P, viewTile(v).R * P) : "";
  return fmt::format("({} + static_cast<uint32_t>({}) * {}u + {}((static_cast<uint32_t>({}) % {}u) ^ {}))", rowBytes, k,
                     P, block, colBytes, P, swz);
}

std::vector<int64_t> KernelPlan::tmaBox(int v, int rank) const {
  std::vector<int64_t> shape = viewShape(v);
  if (viewBlock_[v]) shape.back() = viewBlock_[v] / ir::dtypeBytes(s_.views[v].dtype);
  return ir::tmaBoxShape(std::move(shape), rank);  // the model checker's box too (ir/global_box.h)
}

Tile KernelPlan::regsTile(int r) const {
  if (r < static_cast<int>(regsTiles_.size())) return regsTiles_[r];
  Tile t;
  const auto& sh = s_.regs[r].shape;
  if (sh.empty()) return t;
  t.C = constOf(sh.back()).value_or(1);
  for (size_t i = 0; i + 1 < sh.size(); ++i) t.R *= constOf(sh[i]).value_or(1);
  return t;
}

Tile KernelPlan::tmemTile(int m) const {
  Tile t;
  const auto& sh = s_.tmems[m].shape;
  if (sh.empty()) return t;
  t.C = constOf(sh.back()).value_or(1);
  for (size_t i = 0; i + 1 < sh.size(); ++i) t.R *= constOf(sh[i]).value_or(1);
  return t;
}

namespace {
// hi - lo of a slice when it is the same at every point (evaluated at two)
std::optional<int64_t> sliceExtent(const ir::Schedule& s, const ir::Slice& sl, int64_t full,
                                   const std::map<int, int64_t>& spec = {}) {
  auto evalAt = [&](int64_t base) -> std::optional<int64_t> {
    ir::EvalEnv env;
    for (size_t p = 0; p < s.params.size(); ++p) env.params[static_cast<int>(p)] = base + 3 * p;
    for (const auto& [p, v] : spec) env.params[p] = v;
    for (size_t l = 0; l < s.loop_vars.size(); ++l) env.loop_vars[static_cast<int>(l)] = base / 2 + l;
    env.instance = base % 3;
    for (int d = 0; d < 3; ++d) env.block_idx[d] = base % 5 + d, env.grid_dim[d] = 7 + d;
    auto lo = sl.lo ? ir::evaluate(*sl.lo, env) : std::optional<int64_t>(0);
    auto hi = sl.hi ? ir::evaluate(*sl.hi, env) : std::optional<int64_t>(full);
    if (!lo || !hi) return std::nullopt;
    return *hi - *lo;
  };
  auto a = evalAt(4096), b = evalAt(1 << 20);
  if (!a || !b || *a != *b || *a <= 0) return std::nullopt;
  return *a;
}

// Narrows a 2-D tile by `[r0:r1]` or `[r0:r1, c0:c1]`; false when a slice
// has no constant extent.
template <typename TileT>
bool narrowRowsCols(const ir::Schedule& s, const std::vector<ir::Slice>& slices, TileT& t,
                    const std::map<int, int64_t>& spec) {
  auto r = sliceExtent(s, slices[0], t.R, spec);
  if (!r) return false;
  t.R = *r;
  if (slices.size() > 1) {
    auto c = sliceExtent(s, slices[1], t.C, spec);
    if (!c) return false;
    t.C = *c;
  }
  return true;
}
}  // namespace

bool KernelPlan::refTile(const ir::BufferRef& ref, Tile& t, int64_t*, int64_t*) const {
  switch (ref.kind) {
    case ir::BufferRef::Kind::View: {
      t = viewTile(ref.index);
      if (ref.slices.empty()) return true;
      const auto d = viewShape(ref.index);
      if (d.size() > 2) return false;
      if (d.size() == 1) {
        auto e = sliceExtent(s_, ref.slices[0], t.C, spec_);
        if (!e) return false;
        t.C = *e;
        return true;
      }
      return narrowRowsCols(s_, ref.slices, t, spec_);
    }
    case ir::BufferRef::Kind::Regs: {
      t = regsTile(ref.index);
      if (ref.slices.empty()) return true;
      if (s_.regs[ref.index].shape.size() > 2) return false;
      if (s_.regs[ref.index].shape.size() == 1) {
        int64_t& e = t.R > 1 ? t.R : t.C;
        auto x = sliceExtent(s_, ref.slices[0], e, spec_);
        if (!x) return false;
        e = *x;
        return true;
      }
      return narrowRowsCols(s_, ref.slices, t, spec_);
    }
    case ir::BufferRef::Kind::Tmem: {
      t = tmemTile(ref.index);
      if (ref.slices.empty()) return true;
      if (s_.tmems[ref.index].shape.size() != 2) return false;
      auto r = sliceExtent(s_, ref.slices[0], t.R, spec_);
      if (!r || *r != t.R) return false;  // lanes are not sliced
      if (ref.slices.size() > 1) {
        auto c = sliceExtent(s_, ref.slices[1], t.C, spec_);
        if (!c) return false;
        t.C = *c;
      }
      return true;
    }
    case ir::BufferRef::Kind::Scalar:
      t = Tile{1, 1};
      return true;
    default:
      return false;
  }
}

ir::DType KernelPlan::refDtype(const ir::BufferRef& ref) const {
  switch (ref.kind) {
    case ir::BufferRef::Kind::View: return s_.views[ref.index].dtype;
    case ir::BufferRef::Kind::Regs: return s_.regs[ref.index].dtype;
    case ir::BufferRef::Kind::Tmem: return s_.tmems[ref.index].dtype;
    case ir::BufferRef::Kind::Param: return tensors_[ref.index].dtype;
    case ir::BufferRef::Kind::Scalar: return ref.scalar ? ir::DType::I32 : ir::DType::F32;
    default: return ir::DType::F32;
  }
}

bool KernelPlan::opIsElected(const ir::Op& op) const {
  switch (op.kind) {
    case OpKind::Wait: case OpKind::Arrive: case OpKind::ExpectTx: case OpKind::TmaLoad:
    case OpKind::TmaStore: case OpKind::TmaStoreCommit: case OpKind::TmaStoreWait: case OpKind::FenceProxy:
      return true;
    case OpKind::ClusterSync:
      // every thread of the instance runs it, but it does not need them for
      // anything else: the emitter steps out of `if (cake_elected)` around it
      // (barrier.cluster is not .aligned), so the role can stay elected and
      // its other threads do not spin on the ring's waits beside the elected one
      return true;
    case OpKind::Mma:
      return op.dst.kind == ir::BufferRef::Kind::Tmem;
    case OpKind::MmaCommit:
    case OpKind::MmaWait:
      return target_ == ir::Target::SM100a;
    default:
      return false;
  }
}

std::optional<Dist> KernelPlan::distFor(const Family& f, bool row, int64_t E, std::string* why) const {
  Dist d;
  d.E = E;
  if (E == 1) return d;
  switch (f.kind) {
    case Family::Generic:
    case Family::None:
      if (row != f.colsMajor) {
        d.kind = Dist::Cyclic;
        d.T = f.T;
        d.n = static_cast<int>((E + f.T - 1) / f.T);
      } else {
        d.kind = Dist::Full;
        d.n = static_cast<int>(E);
      }
      return d;
    case Family::Wg:
      // transposed (f.trans): the fragment's rows are the wgmma's columns and its columns the wgmma's rows
      if (row != f.trans) {
        if (E % (64 * f.G)) break;
        d.kind = Dist::WgRow;
        d.G = f.G;
        d.n = static_cast<int>(2 * E / (64 * f.G));
      } else {
        if (E % 8) break;
        d.kind = Dist::WgCol;
        d.n = static_cast<int>(E / 4);
      }
      return d;
    case Family::Mma:
      d.wm = f.wm;
      d.wn = f.wn;
      // operand fragments (f.operand): a's rows are the accumulator's (MmaRow); b's rows the n8 tiles of
      // the warp column (MmaN); K, their columns, whole in every thread group of 4 lanes in k16 steps
      // (the m16n8k16 A / B register layout: MmaCol of one warp column)
      if (row && f.operand != Family::OperandB) {
        if (E % (16 * f.wm)) break;
        d.kind = Dist::MmaRow;
        d.n = static_cast<int>(E / (8 * f.wm));
      } else if (row) {
        if (E % (16 * f.wn)) break;
        d.kind = Dist::MmaN;
        d.n = static_cast<int>(E / (8 * f.wn));
      } else {
        const int wn = f.operand == Family::Acc ? f.wn : 1;
        if (E % (f.operand == Family::Acc ? 8 * wn : 16)) break;
        d.kind = Dist::MmaCol;
        d.wn = wn;
        d.n = static_cast<int>(E / (4 * wn));
      }
      return d;
  }
  if (why) *why = fmt::format("{} {} do not fit the {}", E, row ? "rows" : "columns", f.describe());
  return std::nullopt;
}

std::optional<Layout> KernelPlan::layoutFor(const Family& f, Tile t, std::string* why) const {
  auto r = distFor(f, true, t.R, why);
  if (!r) return std::nullopt;
  auto c = distFor(f, false, t.C, why);
  if (!c) return std::nullopt;
  return Layout{f, t, *r, *c};
}

const Layout* KernelPlan::operandFragment(int role, int regs) const {
  const Layout* l = layoutOf(role, regs);
  return l && l->fam.kind == Family::Mma && l->fam.operand != Family::Acc ? l : nullptr;
}

const Layout* KernelPlan::operandFragmentLoad(int role, const ir::Op& op) const {
  if (op.kind != OpKind::Copy || op.dst.kind != ir::BufferRef::Kind::Regs || op.src.kind != ir::BufferRef::Kind::View)
    return nullptr;
  return operandFragment(role, op.dst.index);
}

const Layout* KernelPlan::layoutOf(int role, int regs) const {
  auto it = frag_.find({role, regs});
  return it == frag_.end() ? nullptr : &it->second;
}

bool KernelPlan::regsShift(const ir::BufferRef& ref, const Layout& full, Tile sub, int& di, int& dj,
                         std::string* why) const {
  di = dj = 0;
  if (ref.slices.empty()) return true;
  int64_t off[2] = {0, 0};
  const bool oneD = s_.regs[ref.index].shape.size() == 1;
  for (size_t k = 0; k < ref.slices.size() && k < 2; ++k) {
    const auto& lo = ref.slices[k].lo;
    auto c = lo ? constOf(lo) : std::optional<int64_t>(0);
    if (!c) {
      if (why) *why = "a register fragment slice needs constant bounds";
      return false;
    }
    const int dim = oneD ? (full.t.R > 1 ? 0 : 1) : static_cast<int>(k);
    off[dim] = *c;
  }
  auto shiftOf = [&](const Dist& d, int64_t o, int64_t ext, int& sh) -> bool {
    if (o == 0 && ext == d.E) return true;
    switch (d.kind) {
      case Dist::One: return o == 0;
      case Dist::Full: sh = static_cast<int>(o); return true;
      case Dist::Cyclic:
        if (o % d.T || ext == 1) return false;
        sh = static_cast<int>(o / d.T);
        return true;
      case Dist::WgRow:
        if (o % (64 * d.G) || ext % (64 * d.G)) return false;
        sh = static_cast<int>(2 * o / (64 * d.G));
        return true;
      case Dist::WgCol:
        if (o % 8 || ext % 8) return false;
        sh = static_cast<int>(o / 4);
        return true;
      case Dist::MmaRow:
        if (d.wm != 1 || o % 16 || ext % 16) return false;
        sh = static_cast<int>(o / 8);
        return true;
      case Dist::MmaCol:
        if (d.wn != 1 || o % 8 || ext % 8) return false;
        sh = static_cast<int>(o / 4);
        return true;
      case Dist::MmaN: return false;  // operand fragments are not sliced (PlanBuilder::checkOperandFragments)
    }
    return false;
  };
  if (!shiftOf(full.row, off[0], sub.R, di) || !shiftOf(full.col, off[1], sub.C, dj)) {
    if (why)
      *why = fmt::format("the slice at ({}, {}) of fragment '{}' is not a whole part of its {}", off[0], off[1],
                         s_.regs[ref.index].name, full.fam.describe());
    return false;
  }
  return true;
}

int KernelPlan::reduceDim(const ir::Op& op) const {
  using K = ir::BufferRef::Kind;
  std::vector<int64_t> shape;
  Tile t;
  if (op.src.kind == K::Regs) {
    for (const auto& d : s_.regs[op.src.index].shape) shape.push_back(constOf(d).value_or(1));
    t = regsTile(op.src.index);
  } else if (op.src.kind == K::View) {
    shape = viewShape(op.src.index);
    t = viewTile(op.src.index);
  } else {
    return op.axis == 0 ? 0 : 1;  // a tensor operand takes the other operands' 2-D tile
  }
  const int rank = static_cast<int>(shape.size());
  if (op.axis < 0 || op.axis >= rank) return -1;
  if (rank == 1) return t.R == 1 ? 1 : 0;
  if (op.axis == rank - 1) return 1;
  int64_t others = 1;
  for (int i = 0; i + 1 < rank; ++i)
    if (i != op.axis) others *= shape[i];
  return others == 1 ? 0 : -1;
}

namespace {
template <class T>
std::optional<T> issue(PlanIssue* why, ir::Rule rule, std::string message) {
  if (why) *why = {rule, std::move(message)};
  return std::nullopt;
}
}  // namespace

std::optional<ElementwiseShape> KernelPlan::elementwiseShape(int role, const ir::Op& op, PlanIssue* why) const {
  using K = ir::BufferRef::Kind;
  auto fail = [&](ir::Rule rule, std::string m) { return issue<ElementwiseShape>(why, rule, std::move(m)); };
  ElementwiseShape sh;
  // the op's tile: the destination's, or (for a tensor destination) the first source's
  if (op.dst.kind == K::Param) {
    bool found = false;
    for (const auto* r : {&op.src, &op.src2})
      if ((r->kind == K::Regs || r->kind == K::View) && refTile(*r, sh.tile)) {
        found = true;
        break;
      }
    if (!found) return fail(ir::Rule::LowerUnsupported, "a store to a tensor whose tile has no register or view source");
  } else if (!refTile(op.dst, sh.tile)) {
    return fail(ir::Rule::LowerUnsupported, "the destination's slice has no constant extent");
  }
  if (op.kind == OpKind::Copy || op.kind == OpKind::Unary) sh.srcs = {&op.src};
  if (op.kind == OpKind::Binary) sh.srcs = {&op.src, &op.src2};
  for (const auto* r : sh.srcs) {
    Tile t = sh.tile;
    if (r->kind != K::Param && !refTile(*r, t))
      return fail(ir::Rule::LowerUnsupported, "a source slice without a constant extent");
    if ((t.R != sh.tile.R && t.R != 1) || (t.C != sh.tile.C && t.C != 1)) {
      // same element count, different 2-D split (e.g. (64,) vs (1, 64)): not a broadcast
      return fail(ir::Rule::LowerLayout, fmt::format("operand shape {}x{} does not broadcast to {}x{}", t.R, t.C,
                                                     sh.tile.R, sh.tile.C));
    }
    sh.srcTiles.push_back(t);
  }
  // iteration layout: the family of the fragments involved
  const Layout* anchor = op.dst.kind == K::Regs ? layoutOf(role, op.dst.index) : nullptr;
  for (const auto* r : sh.srcs)
    if (!anchor && r->kind == K::Regs) anchor = layoutOf(role, r->index);
  if (anchor) {
    std::string w;
    sh.layout = layoutFor(anchor->fam, sh.tile, &w);
    if (!sh.layout) return fail(ir::Rule::LowerLayout, "the op's tile does not fit its fragments' layout: " + w);
  }
  return sh;
}

std::optional<ReduceShape> KernelPlan::reduceShape(const ir::Op& op, PlanIssue* why) const {
  using K = ir::BufferRef::Kind;
  auto fail = [&](ir::Rule rule, std::string m) { return issue<ReduceShape>(why, rule, std::move(m)); };
  ReduceShape sh;
  sh.rdim = reduceDim(op);
  if (sh.rdim < 0) return fail(ir::Rule::LowerUnsupported, "a reduction over a leading axis of a rank > 2 operand");
  if (op.src.kind == K::Param) {
    if (!refTile(op.dst, sh.src)) return fail(ir::Rule::LowerUnsupported, "reduction tile");
    return fail(ir::Rule::LowerUnsupported,
                "a reduction whose source is a tensor (copy the tile into regs or a view first)");
  }
  if (!refTile(op.src, sh.src))
    return fail(ir::Rule::LowerUnsupported, "a reduction source slice without a constant extent");
  if (!refTile(op.dst, sh.dst))
    return fail(ir::Rule::LowerUnsupported, "a reduction destination slice without a constant extent");
  sh.want = sh.rdim == 1 ? Tile{sh.src.R, 1} : Tile{1, sh.src.C};
  if (sh.dst.R * sh.dst.C != sh.want.R * sh.want.C)
    return fail(ir::Rule::LowerLayout, fmt::format("reduce of {}x{} along axis {} gives {}x{}, not the destination's {}x{}",
                                                   sh.src.R, sh.src.C, op.axis, sh.want.R, sh.want.C, sh.dst.R, sh.dst.C));
  if (op.src2.kind == K::Regs) {  // value=: the running values, element for element beside dst
    Tile v;
    if (op.src.kind != K::Regs || op.dst.kind != K::Regs)
      return fail(ir::Rule::LowerUnsupported, "a running reduction (value=) of a source or into a destination not in registers");
    if (!refTile(op.src2, v) || v.R * v.C != sh.dst.R * sh.dst.C)
      return fail(ir::Rule::LowerLayout, fmt::format("the running values (value=) are {}x{}, the destination {}x{}", v.R, v.C,
                                                     sh.dst.R, sh.dst.C));
  }
  return sh;
}

// tcgen05.ld / tcgen05.st 32x32b: warp w % 4 of the CTA reaches TMEM lanes
// 32 (w % 4) .. + 31, one lane (row) per thread, 32-bit columns. A copy
// moves R = 32, 64, 96 or 128 lanes (a lane slice starting at a multiple of
// 32, which may depend on lm.instance(): per-warp ownership) into an R-row
// fragment: warp j of an instance holds fragment rows 32j .. 32j + 31 and
// must reach the TMEM lanes they come from.
std::optional<Tile> KernelPlan::tmemCopyTile(int role, const ir::Op& op, const Layout& L, PlanIssue* why) const {
  using K = ir::BufferRef::Kind;
  auto fail = [&](ir::Rule rule, std::string m) { return issue<Tile>(why, rule, std::move(m)); };
  const ir::BufferRef& tm = op.src.kind == K::Tmem ? op.src : op.dst;
  const ir::BufferRef& rg = op.src.kind == K::Tmem ? op.dst : op.src;
  // (refTile keeps the lanes whole: MMA accumulators are not lane-sliced)
  Tile tt = tmemTile(tm.index);
  if (!tm.slices.empty()) {
    const auto rows = s_.tmems[tm.index].shape.size() == 2 ? sliceExtent(s_, tm.slices[0], tt.R, spec_) : std::nullopt;
    const auto cols = tm.slices.size() > 1 ? sliceExtent(s_, tm.slices[1], tt.C, spec_) : std::optional<int64_t>(tt.C);
    if (!rows || !cols) return fail(ir::Rule::LowerUnsupported, "a TMEM slice without constant extents");
    tt = Tile{*rows, *cols};
  }
  const auto& r = s_.roles[role];
  const int wpi = r.warpsPerInstance();
  if (tt.R % 32 || tt.R < 32 || tt.R > 128 || L.t.R != tt.R || L.t.C != tt.C || L.row.kind != Dist::Cyclic ||
      L.col.kind != Dist::Full)
    return fail(ir::Rule::LowerLayout, fmt::format("a TMEM copy moves 32, 64, 96 or 128 lanes to a fragment of as many "
                                                   "rows and the same columns (TMEM {}x{}, fragment {}x{})",
                                                   tt.R, tt.C, L.t.R, L.t.C));
  const int lanesWarps = static_cast<int>(tt.R / 32);
  if (wpi < lanesWarps)
    return fail(ir::Rule::LowerLayout, fmt::format("a TMEM copy of {} lanes needs an instance of at least {} warps",
                                                   tt.R, lanesWarps));
  for (int i = 0; i < r.instanceCount(); ++i) {
    ir::EvalEnv env;
    env.instance = i;
    const std::optional<int64_t> first = ir::tmemLaneBounds(s_, tm, env).lo;
    if (!first || *first % 32)
      return fail(ir::Rule::LowerUnsupported, "a TMEM lane slice that does not start at a constant multiple of 32 "
                                              "(per instance)");
    for (int w = 0; w < lanesWarps; ++w) {
      const int warp = r.warps[i * wpi + w];
      const int64_t quarter = *first / 32 + w;
      const int reach = ir::tmemQuarterOfWarp(warp);
      if (reach != quarter)
        return fail(ir::Rule::LowerLayout,
                    fmt::format("role '{}': warp {} of instance {} reaches TMEM lanes {}..{}, not the lanes {}..{} "
                                "its fragment rows come from",
                                r.name, warp, i, 32 * reach, 32 * reach + 31, 32 * quarter, 32 * quarter + 31));
    }
  }
  const ir::DType tdt = s_.tmems[tm.index].dtype;
  if (tdt != ir::DType::F32 && tdt != ir::DType::I32)
    return fail(ir::Rule::LowerLayout, "TMEM copies move 32-bit (f32 / i32) columns");
  // an asynchronous move has no point at which to convert: the registers
  // are the instruction's own operands until the wait
  if (op.kind != ir::OpKind::Copy && s_.regs[rg.index].dtype != tdt)
    return fail(ir::Rule::LowerLayout, fmt::format("lm.{} moves {} columns to or from a fragment of the same type, not {}",
                                                   ir::opName(op.kind), ir::dtypeName(tdt),
                                                   ir::dtypeName(s_.regs[rg.index].dtype)));
  return tt;
}

std::optional<std::pair<int, int64_t>> loopVarPlusConst(const ir::Expr& e) {
  using EK = ir::ExprKind;
  if (e.kind == EK::LoopVar) return std::pair<int, int64_t>{e.index, 0};
  if ((e.kind != EK::Add && e.kind != EK::Sub) || e.args.size() != 2) return std::nullopt;
  const ir::Expr &a = *e.args[0], &b = *e.args[1];
  if (b.kind == EK::Const)
    if (auto l = loopVarPlusConst(a)) return std::pair<int, int64_t>{l->first, l->second + (e.kind == EK::Add ? b.value : -b.value)};
  if (e.kind == EK::Add && a.kind == EK::Const)
    if (auto l = loopVarPlusConst(b)) return std::pair<int, int64_t>{l->first, l->second + a.value};
  return std::nullopt;
}

std::string KernelPlan::slotOf(const ir::ExprPtr& e, int stages) const {
  if (stages == 1 || !e) return "0";
  if (auto c = constOf(e)) return std::to_string(((*c % stages) + stages) % stages);
  if (!slotResidue_.empty())
    if (auto vc = loopVarPlusConst(*e)) {
      auto it = slotResidue_.find(vc->first);
      // v = residue (mod the unroll factor, a multiple of stages) in this copy of the body
      if (it != slotResidue_.end() && it->second.second % stages == 0)
        return std::to_string((((it->second.first + vc->second) % stages) + stages) % stages);
    }
  if (nonneg(*e)) return "cake_slot<" + std::to_string(stages) + ">(" + expr(e) + ")";
  return "cake_mod(" + expr(e) + ", " + std::to_string(stages) + ")";
}

std::string KernelPlan::viewSlotAddr(const ir::BufferRef& ref) const {
  const int v = ref.index;
  const int stages = s_.views[v].stages;
  if (stages == 1 || !ref.slot) return viewName(v);
  return "(" + viewName(v) + " + " + std::to_string(viewSlotBytes(v)) + " * (" + slotOf(ref.slot, stages) + "))";
}

std::map<size_t, int64_t> KernelPlan::derivedTx(const ir::Block& b) const {
  // derived expect_tx (ir/expect_tx.h): one arrive.expect_tx right before
  // the first load of each batch of the plan, for the bytes of all of them
  std::map<size_t, int64_t> txBefore;
  for (size_t i = 0; i < b.size(); ++i) {
    const ir::TxBatch* batch = txPlan_.headedBy(&b[i]);
    if (!batch) continue;
    int64_t bytes = 0;
    // a multicast load counts once per CTA of its (constant) mask: every CTA
    // of the mask issues its share to all of them (ir/expect_tx.h)
    for (const Stmt* load : batch->loads)
      bytes += viewSlotBytes(load->op.dst.index) *
               (load->op.multicast ? std::popcount(static_cast<uint64_t>(constOf(load->op.multicast).value_or(1))) : 1);
    txBefore[i] = bytes;
  }
  return txBefore;
}

std::string KernelPlan::tmemAddr(const ir::BufferRef& ref, int64_t col_off) const {
  const auto& t = s_.tmems[ref.index];
  std::string a = fmt::format("cake_tmem_base + ({})", expr(t.cols));
  if (ref.slices.size() > 1 && ref.slices[1].lo) a += " + (" + expr(ref.slices[1].lo) + ")";
  if (col_off) a += fmt::format(" + {}", col_off);
  return a;
}

std::string KernelPlan::hostGridText() const {
  if (!gridDerived_) return "(from the caller)";
  std::string s = "(";
  for (int d = 0; d < 3; ++d) {
    std::string g = persistent_ && d == 0 ? (target_ == ir::Target::SM80 && s_.cluster[0] * s_.cluster[1] * s_.cluster[2] == 1
                                                   ? "#SMs x CTAs per SM"
                                                   : "#SMs")
                                            : gridHost_[d];
    // readable: cake_cdiv(static_cast<int>(cake_t[k].dims[c]), T) -> cdiv(NAME.dim[c], T)
    const auto p = g.find("cake_t[");
    if (p != std::string::npos) {
      const int k = std::atoi(g.c_str() + p + 7);
      const auto q = g.find("dims[", p);
      const int c = std::atoi(g.c_str() + q + 5);
      const auto t = g.rfind(", ");
      int seen = 0;
      std::string name = "?";
      for (const auto& prm : s_.params)
        if (ir::isTensorParam(prm.type) && seen++ == k) name = prm.name;
      g = fmt::format("cdiv({}.shape[{}], {}", name, c, g.substr(t + 2));
    }
    s += g + (d < 2 ? ", " : ")");
  }
  return s;
}

}  // namespace cake::lowering::detail
