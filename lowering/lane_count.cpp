#include "lowering/lane_count.h"

#include <cmath>

#include "lowering/reduce_chain.h"

#include <algorithm>
#include <optional>

namespace cake::lowering {

using K = ir::BufferRef::Kind;
using ir::ElemFn;
using ir::OpKind;

namespace {

// The element type an operand holds in memory or registers; a tensor
// parameter's type comes from the workload's binding, not the schedule:
// unknown here (nullopt), and its element loads are counted without a
// conversion.
std::optional<ir::DType> refType(const ir::Schedule& s, const ir::BufferRef& r) {
  switch (r.kind) {
    case K::View: return s.views.at(r.index).dtype;
    case K::Regs: return s.regs.at(r.index).dtype;
    case K::Tmem: return s.tmems.at(r.index).dtype;
    case K::Scalar: return ir::DType::F32;
    default: return std::nullopt;
  }
}

bool narrowFloat(std::optional<ir::DType> d) {
  return d && (*d == ir::DType::BF16 || *d == ir::DType::F16 || *d == ir::DType::E4M3 || *d == ir::DType::E5M2);
}

bool inMemory(const ir::BufferRef& r) { return r.kind == K::View || r.kind == K::Param; }

// Reading one source element: a shared / global load (ld.shared, ld.global)
// and, for a narrow float, its widening to f32 (cake_f32: a shift or PRMT).
double readLanes(const ir::Schedule& s, const ir::BufferRef& r) {
  if (r.kind == K::None || r.kind == K::Scalar) return 0;
  return (inMemory(r) ? 1.0 : 0.0) + (narrowFloat(refType(s, r)) ? 1.0 : 0.0);
}

// Writing one element to memory: the store (pairs of 2- and 4-byte elements
// go out as one 32- / 64-bit store, cake_sts_pair) and the narrowing.
double writeLanes(const ir::Schedule& s, const ir::Op& op) {
  if (!inMemory(op.dst)) return 0;
  const auto d = refType(s, op.dst);
  bool pairs = false;  // a fragment's rows of an even width go out in pairs
  if (op.kind == OpKind::Copy && op.src.kind == K::Regs) {
    const auto& shape = s.regs.at(op.src.index).shape;
    const int64_t width = shape.empty() ? 1 : ir::constValue(shape.back()).value_or(1);
    pairs = width >= 2 && width % 2 == 0;
  }
  const double store = pairs ? 0.5 : 1.0;
  return store + (narrowFloat(d) ? 1.0 : 0.0);
}

// ptxas's IEEE sequences (no fast-math): 1.f / x and a / b are a MUFU.RCP
// with two Newton FFMAs, a residual FFMA and the range check around them;
// sqrtf a MUFU.RSQ with the same kind of refinement.
constexpr double kIeeeRefine = 6;

LaneCount unaryLanes(ElemFn f) {
  switch (f) {
    case ElemFn::Exp2: return {0, 1};             // ex2.approx.ftz.f32: one MUFU.EX2 (cake_exp2)
    case ElemFn::Rsqrt: return {0, 1};            // rsqrtf: MUFU.RSQ
    case ElemFn::Recip: return {kIeeeRefine, 1};  // (1.f / x)
    case ElemFn::Sqrt: return {kIeeeRefine, 1};   // sqrtf
    default: return {1, 0};                       // neg, abs, relu: one FADD / FMNMX / IMNMX
  }
}

// Lanes of a row that a fragment's reduction combines across with
// shuffles: an MMA-anchored fragment (an lm.mma operand) spreads a row
// over the 4 lanes of a quad (two shuffle steps), a generic one over the
// warp (five).
bool mmaAnchored(const ir::Schedule& s, int regs) {
  bool found = false;
  for (const ir::RoleBody& rb : s.bodies)
    ir::forEachOp(rb.body, [&](const ir::Stmt& st) {
      if (st.op.kind == OpKind::Mma)
        for (const ir::BufferRef* r : {&st.op.dst, &st.op.src})
          if (r->kind == K::Regs && r->index == regs) found = true;
    });
  return found;
}

// The reduced extent of a fragment reduction's source and
// whether the fragment is MMA-anchored (a row over 4 lanes, else 32).
struct ReducedRow {
  int64_t extent = 1;
  bool anchored = false;
};
std::optional<ReducedRow> reducedRow(const ir::Schedule& s, const ir::Op& op) {
  if (op.kind != OpKind::Reduce || op.src.kind != K::Regs) return std::nullopt;
  const auto& shape = s.regs.at(op.src.index).shape;
  const int red = op.axis >= 0 && op.axis < static_cast<int>(shape.size()) ? op.axis : static_cast<int>(shape.size()) - 1;
  ReducedRow r;
  r.extent = shape.empty() ? 1 : ir::constValue(shape[red]).value_or(1);
  r.anchored = mmaAnchored(s, op.src.index);
  return r;
}

double reduceLanes(const ir::Schedule& s, const ir::Op& op) {
  const bool arg = op.fn == ElemFn::ArgMin || op.fn == ElemFn::ArgMax;
  // per element: one FADD / FMNMX; argmin's scan in index order is a
  // compare and two selects (value, index: emitReduce's ordered scan)
  const double step = arg ? 3.0 : 1.0;
  double lanes = step + readLanes(s, op.src);
  // the shuffle tree per row: per step a SHFL (two for argmin: value and
  // index) and the combine (cake_argmin_step: compare, tie-break, 2 selects),
  // shared by the row's elements this lane holds
  if (auto rs = reducedRow(s, op)) {
    const int64_t extent = rs->extent;
    const bool anchored = rs->anchored;
    const double lanes_per_row = anchored ? 4 : 32, steps = anchored ? 2 : 5;
    const double per_lane = std::max(1.0, static_cast<double>(extent) / lanes_per_row);
    if (extent > 1) lanes += steps * (arg ? 2 + 4 : 1 + 1) / per_lane;
  }
  return lanes;
}

}  // namespace

ReduceChain reduceChain(const ir::Schedule& s, const ir::Op& op) {
  ReduceChain c;
  const auto rs = reducedRow(s, op);
  if (!rs) return c;
  const bool arg = op.fn == ElemFn::ArgMin || op.fn == ElemFn::ArgMax;
  const double lanes_per_row = rs->anchored ? 4 : 32;
  // elements of a row one thread holds (the emitter's nr)
  const double nr = std::ceil(static_cast<double>(rs->extent) / lanes_per_row);
  if (arg) c.alu_steps = 2 * nr;  // compare, then the selects it predicates
  else if (nr >= 2 * kReducePartials) c.alu_steps = std::ceil(nr / kReducePartials) + std::log2(kReducePartials);
  else c.alu_steps = nr;
  if (rs->extent > 1) {
    c.shuffles = rs->anchored ? 2 : 5;
    c.alu_steps += c.shuffles * (arg ? 3 : 1);
  }
  return c;
}

bool convertsInPairs(ir::DType to) { return to == ir::DType::BF16 || to == ir::DType::F16; }

LaneCount elementLanes(const ir::Schedule& s, const ir::Op& op) {
  LaneCount c;
  switch (op.kind) {
    case OpKind::Fill: c.alu = 1 + writeLanes(s, op); break;  // a MOV of the constant
    case OpKind::Copy: {
      const auto from = refType(s, op.src), to = refType(s, op.dst);
      if (op.src.kind == K::Regs && op.dst.kind == K::Regs) {
        // register -> register: a conversion (in pairs, cvtPairs of emitElementwise) or a move
        const bool intc = to == ir::DType::I32 && (from == ir::DType::I32 || from == ir::DType::I8);
        c.alu = (!intc && to && convertsInPairs(*to) ? 0.5 : 1.0) + (narrowFloat(from) ? 1.0 : 0.0);
      } else {
        c.alu = readLanes(s, op.src) + writeLanes(s, op);
        // register -> memory of a narrow float: the emitter's pairs convert each element
        // (cake_cvt) and pack two (one PRMT) before the one store
        if (op.src.kind == K::Regs && inMemory(op.dst) && narrowFloat(to)) c.alu += 0.5;
      }
      break;
    }
    case OpKind::Unary:
      c = unaryLanes(op.fn);
      c.alu += readLanes(s, op.src) + writeLanes(s, op);
      break;
    case OpKind::Binary: {
      const bool div = op.fn == ElemFn::Div;
      c.alu = (div ? kIeeeRefine : 1.0) + readLanes(s, op.src) + readLanes(s, op.src2) + writeLanes(s, op);
      c.mufu = div ? 1 : 0;
      break;
    }
    case OpKind::Reduce: c.alu = reduceLanes(s, op); break;
    default: break;
  }
  return c;
}

bool contractsInto(const ir::Op& mul, const ir::Op& next) {
  if (mul.kind != OpKind::Binary || mul.fn != ElemFn::Mul || mul.dst.kind != K::Regs) return false;
  if (next.kind != OpKind::Binary || (next.fn != ElemFn::Add && next.fn != ElemFn::Sub)) return false;
  const auto same = [&](const ir::BufferRef& r) { return r.kind == K::Regs && r.index == mul.dst.index; };
  return same(next.dst) && (same(next.src) || same(next.src2));
}

double slotLanes(int stages, bool parity) {
  if (stages <= 1) return parity ? 1 : 0;
  const bool pow2 = (stages & (stages - 1)) == 0;
  return (pow2 ? 1.0 : 3.0) + (parity ? 1.0 : 0.0);
}

}  // namespace cake::lowering
