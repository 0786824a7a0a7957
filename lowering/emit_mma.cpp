// Stage 3, MMAs: wgmma (descriptors, helpers), mma.sync (ldmatrix
// fragments), tcgen05.mma (TMEM accumulators), and their commits and waits.
// See emit.h and docs/gpu.md.
#include "lowering/emit.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;

void Emitter::emitMma(const ir::Op& op) {
  auto it = plan_.mma_.find(&op);
  if (it == plan_.mma_.end()) return;
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

void Emitter::emitMmaSync(const ir::Op& op, const MmaPlan& p) {
  // byte column of 16-byte chunk `chunk` of an operand whose column slice
  // starts at element c0 (a k-step range of the slot)
  auto colBytes = [&](int v, int64_t c0, const std::string& chunk) {
    const int64_t off = c0 * ir::dtypeBytes(s_.views[v].dtype);
    return off ? fmt::format("({}) * 16 + {}", chunk, off) : fmt::format("({}) * 16", chunk);
  };
  const Layout* f = layoutOf(op.dst.index);
  if (!f) return;
  const int va = op.src.index, vb = op.src2.index;
  const auto& B = s_.views[vb];
  const std::string aName = p.rs ? s_.regs[va].name : s_.views[va].name;
  const Tile tacc = f->t;
  Tile ta;
  plan_.refTile(op.src, ta);
  const int64_t K = ta.C;
  const int mt = static_cast<int>(tacc.R / p.wm / 16), nt = static_cast<int>(tacc.C / p.wn / 8);
  const std::string acc = plan_.regsName(op.dst.index);
  const std::string aLo = op.src.slices.empty() || !op.src.slices[0].lo ? "0" : plan_.expr(op.src.slices[0].lo);
  const std::string bLo = op.src2.slices.empty() || !op.src2.slices[0].lo ? "0" : plan_.expr(op.src2.slices[0].lo);
  openScope();
  comment(fmt::format("{} {}= {} . {}^T: mma.sync m16n8k16, warp grid {}x{}, warp tile {}x{} ({} x {} tiles)",
                      s_.regs[op.dst.index].name, op.init ? "(init ? 0 : acc) +" : "+", aName, B.name, p.wm, p.wn,
                      tacc.R / p.wm, tacc.C / p.wn, mt, nt));
  if (op.init) {
    open(fmt::format("if ({})", plan_.expr(op.init)));
    line("cake_keep_branch();  // a branch, not a select per accumulator register on every call");
    line("#pragma unroll");
    line(fmt::format("for (int i = 0; i < {}; ++i)", f->NR()));
    line("#pragma unroll");
    line(fmt::format("  for (int j = 0; j < {}; ++j) {}[i][j] = 0.f;", f->NC(), acc));
    close();
  }
  line(fmt::format("const int cake_wrow = (cake_wwarp / {}) * {}, cake_wcol = (cake_wwarp % {}) * {};", p.wn,
                   tacc.R / p.wm, p.wn, tacc.C / p.wn));
  line("(void)cake_wrow; (void)cake_wcol;");
  if (!p.rs) {
    line(fmt::format("const uint32_t cake_a = {}, cake_b = {};", plan_.viewSlotAddr(op.src), plan_.viewSlotAddr(op.src2)));
    line(fmt::format("const int cake_a0 = {}, cake_b0 = {};  // row slices", aLo, bLo));
  } else {
    line(fmt::format("const uint32_t cake_b = {};", plan_.viewSlotAddr(op.src2)));
    line(fmt::format("const int cake_b0 = {};  // row slice", bLo));
  }
  // An operand's ldmatrix rows are this thread's row plus 16 * (the tile), a multiple of 8: where the
  // swizzle repeats every 8 rows of the slot (KernelPlan::viewRowsSplit) the thread's row bytes and swizzle
  // are computed once and each tile's row is a constant, leaving one XOR per k-step (docs/gpu.md, "ldmatrix
  // addresses"). Otherwise each ldmatrix swizzles its own row and column.
  const bool aSplit = !p.rs && plan_.viewRowsSplit(va, 16), bSplit = plan_.viewRowsSplit(vb, 16);
  auto rowSplit = [&](int v, const std::string& pre, const std::string& row) {
    line(fmt::format("const uint32_t {0}r = static_cast<uint32_t>({1}) * {2}u, {0}sw = {3};  // this thread's row, its swizzle",
                     pre, row, plan_.viewRowPitch(v), plan_.viewRowSwizzle(v, pre + "r")));
  };
  if (aSplit) rowSplit(va, "cake_a", "cake_a0 + cake_wrow + cake_lane % 16");
  if (bSplit) rowSplit(vb, "cake_b", "cake_b0 + cake_wcol + cake_lane % 8 + (cake_lane / 16) * 8");
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
  } else {
    const std::string col = colBytes(va, p.ka0, "2 * cake_k + cake_lane / 16");
    line(fmt::format("  cake_ldmatrix_x4(cake_af[i], cake_a + {});",
                     aSplit ? plan_.viewOffsetSplit(va, "cake_ar", "cake_asw", "16 * i", col)
                            : plan_.viewOffset(va, "cake_a0 + cake_wrow + 16 * i + cake_lane % 16", col)));
  }
  line("#pragma unroll");
  line(fmt::format("for (int j = 0; j < {}; ++j)", (nt + 1) / 2));
  const std::string colB = colBytes(vb, p.kb0, "2 * cake_k + (cake_lane / 8) % 2");
  line(fmt::format("  cake_ldmatrix_x4(cake_bf[j], cake_b + {});",
                   bSplit ? plan_.viewOffsetSplit(vb, "cake_br", "cake_bsw", "16 * j", colB)
                          : plan_.viewOffset(vb, "cake_b0 + cake_wcol + 16 * j + cake_lane % 8 + (cake_lane / 16) * 8", colB)));
  line("#pragma unroll");
  line(fmt::format("for (int i = 0; i < {}; ++i)", mt));
  line("#pragma unroll");
  line(fmt::format("  for (int j = 0; j < {}; ++j)", nt));
  line(fmt::format("    cake_mma_16816_{0}({1}[2 * i][2 * j], {1}[2 * i][2 * j + 1], {1}[2 * i + 1][2 * j], "
                   "{1}[2 * i + 1][2 * j + 1], cake_af[i], cake_bf[j / 2][(j % 2) * 2], cake_bf[j / 2][(j % 2) * 2 + 1]);",
                   p.ty, acc));
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
