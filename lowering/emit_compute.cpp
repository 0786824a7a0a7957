// Stage 3, compute ops on fragments, slots and tensors: copy, fill, unary,
// binary, reduce, and TMEM <-> register copies. See emit.h and docs/gpu.md
// ("Fragments").
#include <algorithm>

#include "lowering/emit.h"
#include "lowering/lane_count.h"
#include "lowering/reduce_chain.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;
using ir::ElemFn;

namespace {

// The index a distribution gives slot `s` of this thread, as two C++
// expressions that add up to it: the thread's part (lane, warp) and the
// slot's part (a constant once the slot loop is unrolled), a multiple of
// `grain` (0: always 0). Split so that an address can take the swizzle from
// the thread's part alone (KernelPlan::viewRowsSplit).
struct DistTerms {
  std::string thread, slot;
  int64_t grain = 0;
};
DistTerms distTerms(const Dist& d, const std::string& s) {
  switch (d.kind) {
    case Dist::One: return {"0", "0", 0};
    case Dist::Full: return {"0", s, 1};
    case Dist::Cyclic: return {"cake_inst_thread", fmt::format("{} * {}", d.T, s), d.T};
    case Dist::WgRow:
      if (d.G > 1)
        return {"64 * (cake_wwarp / 4) + 16 * (cake_wwarp % 4) + cake_lane / 4",
                fmt::format("64 * {} * ({} / 2) + 8 * ({} % 2)", d.G, s, s), 8};
      return {"16 * cake_wwarp + cake_lane / 4", fmt::format("64 * ({} / 2) + 8 * ({} % 2)", s, s), 8};
    case Dist::WgCol: return {"2 * (cake_lane % 4)", fmt::format("8 * ({} / 2) + {} % 2", s, s), 1};
    case Dist::MmaRow:
      return {fmt::format("(cake_wwarp / {}) * {} + cake_lane / 4", d.wn, d.E / d.wm),
              fmt::format("16 * ({} / 2) + 8 * ({} % 2)", s, s), 8};
    case Dist::MmaCol:
      return {fmt::format("(cake_wwarp % {}) * {} + 2 * (cake_lane % 4)", d.wn, d.E / d.wn),
              fmt::format("8 * ({} / 2) + {} % 2", s, s), 1};
    case Dist::MmaN:  // b-operand rows: one per n8 tile of the warp column
      return {fmt::format("(cake_wwarp % {}) * {} + cake_lane / 4", d.wn, d.E / d.wn), fmt::format("8 * {}", s), 8};
  }
  return {"0", "0", 0};
}

// C++ expression of the index a distribution gives slot `s` of this thread.
std::string distIndex(const Dist& d, const std::string& s) {
  if (d.kind == Dist::One) return "0";
  if (d.kind == Dist::Full) return s;
  const DistTerms t = distTerms(d, s);
  return fmt::format("({} + {})", t.slot, t.thread);
}

bool distGuarded(const Dist& d) { return d.kind == Dist::Cyclic && d.E % d.T != 0; }

// Threads of the family that hold replicas of a layout's elements: only the
// one whose replicated coordinates are 0 writes to memory.
std::string canonical(const Layout& l) {
  std::vector<std::string> c;
  const Family& f = l.fam;
  const bool rowRep = l.row.kind == Dist::One || l.row.kind == Dist::Full;
  const bool colRep = l.col.kind == Dist::One || l.col.kind == Dist::Full;
  switch (f.kind) {
    case Family::Generic:
    case Family::None:
      if ((f.colsMajor ? colRep : rowRep)) c.push_back("cake_inst_thread == 0");
      break;
    case Family::Wg:  // transposed: the rows take the wgmma's column distribution, the columns its rows'
      if (f.trans ? colRep : rowRep) c.push_back("cake_inst_thread / 4 % 8 == 0 && cake_wwarp == 0");
      if (f.trans ? rowRep : colRep) c.push_back("cake_lane % 4 == 0");
      break;
    case Family::Mma:
      if (rowRep) c.push_back(fmt::format("cake_wwarp / {} == 0 && cake_lane / 4 == 0", f.wn));
      if (colRep) c.push_back(fmt::format("cake_wwarp % {} == 0 && cake_lane % 4 == 0", f.wn));
      break;
  }
  if (c.empty()) return "true";
  return fmt::format("{}", fmt::join(c, " && "));
}

// Lane masks and warp groups that hold the other parts of a reduced dimension.
struct Combine {
  std::vector<int> masks;
  int warps = 1;                  // warps in the group
  std::string warpOf;             // C++ expression of the k-th warp of this thread's group (uses cake_g)
};
Combine combineFor(const Dist& d, int W) {
  Combine c;
  switch (d.kind) {
    case Dist::Cyclic:
      c.masks = {1, 2, 4, 8, 16};
      c.warps = W;
      c.warpOf = "cake_g";
      break;
    case Dist::WgRow:
      c.masks = {4, 8, 16};
      c.warps = W;
      c.warpOf = "cake_g";
      break;
    case Dist::WgCol:
      c.masks = {1, 2};
      break;
    case Dist::MmaRow:
      c.masks = {4, 8, 16};
      c.warps = d.wm;
      c.warpOf = fmt::format("(cake_g * {} + cake_wwarp % {})", d.wn, d.wn);
      break;
    case Dist::MmaCol:
      c.masks = {1, 2};
      c.warps = d.wn;
      c.warpOf = fmt::format("((cake_wwarp / {}) * {} + cake_g)", d.wn, d.wn);
      break;
    default:
      break;
  }
  return c;
}

}  // namespace


// ------------------------------------------------------------ functions

std::optional<std::string> unaryText(ElemFn f, const std::string& x, bool intc) {
  if (intc) {
    if (f == ElemFn::Neg) return "(-" + x + ")";
    if (f == ElemFn::Abs) return "abs(" + x + ")";
    if (f == ElemFn::Relu) return "cake_max(" + x + ", 0)";
  }
  if (f == ElemFn::Exp2) return "cake_exp2(" + x + ")";
  if (f == ElemFn::Neg) return "(-" + x + ")";
  if (f == ElemFn::Abs) return "fabsf(" + x + ")";
  if (f == ElemFn::Relu) return "fmaxf(" + x + ", 0.f)";
  if (f == ElemFn::Rsqrt) return "rsqrtf(" + x + ")";
  if (f == ElemFn::Recip) return "(1.f / " + x + ")";
  if (f == ElemFn::Sqrt) return "sqrtf(" + x + ")";
  return std::nullopt;
}

std::optional<std::string> binaryText(ElemFn f, const std::string& a, const std::string& b, bool intc) {
  if (f == ElemFn::Add) return "(" + a + " + " + b + ")";
  if (f == ElemFn::Sub) return "(" + a + " - " + b + ")";
  if (f == ElemFn::Mul) return "(" + a + " * " + b + ")";
  if (f == ElemFn::Div) return "(" + a + " / " + b + ")";
  if (f == ElemFn::Max) return intc ? "cake_max(" + a + ", " + b + ")" : "fmaxf(" + a + ", " + b + ")";
  if (f == ElemFn::Min) return intc ? "cake_min(" + a + ", " + b + ")" : "fminf(" + a + ", " + b + ")";
  return std::nullopt;
}

std::optional<ReduceFn> reduceFn(ElemFn f) {
  if (f == ElemFn::Sum) return ReduceFn{"0.f", "({a} + {b})"};
  if (f == ElemFn::Max || f == ElemFn::ArgMax) return ReduceFn{"(-INFINITY)", "fmaxf({a}, {b})"};
  if (f == ElemFn::Min || f == ElemFn::ArgMin) return ReduceFn{"INFINITY", "fminf({a}, {b})"};
  return std::nullopt;
}

// ------------------------------------------------------------ element-wise

namespace {
struct Operand {
  const ir::BufferRef* ref = nullptr;
  int di = 0, dj = 0;  // sliced fragment: slot offsets
  Tile t;
  ir::DType dt = ir::DType::F32;
  std::string name;    // regs name / view base variable / tensor pointer
  std::string prefix;  // per-operand generated locals
  bool rowsSplit = false;  // view: addressed as this thread's row + the slot's (viewOffsetSplit)
};
}  // namespace

void Emitter::emitElementwise(const ir::Op& op) {
  PlanIssue issue;
  const auto shape = plan_.elementwiseShape(role_, op, &issue);
  if (!shape) internalError(op, issue.message);
  const Tile tile = shape->tile;
  std::vector<Operand> srcs;
  for (size_t n = 0; n < shape->srcs.size(); ++n) {
    Operand o;
    o.ref = shape->srcs[n];
    o.prefix = fmt::format("cake_s{}", n);
    o.t = shape->srcTiles[n];
    o.dt = plan_.refDtype(*o.ref);
    srcs.push_back(o);
  }
  Operand dst;
  dst.ref = &op.dst;
  dst.t = tile;
  dst.dt = plan_.refDtype(op.dst);
  dst.prefix = "cake_d";
  const std::optional<Layout>& L = shape->layout;
  const int T = s_.roles[role_].warpsPerInstance() * 32;
  // compute type
  bool intc = dst.dt == ir::DType::I32 && !ir::elemFnInfo(op.fn).has(ir::ElemFnFlag::FloatOnly);
  for (const auto& o : srcs) intc = intc && (o.dt == ir::DType::I32 || o.dt == ir::DType::I8);
  if (op.kind == OpKind::Fill && !op.fill_value) intc = false;
  const std::string ct = intc ? "int" : "float";
  const std::string rd = intc ? "cake_i32" : "cake_f32";

  openScope();
  // comment
  {
    auto refName = [&](const ir::BufferRef& r) -> std::string {
      switch (r.kind) {
        case K::Regs: return s_.regs[r.index].name;
        case K::View: return s_.views[r.index].name + "[" + plan_.pyText(r.slot) + "]";
        case K::Param: return s_.params[r.index].name;
        case K::Scalar:
          if (r.index >= 0) return s_.params[r.index].name;
          return r.scalar ? plan_.pyText(r.scalar) : fmt::format("{}", r.scalar_f);
        default: return "?";
      }
    };
    std::string what;
    if (op.kind == OpKind::Fill) what = op.fill_value ? plan_.pyText(op.fill_value) : fmt::format("{}", op.fill_value_f);
    else if (op.kind == OpKind::Copy) what = refName(op.src);
    else if (op.kind == OpKind::Unary) what = fmt::format("{}({})", ir::elemFnName(op.fn), refName(op.src));
    else what = fmt::format("{}({}, {})", ir::elemFnName(op.fn), refName(op.src), refName(op.src2));
    comment(sanitizeComment(fmt::format("{} <- {}: {}x{} {}, {}", refName(op.dst), what, tile.R, tile.C, ct,
                                        L ? L->fam.describe() : fmt::format("strided over {} threads", T))));
  }
  // per-operand setup
  auto setup = [&](Operand& o) {
    const auto& r = *o.ref;
    if (r.kind == K::Regs) {
      o.name = plan_.regsName(r.index);
      const Layout* full = layoutOf(r.index);
      std::string why;
      if (!full) internalError(op, "a fragment operand without a layout in this role");
      if (!plan_.regsShift(r, *full, o.t, o.di, o.dj, &why)) internalError(op, why);
    } else if (r.kind == K::View) {
      o.name = o.prefix + "_v";
      line(fmt::format("const uint32_t {} = {};", o.name, plan_.viewSlotAddr(r)));
      std::string r0 = "0", c0 = "0";
      if (!r.slices.empty()) {
        const bool oneD = plan_.viewShape(r.index).size() == 1;
        if (oneD) {
          if (r.slices[0].lo) c0 = plan_.expr(r.slices[0].lo);
        } else {
          if (r.slices[0].lo) r0 = plan_.expr(r.slices[0].lo);
          if (r.slices.size() > 1 && r.slices[1].lo) c0 = plan_.expr(r.slices[1].lo);
        }
      }
      line(fmt::format("const int {0}_r0 = {1}, {0}_c0 = {2};", o.prefix, r0, c0));
      // a fragment's rows: this thread's row and its swizzle once, each slot's row a constant offset from it
      if (L && o.t.R == tile.R && o.t.R > 1) {
        const DistTerms rt = distTerms(L->row, "cake_i");
        if (plan_.viewRowsSplit(r.index, rt.grain)) {
          o.rowsSplit = true;
          line(fmt::format("const uint32_t {0}_rb = cake_here(static_cast<uint32_t>({0}_r0 + {1}) * {2}u);  "
                           "// this thread's row, in bytes",
                           o.prefix, rt.thread, plan_.viewRowPitch(r.index)));
          line(fmt::format("const uint32_t {0}_sw = {1};  // and its swizzle", o.prefix,
                           plan_.viewRowSwizzle(r.index, o.prefix + "_rb")));
        }
      }
    } else if (r.kind == K::Param) {
      o.name = plan_.paramName(r.index);
      const int N = static_cast<int>(op.coords.size());
      const std::string ext = "cake_ext_" + o.name;
      if (N == 1 && tile.R != 1) internalError(op, "a 2-D tile of a rank-1 tensor");
      std::string base = "0", ok = "true";
      for (int k = 0; k + 2 < N; ++k) {
        base += fmt::format(" + static_cast<long long>({}) * {}.s[{}]", plan_.expr(op.coords[k]), ext, k);
        ok += fmt::format(" && ({0}) >= 0 && ({0}) < {1}.d[{2}]", plan_.expr(op.coords[k]), ext, k);
      }
      line(fmt::format("const long long {0}_r0 = {1}, {0}_c0 = {2}, {0}_base = {3};", o.prefix,
                       N >= 2 ? plan_.expr(op.coords[N - 2]) : "0", plan_.expr(op.coords[N - 1]), base));
      line(fmt::format("const bool {}_plane = {};", o.prefix, ok));
    }
  };
  for (auto& o : srcs) setup(o);
  setup(dst);
  const std::string rowI = L ? "cake_i" : "", colJ = L ? "cake_j" : "";
  // element access at (cake_r, cake_c) of the op's tile (broadcast along extent-1 dims)
  auto viewOff = [&](const Operand& o, const std::string& rr, const std::string& cc) {
    const int v = o.ref->index;
    const int eb = ir::dtypeBytes(s_.views[v].dtype);
    const std::string colBytes = fmt::format("({}_c0 + {}) * {}", o.prefix, cc, eb);
    if (o.rowsSplit && rr == "cake_r") {
      const std::string k = distTerms(L->row, "cake_i").slot;
      return fmt::format("{} + {}", o.name, plan_.viewOffsetSplit(v, o.prefix + "_rb", o.prefix + "_sw", k, colBytes));
    }
    return fmt::format("{} + {}", o.name, plan_.viewOffset(v, fmt::format("{}_r0 + {}", o.prefix, rr), colBytes));
  };
  auto tensorIdx = [&](const Operand& o, const std::string& rr, const std::string& cc, std::string* inb) {
    const int N = static_cast<int>(op.coords.size());
    const std::string ext = "cake_ext_" + o.name;
    const std::string gr = fmt::format("({}_r0 + {})", o.prefix, rr), gc = fmt::format("({}_c0 + {})", o.prefix, cc);
    std::string in = fmt::format("{}_plane && {} >= 0 && {} < {}.d[{}]", o.prefix, gc, gc, ext, N - 1);
    if (N >= 2) in += fmt::format(" && {} >= 0 && {} < {}.d[{}]", gr, gr, ext, N - 2);
    *inb = in;
    if (N >= 2) return fmt::format("{}_base + {} * {}.s[{}] + {}", o.prefix, gr, ext, N - 2, gc);
    return fmt::format("{}_base + {}", o.prefix, gc);
  };
  auto read = [&](const Operand& o) -> std::string {
    const std::string rr = o.t.R == 1 ? "0" : "cake_r", cc = o.t.C == 1 ? "0" : "cake_c";
    switch (o.ref->kind) {
      case K::Regs: {
        std::string i = o.t.R == 1 ? "0" : rowI, j = o.t.C == 1 ? "0" : colJ;
        if (o.di) i = fmt::format("{} + {}", i, o.di);
        if (o.dj) j = fmt::format("{} + {}", j, o.dj);
        return fmt::format("{}({}[{}][{}])", rd, o.name, i, j);
      }
      case K::View:
        return fmt::format("{}(cake_lds<{}>({}))", rd, cType(o.dt), viewOff(o, rr, cc));
      case K::Param: {
        std::string in;
        const std::string idx = tensorIdx(o, rr, cc, &in);
        // a predicated load, not `in ? x[idx] : 0` (a branch around each element's load): the same 0
        // out of bounds, no access there (docs/gpu.md "Branch-free guarded element reads")
        return fmt::format("{}(cake_ldg_or0({} + ({}), {}))", rd, o.name, idx, in);
      }
      case K::Scalar:
        if (o.ref->index >= 0) return plan_.paramName(o.ref->index);  // an LM.f32 parameter: a kernel argument
        if (o.ref->scalar) return intc ? fmt::format("({})", plan_.expr(o.ref->scalar)) : fmt::format("static_cast<float>({})", plan_.expr(o.ref->scalar));
        return floatLiteral(o.ref->scalar_f);
      default:
        return "0";
    }
  };
  // the value
  std::string val;
  switch (op.kind) {
    case OpKind::Fill:
      val = op.fill_value ? (intc ? fmt::format("({})", plan_.expr(op.fill_value))
                                  : fmt::format("static_cast<float>({})", plan_.expr(op.fill_value)))
                          : floatLiteral(op.fill_value_f);
      break;
    case OpKind::Copy: val = read(srcs[0]); break;
    case OpKind::Unary: {
      const auto v = unaryText(op.fn, read(srcs[0]), intc);
      if (!v) internalError(op, "unary op '" + std::string(ir::elemFnName(op.fn)) + "'");
      val = *v;
      break;
    }
    case OpKind::Binary: {
      const auto v = binaryText(op.fn, read(srcs[0]), read(srcs[1]), intc);
      if (!v) internalError(op, "binary op '" + std::string(ir::elemFnName(op.fn)) + "'");
      val = *v;
      break;
    }
    default: break;
  }
  // a transposed wgmma accumulator converts in integer arithmetic (cake_cvtr: ptxas C7514 otherwise)
  bool transSrc = false;
  for (const auto& o : srcs) transSrc = transSrc || (o.ref->kind == K::Regs && layoutOf(o.ref->index) &&
                                                     layoutOf(o.ref->index)->fam.trans);
  const std::string cvt = intc ? "cake_cvti" : transSrc ? "cake_cvtr" : "cake_cvt";
  auto write = [&](const std::string& v) {
    const std::string T_ = cType(dst.dt);
    switch (op.dst.kind) {
      case K::Regs:
        line(fmt::format("{}[cake_i{}][cake_j{}] = {}<{}>({});", dst.name, dst.di ? fmt::format(" + {}", dst.di) : "",
                         dst.dj ? fmt::format(" + {}", dst.dj) : "", cvt, T_, v));
        break;
      case K::View: line(fmt::format("cake_sts<{}>({}, {}<{}>({}));", T_, viewOff(dst, "cake_r", "cake_c"), cvt, T_, v)); break;
      case K::Param: {
        std::string in;
        const std::string idx = tensorIdx(dst, "cake_r", "cake_c", &in);
        line(fmt::format("if ({}) {}[{}] = {}<{}>({});", in, dst.name, idx, cvt, T_, v));
        break;
      }
      default: break;
    }
  };
  const bool memDst = op.dst.kind != K::Regs;
  if (L) {
    const std::string canon = memDst ? canonical(*L) : "true";
    // pairs: a register -> memory copy along a column distribution of adjacent pairs
    const int deb = ir::dtypeBytes(dst.dt);
    const bool pairs = op.kind == OpKind::Copy && memDst && srcs[0].ref->kind == K::Regs && srcs[0].t.R == tile.R &&
                       srcs[0].t.C == tile.C && L->NC() % 2 == 0 && (deb == 2 || deb == 4) &&
                       (L->col.kind == Dist::WgCol || L->col.kind == Dist::MmaCol || L->col.kind == Dist::Full) &&
                       (op.dst.kind == K::View || op.coords.size() >= 1);
    // conversion pairs: a float -> bf16 / f16 register copy converts two elements of a row at once
    // (one F2FP instead of two conversions; softmax's P = bf16(S) is 32 instead of 64 per thread)
    const bool cvtPairs = op.kind == OpKind::Copy && !memDst && srcs[0].ref->kind == K::Regs && !intc &&
                          srcs[0].t.R == tile.R && srcs[0].t.C == tile.C && L->NC() % 2 == 0 &&
                          convertsInPairs(dst.dt) && !distGuarded(L->row) &&
                          !distGuarded(L->col);
    if (canon != "true") line(fmt::format("const bool cake_w = {};  // one replica writes", canon));
    // a tile wholly inside the tensor, with aligned pairs: every pair is stored with no bounds test (the
    // column distribution is unguarded, so each pair's two columns lie in the tile). The test per pair was
    // ~10 instructions for each of the epilogue's 64 pairs per thread (docs/gpu.md "sm_80: the k-block's
    // extra instructions"); the guarded loop below stays for the other tiles.
    const bool inner = pairs && op.dst.kind == K::Param && !distGuarded(L->col);
    if (pairs && op.dst.kind == K::Param) {
      const int N = static_cast<int>(op.coords.size());
      const std::string ext = "cake_ext_" + dst.name;
      line(fmt::format("const bool cake_pairs = (cake_d_c0 % 2 == 0) && ({} || cake_ext_{}.s[{}] % 2 == 0) && "
                       "(reinterpret_cast<uintptr_t>({}) % {} == 0);",
                       N >= 2 ? "false" : "true", dst.name, std::max(0, N - 2), dst.name, 2 * deb));
      if (inner) {
        std::string whole = fmt::format("cake_pairs && cake_d_plane && cake_d_c0 >= 0 && cake_d_c0 + {} <= {}.d[{}]", tile.C,
                                        ext, N - 1);
        if (N >= 2) whole += fmt::format(" && cake_d_r0 >= 0 && cake_d_r0 + {} <= {}.d[{}]", tile.R, ext, N - 2);
        line(fmt::format("const bool cake_inner = {};", whole));
      }
    }
    // An sm_80 accumulator (mma.sync layout) stored whole to a bf16 / f16 tensor: each quad of lanes holds a row's
    // pairs of every n8 tile; a 4 x 4 transpose of the pairs across the quad (cake_quad_transpose, warp shuffles)
    // gives each lane 8 adjacent elements of one n8 tile, stored with one 16-byte st.global: 16 stores per
    // thread for a 64x64 warp tile instead of 64 four-byte ones, each warp store writing whole 32-byte sectors.
    // The same values to the same elements; only which lane stores which is changed (docs/gpu.md "sm_80: a 16-byte
    // epilogue and groups of 16 block rows": fragsp13 0.593 -> 0.599 of cuBLAS at 4096^3 as an emulation
    // through shared memory). Tiles or pointers not 16-byte aligned take the paths below.
    const bool v16 = inner && plan_.target_ == ir::Target::SM80 && !intc && convertsInPairs(dst.dt) &&
                     L->col.kind == Dist::MmaCol && L->NC() % 8 == 0 && canon == "true" && !distGuarded(L->row) &&
                     op.coords.size() >= 2;
    if (v16) {
      const int N = static_cast<int>(op.coords.size());
      const std::string T_ = cType(dst.dt), s = srcs[0].name;
      const std::string si = srcs[0].di ? fmt::format("cake_i + {}", srcs[0].di) : "cake_i";
      line(fmt::format("const bool cake_v16 = cake_inner && cake_d_c0 % 8 == 0 && cake_d_base % 8 == 0 && "
                       "cake_ext_{}.s[{}] % 8 == 0 && reinterpret_cast<uintptr_t>({}) % 16 == 0;",
                       dst.name, N - 2, dst.name));
      open("if (cake_v16)");
      line("#pragma unroll");
      open(fmt::format("for (int cake_i = 0; cake_i < {}; ++cake_i)", L->NR()));
      line(fmt::format("const int cake_r = {};", distIndex(L->row, "cake_i")));
      line("#pragma unroll");
      open(fmt::format("for (int cake_g = 0; cake_g < {}; ++cake_g)", L->NC() / 8));
      comment("this lane's pairs of the n8 tiles 4g .. 4g + 3, then the quad's transpose: n8 tile 4g + lane % 4");
      line("uint32_t cake_w[4];");
      line("#pragma unroll");
      line(fmt::format("for (int cake_t = 0; cake_t < 4; ++cake_t) cake_w[cake_t] = cake_pack2({0}<{1}>({2}({3}[{4}][8 * cake_g "
                       "+ 2 * cake_t + {5}])), {0}<{1}>({2}({3}[{4}][8 * cake_g + 2 * cake_t + {6}])));",
                       cvt, T_, rd, s, si, srcs[0].dj, srcs[0].dj + 1));
      line("cake_quad_transpose(cake_w[0], cake_w[1], cake_w[2], cake_w[3], cake_lane);");
      line(fmt::format("const int cake_c = (cake_wwarp % {}) * {} + 8 * (4 * cake_g + cake_lane % 4);", L->col.wn,
                       L->col.E / L->col.wn));
      std::string in;
      const std::string idx = tensorIdx(dst, "cake_r", "cake_c", &in);
      line(fmt::format("cake_stg16({} + {}, cake_w[0], cake_w[1], cake_w[2], cake_w[3]);", dst.name, idx));
      close();
      close();
      close("} else {");
      ++indent_;
    }
    for (int pass = inner ? 0 : 1; pass < 2; ++pass) {
      const bool fast = pass == 0;
      if (inner && fast) open("if (cake_inner)");
      if (inner && !fast) {
        close("} else {");
        ++indent_;
      }
      line("#pragma unroll");
      open(fmt::format("for (int cake_i = 0; cake_i < {}; ++cake_i)", L->NR()));
      line(fmt::format("const int cake_r = {};", distIndex(L->row, "cake_i")));
      line("(void)cake_r;");
      std::vector<std::string> guards;
      if (distGuarded(L->row)) guards.push_back(fmt::format("cake_r < {}", L->t.R));
      if (canon != "true") guards.push_back("cake_w");
      line("#pragma unroll");
      if (pairs) {
        open(fmt::format("for (int cake_jj = 0; cake_jj < {}; cake_jj += 2)", L->NC()));
        const std::string s = srcs[0].name;
        const std::string T_ = cType(dst.dt);
        line(fmt::format("const int cake_c = {};", distIndex(L->col, "cake_jj")));
        std::vector<std::string> g = guards;
        if (distGuarded(L->col)) g.push_back(fmt::format("cake_c < {}", L->t.C));
        if (!g.empty()) line(fmt::format("if ({}) {{", fmt::join(g, " && ")));
        const std::string si = srcs[0].di ? fmt::format("cake_i + {}", srcs[0].di) : "cake_i";
        const std::string a = fmt::format("{}<{}>({}({}[{}][cake_jj + {}]))", cvt, T_, rd, s, si, srcs[0].dj);
        const std::string b = fmt::format("{}<{}>({}({}[{}][cake_jj + {}]))", cvt, T_, rd, s, si, srcs[0].dj + 1);
        if (op.dst.kind == K::View) {
          line(fmt::format("  cake_sts_pair({}, {}, {});", viewOff(dst, "cake_r", "cake_c"), a, b));
        } else {
          std::string in, in2;
          const std::string idx = tensorIdx(dst, "cake_r", "cake_c", &in);
          tensorIdx(dst, "cake_r", "(cake_c + 1)", &in2);
          line(fmt::format("  const {} cake_x = {}, cake_y = {};", T_, a, b));
          if (fast) {
            line(fmt::format("  cake_stg_pair({} + {}, cake_x, cake_y);", dst.name, idx));
          } else {
            line(fmt::format("  if (cake_pairs && {} && {}) cake_stg_pair({} + {}, cake_x, cake_y);", in, in2, dst.name, idx));
            line(fmt::format("  else {{ if ({}) {}[{}] = cake_x; if ({}) {}[{} + 1] = cake_y; }}", in, dst.name, idx, in2,
                             dst.name, idx));
          }
        }
        if (!g.empty()) line("}");
        close();
      } else if (cvtPairs) {
        open(fmt::format("for (int cake_jj = 0; cake_jj < {}; cake_jj += 2)", L->NC()));
        const std::string si = srcs[0].di ? fmt::format("cake_i + {}", srcs[0].di) : "cake_i";
        const std::string di = dst.di ? fmt::format("cake_i + {}", dst.di) : "cake_i";
        line(fmt::format("cake_cvt2<{}>({}({}[{}][cake_jj + {}]), {}({}[{}][cake_jj + {}]), {}[{}][cake_jj + {}], "
                         "{}[{}][cake_jj + {}]);",
                         cType(dst.dt), rd, srcs[0].name, si, srcs[0].dj, rd, srcs[0].name, si, srcs[0].dj + 1, dst.name,
                         di, dst.dj, dst.name, di, dst.dj + 1));
        close();
      } else {
        open(fmt::format("for (int cake_j = 0; cake_j < {}; ++cake_j)", L->NC()));
        line(fmt::format("const int cake_c = {};", distIndex(L->col, "cake_j")));
        line("(void)cake_c;");
        std::vector<std::string> g = guards;
        if (distGuarded(L->col)) g.push_back(fmt::format("cake_c < {}", L->t.C));
        if (!g.empty()) open(fmt::format("if ({})", fmt::join(g, " && ")));
        write(val);
        if (!g.empty()) close();
        close();
      }
      close();
      if (inner && !fast) close();
    }
    if (v16) close();
  } else {
    // no fragment: the instance's threads stride over the tile's elements
    line("#pragma unroll 4");
    open(fmt::format("for (int cake_q = cake_inst_thread; cake_q < {}; cake_q += {})", tile.R * tile.C, T));
    line(fmt::format("const int cake_r = cake_q / {}, cake_c = cake_q % {};", tile.C, tile.C));
    line("(void)cake_r; (void)cake_c;");
    write(val);
    close();
  }
  close();
}

// ------------------------------------------------------------ reductions

void Emitter::emitReduce(const ir::Op& op) {
  PlanIssue issue;
  const auto shape = plan_.reduceShape(op, &issue);
  if (!shape) internalError(op, issue.message);
  const int rdim = shape->rdim;
  const Tile st = shape->src, want = shape->want;
  const ElemFn f = op.fn;
  const bool arg = f == ElemFn::ArgMin || f == ElemFn::ArgMax;
  const auto fnOpt = reduceFn(f);
  if (!fnOpt) internalError(op, "reduce op '" + std::string(ir::elemFnName(f)) + "'");
  const ReduceFn& fn = *fnOpt;
  auto comb = [&](const std::string& a, const std::string& b) {
    std::string s = fn.combine;
    s.replace(s.find("{a}"), 3, a);
    s.replace(s.find("{b}"), 3, b);
    return s;
  };
  const std::string step = f == ElemFn::ArgMin ? "cake_argmin_step" : "cake_argmax_step";
  // base=: where the source's indices start along the axis (argmin / argmax)
  const std::string base = arg && op.base ? fmt::format(" + ({})", plan_.expr(op.base)) : "";
  const ir::DType ddt = plan_.refDtype(op.dst);
  const std::string DT = cType(ddt);
  const auto& role = s_.roles[role_];
  const int W = role.warpsPerInstance(), T = W * 32;

  openScope();
  comment(sanitizeComment(fmt::format("{} <- {}({}, axis={}) of a {}x{} tile", op.dst.kind == K::Regs ? s_.regs[op.dst.index].name : "slot",
                                      ir::elemFnName(f), op.src.kind == K::Regs ? s_.regs[op.src.index].name : s_.views[op.src.index].name,
                                      op.axis, st.R, st.C)));
  if (op.src.kind == K::Regs) {
    const Layout* Ls = layoutOf(op.src.index);
    if (!Ls) internalError(op, "a fragment operand without a layout in this role");
    std::string why;
    auto Ld = plan_.layoutFor(Ls->fam, want, &why);
    if (!Ld) internalError(op, why);
    const Dist& keep = rdim == 1 ? Ls->row : Ls->col;
    const Dist& red = rdim == 1 ? Ls->col : Ls->row;
    const std::string src = plan_.regsName(op.src.index);
    const int nk = keep.n, nr = red.n;
    line(fmt::format("float cake_red[{}];", nk));
    if (arg) line(fmt::format("int cake_redi[{}];", nk));
    if (arg) line("(void)cake_red;");
    line("#pragma unroll");
    open(fmt::format("for (int cake_a = 0; cake_a < {}; ++cake_a)", nk));
    line(fmt::format("float cake_v = {};", fn.identity));
    const std::string el = rdim == 1 ? fmt::format("cake_f32({}[cake_a][cake_b])", src)
                                     : fmt::format("cake_f32({}[cake_b][cake_a])", src);
    std::vector<std::string> g;
    if (distGuarded(red)) g.push_back(fmt::format("cake_k < {}", red.E));
    if (distGuarded(keep)) g.push_back(fmt::format("{} < {}", distIndex(keep, "cake_a"), keep.E));
    const std::string guard = g.empty() ? "" : fmt::format("if ({}) ", fmt::join(g, " && "));
    if (arg && g.empty()) {
      // this thread's part of the axis in increasing index order (every
      // distribution's index grows with its slot): the first strictly better
      // element wins, so ties keep the smaller index without comparing
      // indices, and the slot (a constant once unrolled) becomes the index once
      line("int cake_xb = 0;");
      line("#pragma unroll");
      open(fmt::format("for (int cake_b = 0; cake_b < {}; ++cake_b)", nr));
      line(fmt::format("const float cake_e = {};", el));
      line(fmt::format("if (cake_e {} cake_v) {{ cake_v = cake_e; cake_xb = cake_b; }}", f == ElemFn::ArgMin ? "<" : ">"));
      close();
      line(fmt::format("int cake_x = {};  // index along the reduced axis", distIndex(red, "cake_xb")));
    } else if (!arg && g.empty() && nr >= 2 * kReducePartials) {
      // independent partial results, combined at the end: kReducePartials dependency chains
      // instead of one of nr steps (the row max / sum of a 64x128 wgmma tile is 32 per thread)
      const int P = kReducePartials;
      line(fmt::format("float cake_vp[{}];", P));
      line("#pragma unroll");
      line(fmt::format("for (int cake_b = 0; cake_b < {}; ++cake_b) cake_vp[cake_b] = {};", P,
                       rdim == 1 ? fmt::format("cake_f32({}[cake_a][cake_b])", src) : fmt::format("cake_f32({}[cake_b][cake_a])", src)));
      line("#pragma unroll");
      line(fmt::format("for (int cake_b = {}; cake_b < {}; ++cake_b) cake_vp[cake_b % {}] = {};", P, nr, P,
                       comb(fmt::format("cake_vp[cake_b % {}]", P), el)));
      std::vector<std::string> tree;
      for (int q = 0; q < P; ++q) tree.push_back(fmt::format("cake_vp[{}]", q));
      while (tree.size() > 1) {  // pairwise, so the combine is log2(P) deep
        std::vector<std::string> up;
        for (size_t q = 0; q + 1 < tree.size(); q += 2) up.push_back(comb(tree[q], tree[q + 1]));
        if (tree.size() % 2) up.push_back(tree.back());
        tree = up;
      }
      line(fmt::format("cake_v = {};", tree[0]));
    } else {
      if (arg) line("int cake_x = 0x7fffffff;");
      line("#pragma unroll");
      open(fmt::format("for (int cake_b = 0; cake_b < {}; ++cake_b)", nr));
      line(fmt::format("const int cake_k = {};  // index along the reduced axis", distIndex(red, "cake_b")));
      line("(void)cake_k;");
      if (arg) line(fmt::format("{}{}(cake_v, cake_x, {}, cake_k);", guard, step, el));
      else line(fmt::format("{}cake_v = {};", guard, comb("cake_v", el)));
      close();
    }
    const Combine c = combineFor(red, W);
    for (int m : c.masks) {
      if (arg) {
        line(fmt::format("{{ const float cake_o = cake_shfl_xor(cake_v, {0}); const int cake_oi = cake_shfl_xor(cake_x, "
                         "{0}); {1}(cake_v, cake_x, cake_o, cake_oi); }}",
                         m, step));
      } else {
        line(fmt::format("cake_v = {};", comb("cake_v", fmt::format("cake_shfl_xor(cake_v, {})", m))));
      }
    }
    line("cake_red[cake_a] = cake_v;");
    if (arg) line("cake_redi[cake_a] = cake_x;");
    close();
    if (c.warps > 1) {
      if (plan_.roleScratch_[role_] < 0) internalError(op, "no reduction scratch for this role");
      const int B = plan_.scratchSlots_;
      comment(fmt::format("across the {} warps that hold other parts of the axis: through shared memory", c.warps));
      line("#pragma unroll");
      open(fmt::format("for (int cake_b0 = 0; cake_b0 < {}; cake_b0 += {})", nk, B));
      instSync();
      line("#pragma unroll");
      open(fmt::format("for (int cake_b = 0; cake_b < {} && cake_b0 + cake_b < {}; ++cake_b)", B, nk));
      line(fmt::format("const uint32_t cake_p = cake_scratch + ((cake_wwarp * 32 + cake_lane) * {} + cake_b) * 8;", B));
      line("cake_sts<float>(cake_p, cake_red[cake_b0 + cake_b]);");
      if (arg) line("cake_sts<int>(cake_p + 4, cake_redi[cake_b0 + cake_b]);");
      close();
      instSync();
      line("#pragma unroll");
      open(fmt::format("for (int cake_b = 0; cake_b < {} && cake_b0 + cake_b < {}; ++cake_b)", B, nk));
      line(fmt::format("float cake_v = {};", fn.identity));
      if (arg) line("int cake_x = 0x7fffffff;");
      open(fmt::format("for (int cake_g = 0; cake_g < {}; ++cake_g)", c.warps));
      line(fmt::format("const uint32_t cake_p = cake_scratch + (({} * 32 + cake_lane) * {} + cake_b) * 8;", c.warpOf, B));
      if (arg) line(fmt::format("{}(cake_v, cake_x, cake_lds<float>(cake_p), cake_lds<int>(cake_p + 4));", step));
      else line(fmt::format("cake_v = {};", comb("cake_v", "cake_lds<float>(cake_p)")));
      close();
      line("cake_red[cake_b0 + cake_b] = cake_v;");
      if (arg) line("cake_redi[cake_b0 + cake_b] = cake_x;");
      close();
      close();
      instSync();
    }
    const std::string result = arg ? fmt::format("cake_cvti<{}>(cake_redi[cake_a]{})", DT, base)
                                   : fmt::format("cake_cvt<{}>(cake_red[cake_a])", DT);
    // write: the destination's layout keeps the same distribution along the kept axis
    line("#pragma unroll");
    open(fmt::format("for (int cake_a = 0; cake_a < {}; ++cake_a)", nk));
    const std::string kidx = distIndex(keep, "cake_a");
    std::vector<std::string> wg;
    if (distGuarded(keep)) wg.push_back(fmt::format("{} < {}", kidx, keep.E));
    if (op.dst.kind == K::Regs) {
      const Layout* Lr = layoutOf(op.dst.index);
      if (!Lr || !(Lr->fam == Ls->fam))
        internalError(op, "the reduction's destination fragment has another layout than its source");
      if (!wg.empty()) line(fmt::format("if ({})", fmt::join(wg, " && ")));
      const std::string at = rdim == 1 ? "[cake_a][0]" : "[0][cake_a]";
      if (op.src2.kind == K::Regs) {
        // value=: fold this reduction into the running (value, index) pair
        const std::string val = plan_.regsName(op.src2.index);
        openScope();
        line(fmt::format("float cake_bv = cake_f32({}{}); int cake_bi = static_cast<int>({}{});", val, at,
                         plan_.regsName(op.dst.index), at));
        line(fmt::format("{}(cake_bv, cake_bi, cake_red[cake_a], cake_redi[cake_a]{});", step, base));
        line(fmt::format("{}{} = cake_cvt<{}>(cake_bv);", val, at, cType(s_.regs[op.src2.index].dtype)));
        line(fmt::format("{}{} = cake_cvti<{}>(cake_bi);", plan_.regsName(op.dst.index), at, DT));
        close();
      } else {
        line(fmt::format("  {}{} = {};", plan_.regsName(op.dst.index), at, result));
      }
    } else if (op.dst.kind == K::View) {
      if (!op.dst.slices.empty()) internalError(op, "a reduction into a sliced slot");
      const int v = op.dst.index;
      const int eb = ir::dtypeBytes(s_.views[v].dtype);
      const int64_t dc = plan_.viewTile(v).C;
      wg.push_back(canonical(*Ld));
      // the destination's elements in order: element k of the kept axis at flat index k
      line(fmt::format("if ({}) cake_sts<{}>({} + {}, {});", fmt::join(wg, " && "), DT, plan_.viewSlotAddr(op.dst),
                       plan_.viewOffset(v, fmt::format("({}) / {}", kidx, dc), fmt::format("(({}) % {}) * {}", kidx, dc, eb)),
                       result));
    } else {
      internalError(op, "a reduction into this destination");
    }
    close();
    close();
    return;
  }
  // source in shared memory: each destination element reduces its line serially
  if (op.src.kind != K::View) internalError(op, "a reduction of this source");
  const int v = op.src.index;
  const int eb = ir::dtypeBytes(s_.views[v].dtype);
  std::string r0 = "0", c0 = "0";
  if (!op.src.slices.empty() && plan_.viewShape(v).size() == 2) {
    if (op.src.slices[0].lo) r0 = plan_.expr(op.src.slices[0].lo);
    if (op.src.slices.size() > 1 && op.src.slices[1].lo) c0 = plan_.expr(op.src.slices[1].lo);
  } else if (!op.src.slices.empty() && op.src.slices[0].lo) {
    c0 = plan_.expr(op.src.slices[0].lo);
  }
  line(fmt::format("const uint32_t cake_sv = {};", plan_.viewSlotAddr(op.src)));
  const int64_t redN = rdim == 1 ? st.C : st.R;
  auto elem = [&](const std::string& kk) {
    const std::string rr = rdim == 1 ? "cake_kept" : kk, cc = rdim == 1 ? kk : "cake_kept";
    return fmt::format("cake_f32(cake_lds<{}>(cake_sv + {}))", cType(s_.views[v].dtype),
                       plan_.viewOffset(v, fmt::format("{} + {}", r0, rr), fmt::format("({} + {}) * {}", c0, cc, eb)));
  };
  auto body = [&](const std::string& keptExpr, const std::function<void(const std::string&)>& store) {
    line(fmt::format("const int cake_kept = {};", keptExpr));
    line(fmt::format("float cake_v = {};", fn.identity));
    if (arg) line("int cake_x = 0x7fffffff;");
    open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", redN));
    if (arg) line(fmt::format("{}(cake_v, cake_x, {}, cake_k);", step, elem("cake_k")));
    else line(fmt::format("cake_v = {};", comb("cake_v", elem("cake_k"))));
    close();
    store(arg ? fmt::format("cake_cvti<{}>(cake_x{})", DT, base) : fmt::format("cake_cvt<{}>(cake_v)", DT));
  };
  if (op.dst.kind == K::Regs) {
    const Layout* Ld = layoutOf(op.dst.index);
    if (!Ld) internalError(op, "a fragment operand without a layout in this role");
    const Dist& keep = rdim == 1 ? Ld->row : Ld->col;
    line("#pragma unroll");
    open(fmt::format("for (int cake_a = 0; cake_a < {}; ++cake_a)", keep.n));
    if (distGuarded(keep)) open(fmt::format("if ({} < {})", distIndex(keep, "cake_a"), keep.E));
    body(distIndex(keep, "cake_a"), [&](const std::string& r) {
      line(fmt::format("{}[{}][{}] = {};", plan_.regsName(op.dst.index), rdim == 1 ? "cake_a" : "0", rdim == 1 ? "0" : "cake_a",
                       r));
    });
    if (distGuarded(keep)) close();
    close();
  } else if (op.dst.kind == K::View) {
    const int dv = op.dst.index;
    const int deb = ir::dtypeBytes(s_.views[dv].dtype);
    const int64_t dc = plan_.viewTile(dv).C;
    open(fmt::format("for (int cake_a = cake_inst_thread; cake_a < {}; cake_a += {})", rdim == 1 ? st.R : st.C, T));
    body("cake_a", [&](const std::string& r) {
      line(fmt::format("cake_sts<{}>({} + {}, {});", DT, plan_.viewSlotAddr(op.dst),
                       plan_.viewOffset(dv, fmt::format("cake_a / {}", dc), fmt::format("(cake_a % {}) * {}", dc, deb)), r));
    });
    close();
  } else {
    internalError(op, "a reduction into this destination");
  }
  close();
}

// ------------------------------------------------------------ TMEM <-> registers

void Emitter::emitTmemCopy(const ir::Op& op) {
  const bool load = op.src.kind == K::Tmem;
  // lm.tmem_load / lm.tmem_store: no wait here (lm.tmem_*_wait is its own
  // op) and no conversion: the fragment's registers are the operands
  const bool async = op.kind != OpKind::Copy;
  const ir::BufferRef& tm = load ? op.src : op.dst;
  const ir::BufferRef& rg = load ? op.dst : op.src;
  const Layout* L = layoutOf(rg.index);
  if (!L) internalError(op, "a fragment operand without a layout in this role");
  PlanIssue issue;
  const auto tile = plan_.tmemCopyTile(role_, op, *L, &issue);
  if (!tile) internalError(op, issue.message);
  const Tile tt = *tile;
  const int wpi = s_.roles[role_].warpsPerInstance();
  const ir::DType tdt = s_.tmems[tm.index].dtype;
  const std::string x = plan_.regsName(rg.index), T_ = cType(s_.regs[rg.index].dtype);
  openScope();
  if (async)
    comment(fmt::format("{} {} {}: tcgen05.{} 32x32b (in flight until lm.tmem_{}_wait), thread = TMEM lane (row), {} "
                        "lanes x {} columns",
                        sanitizeComment(s_.regs[rg.index].name), load ? "<-" : "->",
                        sanitizeComment(s_.tmems[tm.index].name), load ? "ld" : "st", load ? "load" : "store", tt.R, tt.C));
  else
    comment(fmt::format("{} {} {}: tcgen05.{} 32x32b, thread = TMEM lane (row), {} columns",
                        sanitizeComment(s_.regs[rg.index].name), load ? "<-" : "->",
                        sanitizeComment(s_.tmems[tm.index].name), load ? "ld" : "st", tt.C));
  const int lanesWarps = static_cast<int>(tt.R / 32);
  const bool extra = wpi > lanesWarps;
  // (the comment on a line of its own: open() appends the brace, which a
  // trailing comment would swallow)
  if (extra) {
    comment(fmt::format("the warps that hold the fragment's {} rows", tt.R));
    open(fmt::format("if (cake_wwarp < {})", lanesWarps));
  }
  line(fmt::format("const uint32_t cake_taddr = {} + ((32u * (cake_warp % 4)) << 16);", plan_.tmemAddr(tm, 0)));
  int64_t c0 = 0;
  while (c0 < tt.C) {
    int n = 32;
    while (n > tt.C - c0) n /= 2;
    openScope();
    if (async) {
      line(fmt::format("cake_tmem_{}_x{}(cake_taddr + {}, *reinterpret_cast<{}uint32_t(*)[{}]>(&{}[0][{}]));",
                       load ? "ld" : "st", n, c0, load ? "" : "const ", n, x, c0));
    } else {
      line(fmt::format("uint32_t cake_v[{}];", n));
    }
    if (!async && load) {
      line(fmt::format("cake_tmem_ld_x{}(cake_taddr + {}, cake_v);", n, c0));
      line("cake_tmem_wait_ld();");
      line("#pragma unroll");
      line(fmt::format("for (int e = 0; e < {}; ++e) {}[0][{} + e] = {};", n, x, c0,
                       tdt == ir::DType::F32 ? fmt::format("cake_cvt<{}>(__uint_as_float(cake_v[e]))", T_)
                                             : fmt::format("cake_cvti<{}>(static_cast<int>(cake_v[e]))", T_)));
    } else if (!async) {
      line("#pragma unroll");
      line(fmt::format("for (int e = 0; e < {}; ++e) cake_v[e] = {};", n,
                       tdt == ir::DType::F32 ? fmt::format("__float_as_uint(cake_f32({}[0][{} + e]))", x, c0)
                                             : fmt::format("static_cast<uint32_t>(__float2int_rz(cake_f32({}[0][{} + e])))", x, c0)));
      line(fmt::format("cake_tmem_st_x{}(cake_taddr + {}, cake_v);", n, c0));
      line("cake_tmem_wait_st();");
    }
    close();
    c0 += n;
  }
  if (extra) close();
  close();
}

}  // namespace cake::lowering::detail
