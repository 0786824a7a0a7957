// Stage 3, MMAs: wgmma (descriptors, helpers), mma.sync (ldmatrix
// fragments), tcgen05.mma (TMEM accumulators), and their commits and waits.
// See emit.h and docs/gpu.md.
#include "lowering/emit.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;

void Emitter::emitMma(const ir::Op& op) {
  auto it = plan_.mma_.find(&op);
  if (it == plan_.mma_.end()) {
    if (op.src2.kind == K::Regs) internalError(op, "an mma on operand fragments without its plan");
    return;
  }
  switch (it->second.kind) {
    case MmaPlan::Wgmma: emitWgmma(op, it->second); break;
    case MmaPlan::MmaSync: emitMmaSync(op, it->second); break;
    case MmaPlan::Tcgen05: emitTcgen05(op, it->second); break;
  }
}

void Emitter::emitWgmma(const ir::Op& op, const MmaPlan& p) {
  const Layout* f = layoutOf(op.dst.index);
  if (!f) return;
  // the operands in the wgmma's roles: transposed (p.trans), b is its A and a its B
  const ir::BufferRef& wa = p.trans ? op.src2 : op.src;
  const ir::BufferRef& wb = p.trans ? op.src : op.src2;
  const int vb = wb.index;
  const auto& B = s_.views[vb];
  const Tile tacc = f->t;
  // the wgmma's M and n (n: the accumulator's column slice when it is sliced)
  const int64_t wm = p.trans ? tacc.C : tacc.R, wn = p.trans ? tacc.R : p.accN ? p.accN : tacc.C;
  Tile ta;
  plan_.refTile(op.src, ta);
  const int64_t K = ta.C;
  const int G = p.G;
  const int mbl = static_cast<int>(wm / (64 * G));  // m64 blocks per warpgroup
  const int modeOf[4] = {0, 3, 2, 1};                    // None, 32B, 64B, 128B -> descriptor mode
  auto modeFor = [&](int v) { return modeOf[plan_.viewSwizzleEff(v) == 128 ? 3 : plan_.viewSwizzleEff(v) == 64 ? 2 : 1]; };
  // byte offset of k-step cake_k (32 B of K) inside a slot: blocked slots hop to the next column block
  auto kOff = [&](int v) {
    const int W = plan_.viewBlock_[v];
    if (!W) return std::string("cake_k * 32");
    return fmt::format("(cake_k * 32 / {}) * {} + (cake_k * 32) % {}", W, plan_.viewTile(v).R * W, W);
  };
  const int modeB = modeFor(vb);
  const int64_t rbB = plan_.viewRowPitch(vb);
  const std::string bLo = wb.slices.empty() || !wb.slices[0].lo ? "0" : plan_.expr(wb.slices[0].lo);
  const int steps = static_cast<int>(K / p.kstep);
  const std::string acc = plan_.regsName(op.dst.index);
  // register half h of m64 block i: the row's registers of the accumulator's
  // columns; for a column slice [acc0, acc0 + n) of the fragment (WgCol: column
  // c's pair at element 2 (c / 8) + c % 2, so acc0 / 4 on), the n / 4 elements
  // from there, as the n-column helper's array
  auto accHalf = [&](int h) {
    if (!p.accN) return fmt::format("{}[{}]", acc, h);
    return fmt::format("reinterpret_cast<float (&)[{}]>({}[{}][{}])", wn / 4, acc, h, p.acc0 / 4);
  };
  const std::string fn = fmt::format("cake_wgmma{}{}_m64n{}k{}_{}", p.rs ? "_rs" : "", p.trans ? "_t" : "", wn, p.kstep, p.ty);
  openScope();
  if (p.trans)
    comment(fmt::format("{} {}= {} . {}^T, transposed: {}^T += {} . {}^T, wgmma m64n{}k{} x {} per warpgroup ({} "
                        "warpgroup{}), {}B swizzle",
                        s_.regs[op.dst.index].name, op.init ? "(init ? 0 : acc) +" : "+", s_.views[op.src.index].name,
                        s_.views[op.src2.index].name, s_.regs[op.dst.index].name, s_.views[op.src2.index].name,
                        s_.views[op.src.index].name, wn, p.kstep, mbl * steps, G, G > 1 ? "s" : "",
                        plan_.viewSwizzleEff(vb)));
  else
    comment(fmt::format("{}{} {}= {} . {}^T: wgmma m64n{}k{} x {} per warpgroup ({} warpgroup{}), {}B swizzle",
                        s_.regs[op.dst.index].name,
                        p.accN ? fmt::format("[:, {}:{}]", p.acc0, p.acc0 + p.accN) : std::string(), op.init ? "(init ? 0 : acc) +" : "+",
                        op.src.kind == K::Regs ? s_.regs[op.src.index].name : s_.views[op.src.index].name, B.name, wn,
                        p.kstep, mbl * steps, G, G > 1 ? "s" : "", plan_.viewSwizzleEff(vb)));
  line(fmt::format("const uint32_t cake_b = {} + ({}) * {};", plan_.viewSlotAddr(wb), bLo, rbB));
  int64_t rbA = 0;
  int modeA = 0;
  if (!p.rs) {
    const int va = wa.index;
    rbA = plan_.viewRowPitch(va);
    modeA = modeFor(va);
    const std::string aLo = wa.slices.empty() || !wa.slices[0].lo ? "0" : plan_.expr(wa.slices[0].lo);
    line(fmt::format("const uint32_t cake_a = {} + ({}) * {};", plan_.viewSlotAddr(wa), aLo, rbA));
  }
  line(fmt::format("const int cake_scale_d = {};", op.init ? "(" + plan_.expr(op.init) + ") ? 0 : 1" : std::string("1")));
  if (G > 1) line("const int cake_wg = cake_wwarp / 4;  // warpgroup within the instance");
  // descriptors of the slots' first k-step, built once; each k-step moves their start address
  line(fmt::format("const uint64_t cake_db = cake_wgmma_desc(cake_b, {}, {});", 8 * rbB, modeB));
  auto rowBlockOf = [&](int i) { return G > 1 ? fmt::format("({} + cake_wg) * 64", i * G) : std::to_string(i * 64); };
  if (!p.rs)
    for (int i = 0; i < mbl; ++i)
      line(fmt::format("const uint64_t cake_da{} = cake_wgmma_desc(cake_a + {} * {}, {}, {});", i, rowBlockOf(i), rbA,
                       8 * rbA, modeA));
  if (p.rs) emitWgmmaRsFragments(op, p, mbl, steps);
  line("cake_wgmma_fence();");
  auto transCall = [&](int i) {  // block i of a transposed wgmma: its template helper, b's descriptor in the A role
    line(fmt::format("{}<{}, {}>({}, cake_wgmma_desc_add(cake_da{}, {}),", fn, i, f->NC(), acc, i, kOff(wa.index)));
  };
  // transposed with a fragment of 32 or more registers a thread: each m64 block of b (a column
  // block of the fragment) through all its k-steps, then the next. Issued k-step by k-step
  // across the blocks (the plain form's order), ptxas serialised every wgmma of such kernels
  // (C7520 "compiler-inserted WG.AR in divergent path": 16x256, 32x128, 32x256 tiles; not at 8
  // or 16 registers: 8x128, 8x256, 16x128), and there that order measured 0.4-0.9 % faster than
  // this one (docs/gpu.md "Decode, ninth pass")
  if (p.trans && tacc.R * tacc.C >= 32 * 128 * G) {
    for (int i = 0; i < mbl; ++i) {
      line("#pragma unroll");
      open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", steps));
      transCall(i);
      line(fmt::format("    cake_wgmma_desc_add(cake_db, {}), cake_k == 0 ? cake_scale_d : 1);", kOff(vb)));
      close();
    }
    close();
    return;
  }
  line("#pragma unroll");
  open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", steps));
  for (int i = 0; i < mbl; ++i) {
    if (p.rs) {
      line(fmt::format("{0}({1}, {2}, cake_ra[cake_k][{3}][0], cake_ra[cake_k][{3}][1], cake_ra[cake_k][{3}][2], "
                       "cake_ra[cake_k][{3}][3],",
                       fn, accHalf(2 * i), accHalf(2 * i + 1), i));
    } else if (p.trans) {
      transCall(i);
    } else {
      line(fmt::format("{}({}, {}, cake_wgmma_desc_add(cake_da{}, {}),", fn, accHalf(2 * i), accHalf(2 * i + 1), i,
                       kOff(wa.index)));
    }
    line(fmt::format("    cake_wgmma_desc_add(cake_db, {}), cake_k == 0 ? cake_scale_d : 1);", kOff(vb)));
  }
  close();
  close();
}

// The A fragments of a register-sourced wgmma, packed (bf16/f16 pairs) into
// cake_ra[k-step][m64 block][4] before the wgmma.fence: every register the
// wgmmas read is then defined before the first one issues. Packing between
// the wgmmas makes ptxas insert its own warpgroup.arrive before each (C7519),
// and where that lands on a divergent path it serialises every wgmma of the
// kernel (C7520: the 3-slot FA3 ring, docs/costmodel.md).
void Emitter::emitWgmmaRsFragments(const ir::Op& op, const MmaPlan& p, int mbl, int steps) {
  const std::string a = plan_.regsName(op.src.index);
  const bool cvt = s_.regs[op.src.index].dtype == ir::DType::F32;
  const std::string et = p.ty == "bf16" ? "__nv_bfloat16" : "__half";
  auto el = [&](int i, int h, int off) {
    const std::string x = fmt::format("{}[{}][4 * cake_k + {}]", a, 2 * i + h, off);
    return cvt ? fmt::format("cake_cvt<{}>({})", et, x) : x;
  };
  line(fmt::format("uint32_t cake_ra[{}][{}][4];  // A fragments, packed before the wgmmas read them", steps, mbl));
  line("#pragma unroll");
  open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", steps));
  for (int i = 0; i < mbl; ++i)
    for (int r = 0; r < 4; ++r) {  // registers: rows g / g+8 (h) of columns 2c (off 0) and 2c+8 (off 2)
      const int h = r % 2, off = 2 * (r / 2);
      line(fmt::format("cake_ra[cake_k][{}][{}] = cake_pack2({}, {});", i, r, el(i, h, off), el(i, h, off + 1)));
    }
  close();
}

// byte column of 16-byte chunk `chunk` of an operand whose column slice starts at element c0 (a k-step
// range of the slot)
std::string Emitter::ldmatrixCol(int v, int64_t c0, const std::string& chunk) const {
  const int64_t off = c0 * ir::dtypeBytes(s_.views[v].dtype);
  return off ? fmt::format("({}) * 16 + {}", chunk, off) : fmt::format("({}) * 16", chunk);
}

// An operand's ldmatrix rows are this thread's row plus 16 * (the tile), a multiple of 8: where the
// swizzle repeats every 8 rows of the slot (KernelPlan::viewRowsSplit) the thread's row bytes and swizzle
// are computed once and each tile's row is a constant, leaving one XOR per k-step (docs/gpu.md, "ldmatrix
// addresses"). Otherwise each ldmatrix swizzles its own row and column.
Emitter::LdmRows Emitter::ldmatrixRows(int v, const std::string& pre, const std::string& base, const std::string& lane) {
  LdmRows r{v, pre, base, lane, plan_.viewRowsSplit(v, 16)};
  if (r.split)
    line(fmt::format("const uint32_t {0}r = static_cast<uint32_t>({1} + {2}) * {3}u, {0}sw = {4};  // this thread's row, its swizzle",
                     pre, base, lane, plan_.viewRowPitch(v), plan_.viewRowSwizzle(v, pre + "r")));
  return r;
}

std::string Emitter::ldmatrixAddr(const LdmRows& r, const std::string& tile, const std::string& colBytes) const {
  return r.split ? plan_.viewOffsetSplit(r.v, r.pre + "r", r.pre + "sw", "16 * " + tile, colBytes)
                 : plan_.viewOffset(r.v, fmt::format("{} + 16 * {} + {}", r.base, tile, r.lane), colBytes);
}

// The ldmatrix operands of an operand-fragment load (one) or of an mma.sync from slots (a unless it comes
// from registers, then b): the same rows and columns that emitFragmentLoad and emitMmaSync address.
std::vector<Emitter::LdmOperand> Emitter::ldmOperands(const ir::Op& op) const {
  std::vector<LdmOperand> out;
  auto rowStart = [&](const ir::BufferRef& ref, bool& constant) {
    const ir::ExprPtr lo = ref.slices.empty() ? nullptr : ref.slices[0].lo;
    constant = !lo || plan_.constOf(lo).has_value();
    return lo ? plan_.expr(lo) : std::string("0");
  };
  auto add = [&](int v, const ir::BufferRef& ref, bool isA, const std::string& warpRow, int64_t c0, int steps) {
    LdmOperand o;
    bool constant = false;
    o.v = v;
    o.row0 = fmt::format("({}) + {}", rowStart(ref, constant), warpRow);
    o.lane = isA ? "cake_lane % 16" : "cake_lane % 8 + (cake_lane / 16) * 8";
    o.chunk = isA ? "2 * {k} + cake_lane / 16" : "2 * {k} + (cake_lane / 8) % 2";
    o.c0 = c0;
    o.steps = steps;
    o.hoist = constant && plan_.viewRowsSplit(v, 16);
    out.push_back(o);
  };
  if (const Layout* l = plan_.operandFragmentLoad(role_, op)) {
    const bool isA = l->fam.operand == Family::OperandA;
    const int64_t perWarp = isA ? l->t.R / l->fam.wm : l->t.R / l->fam.wn;
    const int64_t c0 =
        op.src.slices.size() > 1 && op.src.slices[1].lo ? plan_.constOf(op.src.slices[1].lo).value_or(0) : 0;
    add(op.src.index, op.src, isA,
        isA ? fmt::format("(cake_wwarp / {}) * {}", l->fam.wn, perWarp) : fmt::format("(cake_wwarp % {}) * {}", l->fam.wn, perWarp),
        c0, static_cast<int>(l->t.C / 16));
    return out;
  }
  if (op.kind != OpKind::Mma) return out;
  auto it = plan_.mma_.find(&op);
  const Layout* f = layoutOf(op.dst.index);
  if (it == plan_.mma_.end() || it->second.kind != MmaPlan::MmaSync || it->second.frags || !f) return out;
  const MmaPlan& p = it->second;
  Tile ta;
  plan_.refTile(op.src, ta);
  const int steps = static_cast<int>(ta.C / 16);
  if (!p.rs)
    add(op.src.index, op.src, true, fmt::format("(cake_wwarp / {}) * {}", p.wn, f->t.R / p.wm), p.ka0, steps);
  add(op.src2.index, op.src2, false, fmt::format("(cake_wwarp % {}) * {}", p.wn, f->t.C / p.wn), p.kb0, steps);
  return out;
}

// tile 0's byte offset in the slot at k-step k: this thread's row bytes plus its swizzled column
// (KernelPlan::viewOffsetSplit with no tile term); tile t adds 16 t rows, a constant
std::string Emitter::ldmThreadOffset(const LdmOperand& o, int k) const {
  std::string chunk = o.chunk;
  chunk.replace(chunk.find("{k}"), 3, std::to_string(k));
  const std::string rowBytes = fmt::format("static_cast<uint32_t>({} + {}) * {}u", o.row0, o.lane, plan_.viewRowPitch(o.v));
  return plan_.viewOffsetSplit(o.v, rowBytes, plan_.viewRowSwizzle(o.v, "(" + rowBytes + ")"), "0",
                               ldmatrixCol(o.v, o.c0, chunk));
}

// The per-thread ldmatrix offsets of the role's mma.sync operands, once at the role's start (one per
// distinct operand row, column and k-step): per lm.copy / lm.mma they were a row, a swizzle and a column
// that ptxas recomputed in the k-block loop at 200+ registers (docs/gpu.md "sm_80: the k-block's extra
// instructions"). cake_here keeps nvcc from folding them back into each address.
void Emitter::emitLdmHoists(const std::vector<const ir::RoleBody*>& bodies) {
  ldmHoisted_.clear();
  for (const auto* body : bodies)
    ir::forEachOp(body->body, [&](const Stmt& st) {
      for (const LdmOperand& o : ldmOperands(st.op)) {
        if (!o.hoist) continue;
        for (int k = 0; k < o.steps; ++k) {
          const std::string e = ldmThreadOffset(o, k);
          if (ldmHoisted_.count(e)) continue;
          const std::string n = fmt::format("cake_ldo{}", ldmHoisted_.size());
          ldmHoisted_[e] = n;
          comment(fmt::format("ldmatrix from '{}': this thread's offset in tile 0 (rows from {}) at k-step {} of the "
                              "columns from {}", sanitizeComment(s_.views[o.v].name), o.row0, k, o.c0));
          line(fmt::format("const uint32_t {} = cake_here({});", n, e));
        }
      }
    });
}

bool Emitter::ldmHoistedArray(const LdmOperand& o, const std::string& name) {
  if (!o.hoist) return false;
  std::vector<std::string> names;
  for (int k = 0; k < o.steps; ++k) {
    auto it = ldmHoisted_.find(ldmThreadOffset(o, k));
    if (it == ldmHoisted_.end()) return false;
    names.push_back(it->second);
  }
  line(fmt::format("const uint32_t {}[{}] = {{{}}};  // per k-step, hoisted to the role's start", name, o.steps,
                   fmt::join(names, ", ")));
  return true;
}

// lm.copy(frag, slot) into an mma.sync operand fragment (Family::operand): ldmatrix.x4 per 16 rows of the
// warp's part and k-step, straight into the registers the mma reads (frag[tile][k-step][4]: A's m16 tile,
// or B's pair of n8 tiles). Each warp loads its warp row's rows of A (its warp column's rows of B) and
// every K column, as the mma.sync path from a slot does; the copy is a read of the slot's bytes at its own
// point (the model checker's and the instance-sync planner's copy).
void Emitter::emitFragmentLoad(const ir::Op& op, const Layout& l) {
  const Family& f = l.fam;
  const bool isA = f.operand == Family::OperandA;
  const int v = op.src.index;
  const int64_t perWarp = isA ? l.t.R / f.wm : l.t.R / f.wn;
  const int tiles = static_cast<int>(perWarp / 16), steps = static_cast<int>(l.t.C / 16);
  const std::string name = plan_.regsName(op.dst.index);
  Tile t;
  if (!plan_.refTile(op.src, t) || t.R != l.t.R || t.C != l.t.C || s_.views[v].dtype != s_.regs[op.dst.index].dtype)
    internalError(op, "an operand fragment load that validation did not take");
  const std::string r0 = op.src.slices.empty() || !op.src.slices[0].lo ? "0" : plan_.expr(op.src.slices[0].lo);
  const int64_t c0 = op.src.slices.size() > 1 && op.src.slices[1].lo ? plan_.constOf(op.src.slices[1].lo).value_or(0) : 0;
  openScope();
  comment(fmt::format("{} <- {}: ldmatrix.x4 x {} per warp ({} {} x {} k-steps), mma.sync {}-operand registers",
                      s_.regs[op.dst.index].name, s_.views[v].name, tiles * steps, tiles, isA ? "m16 tiles" : "n16 pairs",
                      steps, isA ? "a" : "b"));
  line(fmt::format("const uint32_t cake_s = {};", plan_.viewSlotAddr(op.src)));
  if (ldmHoistedArray(ldmOperands(op).at(0), "cake_so")) {
    line("#pragma unroll");
    line(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", steps));
    line("#pragma unroll");
    line(fmt::format("  for (int t = 0; t < {}; ++t)", tiles));
    line(fmt::format("    cake_ldmatrix_x4({}[t][cake_k], cake_s + cake_so[cake_k] + static_cast<uint32_t>(16 * t) * {}u);", name,
                     plan_.viewRowPitch(v)));
    close();
    return;
  }
  const std::string w0 = isA ? fmt::format("(cake_wwarp / {}) * {}", f.wn, perWarp) : fmt::format("(cake_wwarp % {}) * {}", f.wn, perWarp);
  const LdmRows rows =
      ldmatrixRows(v, "cake_s", fmt::format("({}) + {}", r0, w0), isA ? "cake_lane % 16" : "cake_lane % 8 + (cake_lane / 16) * 8");
  line("#pragma unroll");
  line(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", steps));
  line("#pragma unroll");
  line(fmt::format("  for (int t = 0; t < {}; ++t)", tiles));
  line(fmt::format("    cake_ldmatrix_x4({}[t][cake_k], cake_s + {});", name,
                   ldmatrixAddr(rows, "t", ldmatrixCol(v, c0, isA ? "2 * cake_k + cake_lane / 16" : "2 * cake_k + (cake_lane / 8) % 2"))));
  close();
}

// An mma.sync with init=(v == lo) in the body of `for v in lm.range(lo, hi, step)`, at the body's top level
// and with no statement before it in the body naming its accumulator, zeroes the accumulator in the first
// iteration and only there: the zeroing is emitted once before the loop, behind `lo < hi` (`>` for a
// negative step: the first iteration runs), and the mma accumulates unconditionally. Same values: in the
// first iteration nothing reads or writes the accumulator between the loop's entry and the mma, and no
// later iteration has v == lo. In the loop it was a branch around 64-128 register zeroings that ptxas may
// if-convert into one predicated instruction per register pair on every k-block (64 CS2R per k-block in
// bench/gpu/schedules/sm80/frag/fragpre_128x128_k64_s3; docs/gpu.md "sm_80: the k-block's extra
// instructions"). CUTLASS clears its accumulators before the mainloop the same way.
void Emitter::emitInitHoists(const Stmt& loop) {
  std::set<int> named;  // accumulators named by a statement before this one in the body
  auto nameRegs = [&](const Stmt& st) {
    auto add = [&](const Stmt& o) {
      for (const auto* r : {&o.op.dst, &o.op.src, &o.op.src2})
        if (r->kind == K::Regs) named.insert(r->index);
    };
    if (st.kind == Stmt::Kind::Op) add(st);
    else { ir::forEachOp(st.body, add); ir::forEachOp(st.orelse, add); }
  };
  auto isFirstIter = [&](const ir::ExprPtr& e) {
    if (!e || e->kind != ir::ExprKind::Eq || e->args.size() != 2) return false;
    for (int i = 0; i < 2; ++i) {
      const ir::Expr &v = *e->args[i], &lo = *e->args[1 - i];
      if (v.kind == ir::ExprKind::LoopVar && v.index == loop.loop_var && ir::sameExpr(lo, *loop.lo)) return true;
    }
    return false;
  };
  const auto step = loop.step ? plan_.constOf(loop.step).value_or(1) : 1;
  for (const Stmt& st : loop.body) {
    if (st.kind == Stmt::Kind::Op && st.op.kind == OpKind::Mma && st.op.dst.kind == K::Regs &&
        !named.count(st.op.dst.index) && isFirstIter(st.op.init)) {
      auto it = plan_.mma_.find(&st.op);
      const Layout* f = layoutOf(st.op.dst.index);
      if (it != plan_.mma_.end() && it->second.kind == MmaPlan::MmaSync && f) {
        initHoisted_.insert(&st.op);
        comment(fmt::format("{}: zeroed once here for the mma with init=({}) in the first iteration of the loop below",
                            s_.regs[st.op.dst.index].name, plan_.pyText(st.op.init)));
        open(fmt::format("if (({}) {} ({}))", plan_.expr(loop.lo), step > 0 ? "<" : ">", plan_.expr(loop.hi)));
        line("#pragma unroll");
        line(fmt::format("for (int i = 0; i < {}; ++i)", f->NR()));
        line("#pragma unroll");
        line(fmt::format("  for (int j = 0; j < {}; ++j) {}[i][j] = 0.f;", f->NC(), plan_.regsName(st.op.dst.index)));
        close();
      }
    }
    nameRegs(st);
  }
}

void Emitter::emitMmaSync(const ir::Op& op, const MmaPlan& p) {
  const Layout* f = layoutOf(op.dst.index);
  if (!f) return;
  const int va = op.src.index, vb = op.src2.index;
  const std::string aName = p.rs || p.frags ? s_.regs[va].name : s_.views[va].name;
  const std::string bName = p.frags ? s_.regs[vb].name : s_.views[vb].name;
  const Tile tacc = f->t;
  Tile ta;
  plan_.refTile(op.src, ta);
  const int64_t K = ta.C;
  const int mt = static_cast<int>(tacc.R / p.wm / 16), nt = static_cast<int>(tacc.C / p.wn / 8);
  const std::string acc = plan_.regsName(op.dst.index);
  const std::string aLo = op.src.slices.empty() || !op.src.slices[0].lo ? "0" : plan_.expr(op.src.slices[0].lo);
  const std::string bLo = op.src2.slices.empty() || !op.src2.slices[0].lo ? "0" : plan_.expr(op.src2.slices[0].lo);
  openScope();
  const bool hoisted = initHoisted_.count(&op) > 0;
  comment(fmt::format("{} {}= {} . {}^T: mma.sync m16n8k16, warp grid {}x{}, warp tile {}x{} ({} x {} tiles){}{}",
                      s_.regs[op.dst.index].name, op.init && !hoisted ? "(init ? 0 : acc) +" : "+", aName, bName, p.wm,
                      p.wn, tacc.R / p.wm, tacc.C / p.wn, mt, nt, p.frags ? ", operands from their fragments" : "",
                      hoisted ? "; init= zeroed before the loop" : ""));
  if (op.init && !hoisted) {
    open(fmt::format("if ({})", plan_.expr(op.init)));
    line("cake_keep_branch();  // a branch, not a select per accumulator register on every call");
    line("#pragma unroll");
    line(fmt::format("for (int i = 0; i < {}; ++i)", f->NR()));
    line("#pragma unroll");
    line(fmt::format("  for (int j = 0; j < {}; ++j) {}[i][j] = 0.f;", f->NC(), acc));
    close();
  }
  // the n8 tiles of a warp tile's m16 row in serpentine order: j from 0 up on even rows and from nt - 1 down
  // on odd ones (CUTLASS's MmaTensorOp order), so that each row's first mma.sync takes the B registers of the
  // previous row's last (ptxas marks them .reuse: an operand-cache hit where the row-major order had none).
  // The same mma.sync on the same registers, in another order; no two of them share an accumulator. For the
  // sm_80 mma whose operands are register fragments, where it was timed faster (+0.004 to +0.005 of cuBLAS for
  // fragsp01); an mma that loads its own fragments keeps the row-major order (0.003 to 0.005 slower
  // serpentine), as do the mma.sync of sm_90a / sm_100a kernels. docs/gpu.md "sm_80: serpentine mma order and
  // copy placement" (session 20).
  const bool serp = s_.target == ir::Target::SM80 && p.frags && mt > 1 && nt > 1;
  const std::string jj = serp ? "cake_sj" : "j";
  auto mmaLine = [&](const std::string& af, const std::string& bf0) {
    std::string bf = bf0;
    if (const size_t at = bf.find("[j / 2]"); serp && at != std::string::npos) bf.replace(at, 7, "[cake_sj / 2]");
    if (serp) line(fmt::format("  {{ const int cake_sj = (i % 2) ? {} - j : j;", nt - 1));
    line(fmt::format("    cake_mma_16816_{0}({1}[2 * i][2 * {4}], {1}[2 * i][2 * {4} + 1], {1}[2 * i + 1][2 * {4}], "
                     "{1}[2 * i + 1][2 * {4} + 1], {2}, {3}[({4} % 2) * 2], {3}[({4} % 2) * 2 + 1]);{5}",
                     p.ty, acc, af, bf, jj, serp ? " }" : ""));
  };
  if (p.frags) {
    // both operands already in their ldmatrix registers (emitFragmentLoad): [tile][k-step][4]
    const std::string a = plan_.regsName(va), b = plan_.regsName(vb);
    line("#pragma unroll");
    open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", K / 16));
    line("#pragma unroll");
    line(fmt::format("for (int i = 0; i < {}; ++i)", mt));
    line("#pragma unroll");
    line(fmt::format("  for (int j = 0; j < {}; ++j)", nt));
    mmaLine(fmt::format("{}[i][cake_k]", a), fmt::format("{}[j / 2][cake_k]", b));
    close();
    close();
    return;
  }
  line(fmt::format("const int cake_wrow = (cake_wwarp / {}) * {}, cake_wcol = (cake_wwarp % {}) * {};", p.wn,
                   tacc.R / p.wm, p.wn, tacc.C / p.wn));
  line("(void)cake_wrow; (void)cake_wcol;");
  if (!p.rs) {
    line(fmt::format("const uint32_t cake_a = {}, cake_b = {};", plan_.viewSlotAddr(op.src), plan_.viewSlotAddr(op.src2)));
    line(fmt::format("const int cake_a0 = {}, cake_b0 = {};  // row slices", aLo, bLo));
    line("(void)cake_a0; (void)cake_b0;");
  } else {
    line(fmt::format("const uint32_t cake_b = {};", plan_.viewSlotAddr(op.src2)));
    line(fmt::format("const int cake_b0 = {};  // row slice", bLo));
    line("(void)cake_b0;");
  }
  const std::vector<LdmOperand> ops = ldmOperands(op);
  const bool aHoist = !p.rs && ldmHoistedArray(ops.at(0), "cake_ao"), bHoist = ldmHoistedArray(ops.back(), "cake_bo");
  LdmRows aRows, bRows;
  if (!p.rs && !aHoist) aRows = ldmatrixRows(va, "cake_a", "cake_a0 + cake_wrow", "cake_lane % 16");
  if (!bHoist) bRows = ldmatrixRows(vb, "cake_b", "cake_b0 + cake_wcol", "cake_lane % 8 + (cake_lane / 16) * 8");
  line("#pragma unroll");
  open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", K / 16));
  line(fmt::format("uint32_t cake_af[{}][4], cake_bf[{}][4];", mt, (nt + 1) / 2));
  line("#pragma unroll");
  line(fmt::format("for (int i = 0; i < {}; ++i)", mt));
  if (p.rs) {
    // A from the fragment: its mma.sync layout (one warp column) is the m16n8k16 A layout, pairs packed
    const std::string a = plan_.regsName(va);
    const bool cvt = s_.regs[va].dtype == ir::DType::F32;
    const std::string et = p.ty == "bf16" ? "__nv_bfloat16" : "__half";
    auto el = [&](const std::string& i, const std::string& j) {
      const std::string x = fmt::format("{}[{}][{}]", a, i, j);
      return cvt ? fmt::format("cake_cvt<{}>({})", et, x) : x;
    };
    auto pk = [&](const std::string& i, int off) {
      return fmt::format("cake_pack2({}, {})", el(i, fmt::format("4 * cake_k + {}", off)),
                         el(i, fmt::format("4 * cake_k + {}", off + 1)));
    };
    line(fmt::format("  cake_af[i][0] = {}, cake_af[i][1] = {}, cake_af[i][2] = {}, cake_af[i][3] = {};",
                     pk("2 * i", 0), pk("2 * i + 1", 0), pk("2 * i", 2), pk("2 * i + 1", 2)));
  } else if (aHoist) {
    line(fmt::format("  cake_ldmatrix_x4(cake_af[i], cake_a + cake_ao[cake_k] + static_cast<uint32_t>(16 * i) * {}u);",
                     plan_.viewRowPitch(va)));
  } else {
    line(fmt::format("  cake_ldmatrix_x4(cake_af[i], cake_a + {});",
                     ldmatrixAddr(aRows, "i", ldmatrixCol(va, p.ka0, "2 * cake_k + cake_lane / 16"))));
  }
  line("#pragma unroll");
  line(fmt::format("for (int j = 0; j < {}; ++j)", (nt + 1) / 2));
  if (bHoist)
    line(fmt::format("  cake_ldmatrix_x4(cake_bf[j], cake_b + cake_bo[cake_k] + static_cast<uint32_t>(16 * j) * {}u);",
                     plan_.viewRowPitch(vb)));
  else
    line(fmt::format("  cake_ldmatrix_x4(cake_bf[j], cake_b + {});",
                     ldmatrixAddr(bRows, "j", ldmatrixCol(vb, p.kb0, "2 * cake_k + (cake_lane / 8) % 2"))));
  line("#pragma unroll");
  line(fmt::format("for (int i = 0; i < {}; ++i)", mt));
  line("#pragma unroll");
  line(fmt::format("  for (int j = 0; j < {}; ++j)", nt));
  mmaLine("cake_af[i]", "cake_bf[j / 2]");
  close();
  close();
}

void Emitter::emitTcgen05(const ir::Op& op, const MmaPlan& p) {
  const int va = op.src.index, vb = op.src2.index;
  const auto &A = s_.views[va], &B = s_.views[vb];
  Tile ta, tb;
  plan_.refTile(op.src, ta);
  plan_.refTile(op.src2, tb);
  const int64_t M = ta.R, N = tb.R, K = ta.C;
  auto layoutOf = [&](int v) { return plan_.viewSwizzleEff(v) == 128 ? 2 : plan_.viewSwizzleEff(v) == 64 ? 4 : 6; };
  auto kOff = [&](int v) {
    const int W = plan_.viewBlock_[v];
    if (!W) return std::string("cake_k * 32");
    return fmt::format("(cake_k * 32 / {}) * {} + (cake_k * 32) % {}", W, plan_.viewTile(v).R * W, W);
  };
  const int64_t rbA = plan_.viewRowPitch(va), rbB = plan_.viewRowPitch(vb);
  // instruction descriptor: D f32 (bit 4), A/B format, K-major both, N >> 3 at 17, M >> 4 at 24
  int fmtAB = 0;
  std::string kind = "f16";
  if (p.ty == "bf16") fmtAB = 1;
  if (p.ty == "tf32") fmtAB = 2, kind = "tf32";
  if (p.ty == "e4m3") fmtAB = 0, kind = "f8f6f4";
  if (p.ty == "e5m2") fmtAB = 1, kind = "f8f6f4";
  const uint32_t idesc = (1u << 4) | (static_cast<uint32_t>(fmtAB) << 7) | (static_cast<uint32_t>(fmtAB) << 10) |
                         (static_cast<uint32_t>(N >> 3) << 17) | (static_cast<uint32_t>(M >> 4) << 24);
  const std::string aLo = op.src.slices.empty() || !op.src.slices[0].lo ? "0" : plan_.expr(op.src.slices[0].lo);
  const std::string bLo = op.src2.slices.empty() || !op.src2.slices[0].lo ? "0" : plan_.expr(op.src2.slices[0].lo);
  elected([&] {
    openScope();
    comment(fmt::format("{} {}= {} . {}^T: tcgen05.mma.cta_group::1.kind::{} M={} N={}, {} steps of K={}",
                        s_.tmems[op.dst.index].name, op.init ? "(init ? 0 : acc) +" : "+", A.name, B.name, kind, M, N,
                        K / p.kstep, p.kstep));
    line(fmt::format("const uint32_t cake_a = {} + ({}) * {}, cake_b = {} + ({}) * {};", plan_.viewSlotAddr(op.src), aLo, rbA,
                     plan_.viewSlotAddr(op.src2), bLo, rbB));
    line(fmt::format("const uint32_t cake_d = {};", plan_.tmemAddr(op.dst, 0)));
    line(fmt::format("const int cake_acc = {};", op.init ? "(" + plan_.expr(op.init) + ") ? 0 : 1" : std::string("1")));
    line("#pragma unroll");
    line(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", K / p.kstep));
    line(fmt::format("  cake_umma_{}(cake_d, cake_umma_desc(cake_a + {}, {}, {}), cake_umma_desc(cake_b + {}, {}, {}), "
                     "0x{:08x}u, cake_k == 0 ? cake_acc : 1);",
                     kind, kOff(va), 8 * rbA, layoutOf(va), kOff(vb), 8 * rbB, layoutOf(vb), idesc));
    close();
  });
}

void Emitter::emitMmaCommit(const ir::Op& op) {
  bool wgmmaRole = false, tcRole = false;
  for (const auto& body : s_.bodies)
    if (body.role == role_)
      ir::forEachOp(body.body, [&](const Stmt& st) {
        auto it = plan_.mma_.find(&st.op);
        if (it == plan_.mma_.end()) return;
        wgmmaRole = wgmmaRole || it->second.kind == MmaPlan::Wgmma;
        tcRole = tcRole || it->second.kind == MmaPlan::Tcgen05;
      });
  if (op.kind == OpKind::MmaWait) {
    const int64_t n = op.pending ? plan_.constOf(op.pending).value_or(0) : 0;
    if (wgmmaRole)
      line(fmt::format("cake_wgmma_wait<{}>();", n));
    else
      comment(tcRole ? "mma_wait: tcgen05 MMAs complete through their commit barrier" : "mma_wait: mma.sync is synchronous");
    return;
  }
  if (plan_.target_ == ir::Target::SM100a && op.barrier >= 0) {
    elected([&] { line(fmt::format("cake_umma_commit({});", barSlotAddr(op.barrier, op.sel))); });
    return;
  }
  if (wgmmaRole) line("cake_wgmma_commit();");
  if (op.barrier >= 0) {
    if (wgmmaRole) {
      comment("a wgmma group cannot arrive on an mbarrier: retire it, then arrive");
      line("cake_wgmma_wait<0>();");
    } else {
      comment("mma.sync is synchronous: the group is complete, arrive now");
    }
    ir::Op a = op;
    a.kind = OpKind::Arrive;
    a.count = nullptr;
    emitArrive(a, 0, false);
  } else if (!wgmmaRole) {
    comment(tcRole ? "mma_commit without a barrier: nothing to arrive on" : "mma_commit: mma.sync is synchronous");
  }
}

}  // namespace cake::lowering::detail
