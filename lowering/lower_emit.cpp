// The kernel: roles, synchronisation, TMA, cp.async, MMAs. See docs/gpu.md.
#include <algorithm>
#include <random>

#include "lowering/lower_internal.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;

// ------------------------------------------------------------ addresses

std::string Lowering::slotOf(const ir::ExprPtr& e, int stages) const {
  if (stages == 1 || !e) return "0";
  if (auto c = constOf(e)) return std::to_string(((*c % stages) + stages) % stages);
  if (nonneg(*e)) return "(" + expr(e) + ") % " + std::to_string(stages);
  return "cake_mod(" + expr(e) + ", " + std::to_string(stages) + ")";
}

std::string Lowering::viewSlotAddr(const ir::BufferRef& ref) const {
  const int v = ref.index;
  const int stages = s_.views[v].stages;
  if (stages == 1 || !ref.slot) return viewName(v);
  return "(" + viewName(v) + " + " + std::to_string(viewSlotBytes(v)) + " * (" + slotOf(ref.slot, stages) + "))";
}

std::string Lowering::barSlotAddr(int b, const ir::SlotSel& sel, const ir::SourceRange& r) {
  const int count = s_.barriers[b].count;
  if (count == 1 || sel.mode == ir::SlotSel::Mode::None) {
    if (count > 1)
      error("lower.unsupported", r, fmt::format("barrier '{}' has {} slots: name one with iter= or stage=",
                                                s_.barriers[b].name, count));
    return barName(b);
  }
  return "(" + barName(b) + " + 8 * (" + slotOf(sel.index, count) + "))";
}

// ------------------------------------------------------------ instance syncs

bool Lowering::multiThread() const { return !single_; }

void Lowering::elected(const std::function<void()>& body) {
  if (single_) {
    body();
    return;
  }
  open("if (cake_elected)");
  body();
  close();
}

void Lowering::instSync() {
  const auto& role = s_.roles[role_];
  if (single_) return;
  if (role.warpsPerInstance() == 1)
    line("__syncwarp();");
  else if (roleInstBar_[role_] < 0)
    line("__syncthreads();  // the instance is the whole block");
  else
    line(fmt::format("cake_bar_sync(cake_inst_bar, {});  // this instance's {} threads", role.warpsPerInstance() * 32,
                     role.warpsPerInstance() * 32));
}

// ------------------------------------------------------------ blocks

std::map<size_t, int64_t> Lowering::derivedTx(const ir::Block& b) const {
  // derived expect_tx (ir/expect_tx.h): one arrive.expect_tx right before
  // the first load of each batch of the plan, for the bytes of all of them
  std::map<size_t, int64_t> txBefore;
  for (size_t i = 0; i < b.size(); ++i) {
    const ir::TxBatch* batch = txPlan_.headedBy(&b[i]);
    if (!batch) continue;
    int64_t bytes = 0;
    for (const Stmt* load : batch->loads) bytes += viewSlotBytes(load->op.dst.index);
    txBefore[i] = bytes;
  }
  return txBefore;
}

void Lowering::walkBlock(const ir::Block& b) {
  const auto txBefore = derivedTx(b);
  for (size_t i = 0; i < b.size(); ++i) {
    const Stmt& s = b[i];
    if (s.kind == Stmt::Kind::For) {
      const std::string v = loopNames_[s.loop_var];
      const auto step = s.step ? constOf(s.step).value_or(1) : 1;
      const std::string cmp = step > 0 ? "<" : ">";
      const std::string inc = step == 1 ? "++" + v : fmt::format("{} += {}", v, step);
      open(fmt::format("for (int {0} = {1}; {0} {2} {3}; {4})", v, expr(s.lo), cmp, expr(s.hi), inc));
      walkBlock(s.body);
      close();
      continue;
    }
    if (s.kind == Stmt::Kind::If) {
      open(fmt::format("if ({})", expr(s.cond)));
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
    if (syncBefore_.count(&s)) {
      comment("threads of this instance touched these buffers since its last sync");
      instSync();
    }
    emitOp(s.op);
  }
}

// ------------------------------------------------------------ sync ops

void Lowering::tcFenceBefore() {
  if (usesTmem_) line("cake_tc_fence_before();");
}
void Lowering::tcFenceAfter() {
  if (usesTmem_) line("cake_tc_fence_after();");
}

void Lowering::emitWait(const ir::Op& op) {
  const int b = op.barrier;
  const auto& bar = s_.barriers[b];
  const auto& sel = op.sel;
  const std::string bn = barName(b);
  if (sel.mode == ir::SlotSel::Mode::Iter) {
    const auto& e = sel.index;
    const std::string es = expr(e);
    const std::string cnt = std::to_string(bar.count);
    auto waitLine = [&](const std::string& idx) {
      const std::string slot = bar.count == 1 ? "0" : "(" + idx + ") % " + cnt;
      const std::string parity = bar.count == 1 ? "(" + idx + ") & 1" : "((" + idx + ") / " + cnt + ") & 1";
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), {});", bn, slot, parity));
      tcFenceAfter();
    };
    if (auto c = constOf(e)) {
      if (*c < 0) {
        comment(fmt::format("wait({}, iter={}): a negative iteration passes at once", bar.name, *c));
        return;
      }
      waitLine(std::to_string(*c));
    } else if (nonneg(*e)) {
      waitLine(es);
    } else {
      comment(fmt::format("wait({}, iter={}): slot = iter % {}, phase = iter // {}; iter < 0 passes at once",
                          bar.name, pyText(e), bar.count, bar.count));
      open(fmt::format("if ({} >= 0)", es));
      waitLine(es);
      close();
    }
    return;
  }
  if (sel.mode == ir::SlotSel::Mode::Stage) {
    const std::string slot = slotOf(sel.index, bar.count);
    if (sel.phase) {
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), ({}) & 1);", bn, slot, expr(sel.phase)));
    } else {
      comment(fmt::format("wait({}, stage={}): phase = this instance's earlier waits on the slot (bit per slot)",
                          bar.name, pyText(sel.index)));
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), (cake_phase_{} >> ({})) & 1u);", bn, slot, bn, slot));
      line(fmt::format("cake_phase_{} ^= 1u << ({});", bn, slot));
    }
    tcFenceAfter();
    return;
  }
  // no selector: a one-slot barrier (phase bit of slot 0 unless phase= is given)
  if (sel.phase) {
    line(fmt::format("cake_mbar_wait({}, ({}) & 1);", bn, expr(sel.phase)));
  } else {
    line(fmt::format("cake_mbar_wait({}, cake_phase_{} & 1u);", bn, bn));
    line(fmt::format("cake_phase_{} ^= 1u;", bn));
  }
  tcFenceAfter();
}

// One instance-arrive on barrier b (worth barWeight_[b] hardware arrivals).
void Lowering::emitArrive(const ir::Op& op, int64_t tx_bytes, bool explicit_tx) {
  const int b = op.barrier;
  const auto& role = s_.roles[role_];
  const int w = barWeight_[b];
  const std::string addr = barSlotAddr(b, op.sel, op.range);
  const int64_t count = op.count ? constOf(op.count).value_or(1) : 1;
  tcFenceBefore();
  if (tx_bytes > 0 || explicit_tx) {
    // expect_tx: the arrival is the elected thread's
    elected([&] {
      if (explicit_tx)
        line(fmt::format("cake_mbar_arrive_expect_tx({}, {});", addr, expr(op.bytes)));
      else
        line(fmt::format("cake_mbar_arrive_expect_tx({}, {});  // derived: the bytes of the TMA loads below", addr,
                         tx_bytes));
      if (w > 1) line(fmt::format("cake_mbar_arrive({}, {});", addr, w - 1));
    });
    return;
  }
  if (single_ || role.warpsPerInstance() == 1 || w == 1) {
    if (!single_) line("__syncwarp();");
    if (!single_ && role.warpsPerInstance() > 1) instSync();
    elected([&] { line(fmt::format("cake_mbar_arrive({}, {});", addr, count * w)); });
  } else {
    // each warp of the instance arrives once it is done: count * weight / warps each
    const int per = static_cast<int>(count * w / role.warpsPerInstance());
    comment(fmt::format("one arrival per warp ({} warps x {} = {} = the instance's arrive)", role.warpsPerInstance(),
                        per, count * w));
    line("__syncwarp();");
    line(fmt::format("if (cake_lane == 0) cake_mbar_arrive({}, {});", addr, per));
  }
}

// ------------------------------------------------------------ TMA, cp.async


// ", c_last, ..., c_0": the TMA coordinates (innermost first) of box `blk`
// of a slot blocked into `W`-byte column boxes.
std::string Lowering::tmaBoxCoords(const ir::Op& op, int v, int blk, int W) {
  std::string coords;
  for (size_t i = op.coords.size(); i-- > 0;) {
    std::string c = expr(op.coords[i]);
    if (blk && i + 1 == op.coords.size()) c = fmt::format("{} + {}", c, blk * W / ir::dtypeBytes(s_.views[v].dtype));
    coords += ", " + c;
  }
  return coords;
}

// The CTAs of a 2-D grid run in launch order (x fastest). Walking x (the
// first block coordinate, the M tiles of a GEMM) in groups of 8 keeps the
// CTAs that run together on a few rows of A and columns of B, so they hit
// in L2. The map is a bijection of the grid onto itself and the CTAs of a
// schedule never communicate, so every CTA still runs exactly the
// verified program for its (lm.block_idx(0), lm.block_idx(1)).
void Lowering::emitRaster() {
  if (!raster_) return;
  comment("CTA order: groups of 8 lm.block_idx(0) values, lm.block_idx(1) inside a group (L2 reuse)");
  comment("64-bit: gridDim.x * gridDim.y may pass 2^31");
  line("const unsigned long long cake_blin = blockIdx.x + 1ull * gridDim.x * blockIdx.y;");
  line("const unsigned long long cake_bgrp = 8ull * gridDim.y;  // blocks per group");
  line("const unsigned cake_bx0 = static_cast<unsigned>(cake_blin / cake_bgrp * 8);  // first block row of the group");
  line("const unsigned cake_bgm = gridDim.x - cake_bx0 < 8u ? gridDim.x - cake_bx0 : 8u;");
  line("const int cake_bx = static_cast<int>(cake_bx0 + cake_blin % cake_bgrp % cake_bgm);");
  line("const int cake_by = static_cast<int>(cake_blin % cake_bgrp / cake_bgm);");
  line("(void)cake_bx; (void)cake_by;");
}

void Lowering::emitTmaLoad(const ir::Op& op) {
  const int v = op.dst.index, p = op.src.index;
  const std::string dst = viewSlotAddrSel(op.dst, op.sel);
  const std::string bar = barSlotAddr(op.barrier, op.sel, op.range);
  const int W = viewBlock_[v];
  const int nblk = W ? static_cast<int>(viewRowBytes(v) / W) : 1;
  elected([&] {
    for (int blk = 0; blk < nblk; ++blk) {
      const std::string coords = tmaBoxCoords(op, v, blk, W);
      const std::string d = blk ? fmt::format("{} + {}", dst, blk * viewTile(v).R * W) : dst;
      if (W && blk == 0) comment(fmt::format("blocked slot: {} TMA boxes of {} B columns", nblk, W));
      line(fmt::format("cake_tma_load_{}d({}, &{}, {}{});", op.coords.size(), d, tmapName(p, v), bar, coords));
    }
  });
}

void Lowering::emitTmaStore(const ir::Op& op) {
  const int v = op.src.index, p = op.dst.index;
  if (!single_ && s_.roles[role_].warpsPerInstance() == 1) line("__syncwarp();");
  const int W = viewBlock_[v];
  const int nblk = W ? static_cast<int>(viewRowBytes(v) / W) : 1;
  elected([&] {
    for (int blk = 0; blk < nblk; ++blk) {
      const std::string coords = tmaBoxCoords(op, v, blk, W);
      std::string src = viewSlotAddrSel(op.src, op.sel);
      if (blk) src = fmt::format("{} + {}", src, blk * viewTile(v).R * W);
      line(fmt::format("cake_tma_store_{}d(&{}, {}{});", op.coords.size(), tmapName(p, v), src, coords));
    }
  });
}

void Lowering::emitCpAsync(const ir::Op& op) {
  const int v = op.dst.index, p = op.src.index;
  const auto& view = s_.views[v];
  const int eb = ir::dtypeBytes(view.dtype);
  const Tile t = viewTile(v);
  const int64_t rowBytes = t.C * eb;
  const int ch = rowBytes % 16 == 0 ? 16 : rowBytes % 8 == 0 ? 8 : rowBytes % 4 == 0 ? 4 : 0;
  const int instThreads = s_.roles[role_].warpsPerInstance() * 32;
  const std::string pn = paramName(p), ext = "cake_ext_" + pn;
  const int N = static_cast<int>(op.coords.size());
  openScope();
  comment(fmt::format("{}[{}] <- {} at ({}): {} ({} per thread, zero-fill outside)", view.name,
                      pyText(op.sel.index ? op.sel.index : op.dst.slot), s_.params[p].name,
                      sanitizeComment(fmt::format("{}", fmt::join([&] {
                        std::vector<std::string> v2;
                        for (const auto& c : op.coords) v2.push_back(pyText(c));
                        return v2;
                      }(), ", "))),
                      ch ? fmt::format("{}-byte cp.async chunks", ch) : std::string("element copies"),
                      ch ? (t.R * rowBytes / ch + instThreads - 1) / instThreads
                         : (t.R * t.C + instThreads - 1) / instThreads));
  line(fmt::format("const uint32_t cake_dst = {};", viewSlotAddrSel(op.dst, op.sel)));
  // outer coordinates (all but the last two) pick one 2-D plane
  std::string base = "0", outerOk = "true";
  for (int k = 0; k + 2 < N; ++k) {
    base += fmt::format(" + static_cast<long long>({}) * {}.s[{}]", expr(op.coords[k]), ext, k);
    outerOk += fmt::format(" && ({0}) >= 0 && ({0}) < {1}.d[{2}]", expr(op.coords[k]), ext, k);
  }
  const std::string r0 = N >= 2 ? expr(op.coords[N - 2]) : "0", c0 = expr(op.coords[N - 1]);
  const std::string rowsExt = N >= 2 ? fmt::format("{}.d[{}]", ext, N - 2) : "1";
  const std::string rowStride = N >= 2 ? fmt::format("{}.s[{}]", ext, N - 2) : "0";
  line(fmt::format("const long long cake_r0 = {}, cake_c0 = {}, cake_base = {};", r0, c0, base));
  line(fmt::format("const bool cake_plane = {};", outerOk));
  if (ch) {
    const int64_t perRow = rowBytes / ch, chunks = t.R * perRow, elems = ch / eb;
    line("#pragma unroll 4");
    open(fmt::format("for (int cake_q = cake_inst_thread; cake_q < {}; cake_q += {})", chunks, instThreads));
    line(fmt::format("const int cake_r = cake_q / {}, cake_c = (cake_q % {}) * {};", perRow, perRow, elems));
    line("const long long cake_gr = cake_r0 + cake_r, cake_gc = cake_c0 + cake_c;");
    line("int cake_n = 0;  // bytes inside the tensor");
    line(fmt::format("if (cake_plane && cake_gr >= 0 && cake_gr < {} && cake_gc >= 0 && cake_gc < {}.d[{}])", rowsExt,
                     ext, N - 1));
    line(fmt::format("  cake_n = static_cast<int>(cake_min({}, static_cast<int>(({}.d[{}] - cake_gc) * {})));", ch, ext,
                     N - 1, eb));
    line(fmt::format("cake_cp_async<{}>(cake_dst + {},", ch, viewOffset(v, "cake_r", fmt::format("cake_c * {}", eb))));
    line(fmt::format("                  {} + (cake_n ? cake_base + cake_gr * {} + cake_gc : 0), cake_n);", pn,
                     rowStride));
    close();
  } else {
    line("#pragma unroll 4");
    open(fmt::format("for (int cake_q = cake_inst_thread; cake_q < {}; cake_q += {})", t.R * t.C, instThreads));
    line(fmt::format("const int cake_r = cake_q / {}, cake_c = cake_q % {};", t.C, t.C));
    line("const long long cake_gr = cake_r0 + cake_r, cake_gc = cake_c0 + cake_c;");
    line(fmt::format("const bool cake_in = cake_plane && cake_gr >= 0 && cake_gr < {} && cake_gc >= 0 && cake_gc < "
                     "{}.d[{}];",
                     rowsExt, ext, N - 1));
    line(fmt::format("cake_sts<{0}>(cake_dst + {1}, cake_in ? {2}[cake_base + cake_gr * {3} + cake_gc] : "
                     "cake_cvt<{0}>(0.f));",
                     cType(view.dtype), viewOffset(v, "cake_r", fmt::format("cake_c * {}", eb)), pn, rowStride));
    close();
  }
  close();
}

// ------------------------------------------------------------ MMA

void Lowering::emitMma(const ir::Op& op) {
  auto it = mma_.find(&op);
  if (it == mma_.end()) return;
  switch (it->second.kind) {
    case MmaPlan::Wgmma: emitWgmma(op, it->second); break;
    case MmaPlan::MmaSync: emitMmaSync(op, it->second); break;
    case MmaPlan::Tcgen05: emitTcgen05(op, it->second); break;
  }
}

void Lowering::emitWgmma(const ir::Op& op, const MmaPlan& p) {
  const Layout* f = layoutOf(op.dst.index);
  if (!f) return;
  const int vb = op.src2.index;
  const auto& B = s_.views[vb];
  const Tile tacc = f->t;
  Tile ta;
  refTile(op.src, ta);
  const int64_t K = ta.C;
  const int G = p.G;
  const int mbl = static_cast<int>(tacc.R / (64 * G));  // m64 blocks per warpgroup
  const int modeOf[4] = {0, 3, 2, 1};                    // None, 32B, 64B, 128B -> descriptor mode
  auto modeFor = [&](int v) { return modeOf[viewSwizzleEff(v) == 128 ? 3 : viewSwizzleEff(v) == 64 ? 2 : 1]; };
  // byte offset of k-step cake_k (32 B of K) inside a slot: blocked slots hop to the next column block
  auto kOff = [&](int v) {
    const int W = viewBlock_[v];
    if (!W) return std::string("cake_k * 32");
    return fmt::format("(cake_k * 32 / {}) * {} + (cake_k * 32) % {}", W, viewTile(v).R * W, W);
  };
  const int modeB = modeFor(vb);
  const int64_t rbB = viewRowPitch(vb);
  const std::string bLo = op.src2.slices.empty() || !op.src2.slices[0].lo ? "0" : expr(op.src2.slices[0].lo);
  wgmmaHelpers_.insert({static_cast<int>(tacc.C), p.ty, p.rs});
  const int steps = static_cast<int>(K / p.kstep);
  const std::string acc = regsName(op.dst.index);
  const std::string fn = fmt::format("cake_wgmma{}_m64n{}k{}_{}", p.rs ? "_rs" : "", tacc.C, p.kstep, p.ty);
  openScope();
  comment(fmt::format("{} {}= {} . {}^T: wgmma m64n{}k{} x {} per warpgroup ({} warpgroup{}), {}B swizzle", 
                      s_.regs[op.dst.index].name, op.init ? "(init ? 0 : acc) +" : "+",
                      op.src.kind == K::Regs ? s_.regs[op.src.index].name : s_.views[op.src.index].name, B.name, tacc.C,
                      p.kstep, mbl * steps, G, G > 1 ? "s" : "", viewSwizzleEff(vb)));
  line(fmt::format("const uint32_t cake_b = {} + ({}) * {};", viewSlotAddr(op.src2), bLo, rbB));
  int64_t rbA = 0;
  int modeA = 0;
  if (!p.rs) {
    const int va = op.src.index;
    rbA = viewRowPitch(va);
    modeA = modeFor(va);
    const std::string aLo = op.src.slices.empty() || !op.src.slices[0].lo ? "0" : expr(op.src.slices[0].lo);
    line(fmt::format("const uint32_t cake_a = {} + ({}) * {};", viewSlotAddr(op.src), aLo, rbA));
  }
  line(fmt::format("const int cake_scale_d = {};", op.init ? "(" + expr(op.init) + ") ? 0 : 1" : std::string("1")));
  if (G > 1) line("const int cake_wg = cake_wwarp / 4;  // warpgroup within the instance");
  line("cake_wgmma_fence();");
  line("#pragma unroll");
  open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", steps));
  for (int i = 0; i < mbl; ++i) {
    const std::string rowBlock = G > 1 ? fmt::format("({} + cake_wg) * 64", i * G) : std::to_string(i * 64);
    if (p.rs) {
      const std::string a = regsName(op.src.index);
      const bool cvt = s_.regs[op.src.index].dtype == ir::DType::F32;
      const std::string et = p.ty == "bf16" ? "__nv_bfloat16" : "__half";
      auto el = [&](int h, const std::string& col) {
        const std::string x = fmt::format("{}[{}][{}]", a, 2 * i + h, col);
        return cvt ? fmt::format("cake_cvt<{}>({})", et, x) : x;
      };
      auto pk = [&](int h, int off) {
        return fmt::format("cake_pack2({}, {})", el(h, fmt::format("4 * cake_k + {}", off)),
                           el(h, fmt::format("4 * cake_k + {}", off + 1)));
      };
      line(fmt::format("{}({}[{}], {}[{}], {}, {}, {}, {},", fn, acc, 2 * i, acc, 2 * i + 1, pk(0, 0), pk(1, 0), pk(0, 2),
                       pk(1, 2)));
      line(fmt::format("    cake_wgmma_desc(cake_b + {}, {}, {}), cake_k == 0 ? cake_scale_d : 1);", kOff(vb), 8 * rbB,
                       modeB));
    } else {
      line(fmt::format("{}({}[{}], {}[{}], cake_wgmma_desc(cake_a + {} * {} + {}, {}, {}),", fn, acc, 2 * i, acc,
                       2 * i + 1, rowBlock, rbA, kOff(op.src.index), 8 * rbA, modeA));
      line(fmt::format("    cake_wgmma_desc(cake_b + {}, {}, {}), cake_k == 0 ? cake_scale_d : 1);", kOff(vb), 8 * rbB,
                       modeB));
    }
  }
  close();
  close();
}

void Lowering::emitMmaSync(const ir::Op& op, const MmaPlan& p) {
  const Layout* f = layoutOf(op.dst.index);
  if (!f) return;
  const int va = op.src.index, vb = op.src2.index;
  const auto& B = s_.views[vb];
  const std::string aName = p.rs ? s_.regs[va].name : s_.views[va].name;
  const Tile tacc = f->t;
  Tile ta;
  refTile(op.src, ta);
  const int64_t K = ta.C;
  const int mt = static_cast<int>(tacc.R / p.wm / 16), nt = static_cast<int>(tacc.C / p.wn / 8);
  const std::string acc = regsName(op.dst.index);
  const std::string aLo = op.src.slices.empty() || !op.src.slices[0].lo ? "0" : expr(op.src.slices[0].lo);
  const std::string bLo = op.src2.slices.empty() || !op.src2.slices[0].lo ? "0" : expr(op.src2.slices[0].lo);
  openScope();
  comment(fmt::format("{} {}= {} . {}^T: mma.sync m16n8k16, warp grid {}x{}, warp tile {}x{} ({} x {} tiles)",
                      s_.regs[op.dst.index].name, op.init ? "(init ? 0 : acc) +" : "+", aName, B.name, p.wm, p.wn,
                      tacc.R / p.wm, tacc.C / p.wn, mt, nt));
  if (op.init) {
    open(fmt::format("if ({})", expr(op.init)));
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
    line(fmt::format("const uint32_t cake_a = {}, cake_b = {};", viewSlotAddr(op.src), viewSlotAddr(op.src2)));
    line(fmt::format("const int cake_a0 = {}, cake_b0 = {};  // row slices", aLo, bLo));
  } else {
    line(fmt::format("const uint32_t cake_b = {};", viewSlotAddr(op.src2)));
    line(fmt::format("const int cake_b0 = {};  // row slice", bLo));
  }
  line("#pragma unroll");
  open(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", K / 16));
  line(fmt::format("uint32_t cake_af[{}][4], cake_bf[{}][4];", mt, (nt + 1) / 2));
  line("#pragma unroll");
  line(fmt::format("for (int i = 0; i < {}; ++i)", mt));
  if (p.rs) {
    // A from the fragment: its mma.sync layout (one warp column) is the m16n8k16 A layout, pairs packed
    const std::string a = regsName(va);
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
    line(fmt::format("  cake_ldmatrix_x4(cake_af[i], cake_a + {});",
                     viewOffset(va, "cake_a0 + cake_wrow + 16 * i + cake_lane % 16", "(2 * cake_k + cake_lane / 16) * 16")));
  }
  line("#pragma unroll");
  line(fmt::format("for (int j = 0; j < {}; ++j)", (nt + 1) / 2));
  line(fmt::format("  cake_ldmatrix_x4(cake_bf[j], cake_b + {});",
                   viewOffset(vb, "cake_b0 + cake_wcol + 16 * j + cake_lane % 8 + (cake_lane / 16) * 8",
                              "(2 * cake_k + (cake_lane / 8) % 2) * 16")));
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

void Lowering::emitTcgen05(const ir::Op& op, const MmaPlan& p) {
  const int va = op.src.index, vb = op.src2.index;
  const auto &A = s_.views[va], &B = s_.views[vb];
  Tile ta, tb;
  refTile(op.src, ta);
  refTile(op.src2, tb);
  const int64_t M = ta.R, N = tb.R, K = ta.C;
  auto layoutOf = [&](int v) { return viewSwizzleEff(v) == 128 ? 2 : viewSwizzleEff(v) == 64 ? 4 : 6; };
  auto kOff = [&](int v) {
    const int W = viewBlock_[v];
    if (!W) return std::string("cake_k * 32");
    return fmt::format("(cake_k * 32 / {}) * {} + (cake_k * 32) % {}", W, viewTile(v).R * W, W);
  };
  const int64_t rbA = viewRowPitch(va), rbB = viewRowPitch(vb);
  // instruction descriptor: D f32 (bit 4), A/B format, K-major both, N >> 3 at 17, M >> 4 at 24
  int fmtAB = 0;
  std::string kind = "f16";
  if (p.ty == "bf16") fmtAB = 1;
  if (p.ty == "tf32") fmtAB = 2, kind = "tf32";
  if (p.ty == "e4m3") fmtAB = 0, kind = "f8f6f4";
  if (p.ty == "e5m2") fmtAB = 1, kind = "f8f6f4";
  const uint32_t idesc = (1u << 4) | (static_cast<uint32_t>(fmtAB) << 7) | (static_cast<uint32_t>(fmtAB) << 10) |
                         (static_cast<uint32_t>(N >> 3) << 17) | (static_cast<uint32_t>(M >> 4) << 24);
  const std::string aLo = op.src.slices.empty() || !op.src.slices[0].lo ? "0" : expr(op.src.slices[0].lo);
  const std::string bLo = op.src2.slices.empty() || !op.src2.slices[0].lo ? "0" : expr(op.src2.slices[0].lo);
  elected([&] {
    openScope();
    comment(fmt::format("{} {}= {} . {}^T: tcgen05.mma.cta_group::1.kind::{} M={} N={}, {} steps of K={}",
                        s_.tmems[op.dst.index].name, op.init ? "(init ? 0 : acc) +" : "+", A.name, B.name, kind, M, N,
                        K / p.kstep, p.kstep));
    line(fmt::format("const uint32_t cake_a = {} + ({}) * {}, cake_b = {} + ({}) * {};", viewSlotAddr(op.src), aLo, rbA,
                     viewSlotAddr(op.src2), bLo, rbB));
    line(fmt::format("const uint32_t cake_d = {};", tmemAddr(op.dst, 0)));
    line(fmt::format("const int cake_acc = {};", op.init ? "(" + expr(op.init) + ") ? 0 : 1" : std::string("1")));
    line("#pragma unroll");
    line(fmt::format("for (int cake_k = 0; cake_k < {}; ++cake_k)", K / p.kstep));
    line(fmt::format("  cake_umma_{}(cake_d, cake_umma_desc(cake_a + {}, {}, {}), cake_umma_desc(cake_b + {}, {}, {}), "
                     "0x{:08x}u, cake_k == 0 ? cake_acc : 1);",
                     kind, kOff(va), 8 * rbA, layoutOf(va), kOff(vb), 8 * rbB, layoutOf(vb), idesc));
    close();
  });
}

void Lowering::emitMmaCommit(const ir::Op& op) {
  bool wgmmaRole = false, tcRole = false;
  for (const auto& body : s_.bodies)
    if (body.role == role_)
      ir::forEachOp(body.body, [&](const Stmt& st) {
        auto it = mma_.find(&st.op);
        if (it == mma_.end()) return;
        wgmmaRole = wgmmaRole || it->second.kind == MmaPlan::Wgmma;
        tcRole = tcRole || it->second.kind == MmaPlan::Tcgen05;
      });
  if (op.kind == OpKind::MmaWait) {
    const int64_t n = op.pending ? constOf(op.pending).value_or(0) : 0;
    if (wgmmaRole)
      line(fmt::format("cake_wgmma_wait<{}>();", n));
    else
      comment(tcRole ? "mma_wait: tcgen05 MMAs complete through their commit barrier" : "mma_wait: mma.sync is synchronous");
    return;
  }
  if (target_ == ir::Target::SM100a && op.barrier >= 0) {
    elected([&] { line(fmt::format("cake_umma_commit({});", barSlotAddr(op.barrier, op.sel, op.range))); });
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

// ------------------------------------------------------------ ops

void Lowering::emitOp(const ir::Op& op) {
  const auto& role = s_.roles[role_];
  switch (op.kind) {
    case OpKind::Wait: emitWait(op); break;
    case OpKind::Arrive: emitArrive(op, 0, false); break;
    case OpKind::ExpectTx: emitArrive(op, 0, true); break;
    case OpKind::TmaLoad: emitTmaLoad(op); break;
    case OpKind::TmaStore: emitTmaStore(op); break;
    case OpKind::TmaStoreCommit: elected([&] { line("cake_tma_store_commit();"); }); break;
    case OpKind::TmaStoreWait: {
      const int64_t n = op.pending ? constOf(op.pending).value_or(0) : 0;
      elected([&] { line(fmt::format("cake_tma_store_wait<{}>();  // reads of the stored slots done", n)); });
      if (!single_) instSync();
      break;
    }
    case OpKind::CpAsync: emitCpAsync(op); break;
    case OpKind::CpAsyncCommit: line("cake_cp_async_commit();"); break;
    case OpKind::CpAsyncWait: {
      const int64_t n = op.pending ? constOf(op.pending).value_or(0) : 0;
      line(fmt::format("cake_cp_async_wait<{}>();", n));
      comment("every thread's copies landed: sync the instance so each sees all of them");
      instSync();
      break;
    }
    case OpKind::Sync: {
      const int nb = op.named_barrier;
      tcFenceBefore();
      line(fmt::format("cake_bar_sync({}, {});  // {}", namedBarId_[nb], namedBarThreads_[nb],
                       sanitizeComment(s_.named_barriers[nb].name)));
      tcFenceAfter();
      break;
    }
    case OpKind::BarArrive: {
      const int nb = op.named_barrier;
      tcFenceBefore();
      line(fmt::format("cake_bar_arrive({}, {});  // {}", namedBarId_[nb], namedBarThreads_[nb],
                       sanitizeComment(s_.named_barriers[nb].name)));
      break;
    }
    case OpKind::FenceProxy: line("cake_fence_proxy_async();"); break;
    case OpKind::Mma: emitMma(op); break;
    case OpKind::MmaCommit:
    case OpKind::MmaWait:
      emitMmaCommit(op);
      break;
    case OpKind::Copy:
      if (op.dst.kind == K::Tmem || op.src.kind == K::Tmem) emitTmemCopy(op);
      else emitElementwise(op);
      break;
    case OpKind::Fill:
    case OpKind::Unary:
    case OpKind::Binary:
      emitElementwise(op);
      break;
    case OpKind::Reduce: emitReduce(op); break;
  }
  (void)role;
}

// ------------------------------------------------------------ roles

void Lowering::emitRole(int r, const std::vector<const ir::RoleBody*>& bodies) {
  const auto& role = s_.roles[r];
  role_ = r;
  single_ = roleSingle_[r];
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
  if (role.regs && *role.regs != regCap_) {
    if (target_ == ir::Target::SM80)
      comment(fmt::format("regs={} ignored: setmaxnreg needs sm_90a or later", *role.regs));
    else if (*role.regs > regCap_)
      line(fmt::format("cake_setmaxnreg_inc<{}>();  // from {} at launch", *role.regs, regCap_));
    else
      line(fmt::format("cake_setmaxnreg_dec<{}>();  // from {} at launch", *role.regs, regCap_));
  }
  line(fmt::format("const int cake_instance = ({}) / {};", pos, wpi));
  line(fmt::format("const int cake_inst_thread = (({}) % {}) * 32 + cake_lane;", pos, wpi));
  line("const bool cake_elected = cake_inst_thread == 0;");
  line("const int cake_wwarp = cake_inst_thread / 32;  // warp within the instance");
  line("(void)cake_instance; (void)cake_elected; (void)cake_wwarp;");
  if (roleInstBar_[r] >= 0)
    line(fmt::format("const int cake_inst_bar = {} + cake_instance;  // named barrier of this instance",
                     roleInstBar_[r]));
  if (roleInstBar_[r] >= 0) line("(void)cake_inst_bar;");
  if (roleScratch_[r] >= 0)
    line(fmt::format("const uint32_t cake_scratch = cake_smem + {} + cake_instance * {};  // reduction scratch",
                     roleScratch_[r], roleScratchStride_[r]));
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
    line(fmt::format("uint32_t cake_phase_{} = 0;  // phase bit per slot of '{}' for this instance", barName(b),
                     sanitizeComment(s_.barriers[b].name)));
  for (int x : regsUsed) {
    auto it = frag_.find({r, x});
    if (it == frag_.end()) continue;
    const Layout& l = it->second;
    line(fmt::format("{} {}[{}][{}];  // {} {}x{}: {}, {} per thread", cType(s_.regs[x].dtype), regsName(x), l.NR(),
                     l.NC(), sanitizeComment(s_.regs[x].name), l.t.R, l.t.C, l.fam.describe(), l.NR() * l.NC()));
  }
  if (single_) open("if (cake_elected)");
  for (const auto* body : bodies) walkBlock(body->body);
  if (single_) close();
  --indent_;
  line("}");
}

void Lowering::emitKernel() {
  // kernel parameters
  std::vector<std::string> params;
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const auto& p = s_.params[i];
    const int pi = static_cast<int>(i);
    if (ir::isTensorParam(p.type)) {
      for (const auto& [tp, tv] : tmaps_)
        if (tp == pi) params.push_back("const __grid_constant__ CUtensorMap " + tmapName(tp, tv));
      if (tensors_[pi].ptr)
        params.push_back(fmt::format("{}* {}, const cake_ext<{}> cake_ext_{}", cType(tensors_[pi].dtype), paramName(pi),
                                     std::max(1, tensors_[pi].rank), paramName(pi)));
    } else if (p.type == ir::ParamType::I32) {
      params.push_back("const int " + paramName(pi));
    } else {
      params.push_back("const float " + paramName(pi));
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
  comment(fmt::format("schedule '{}' ({}): {} threads, {} B shared memory (+1024 alignment slack)",
                      sanitizeComment(s_.name), ir::targetName(target_), threads_, smemUsed_));
  std::string attrs = fmt::format("__launch_bounds__({}, 1)", threads_);
  if (s_.cluster[0] * s_.cluster[1] * s_.cluster[2] > 1)
    attrs += fmt::format(" __cluster_dims__({}, {}, {})", s_.cluster[0], s_.cluster[1], s_.cluster[2]);
  line(fmt::format("__global__ void {} {}(", attrs, kernelName()));
  for (size_t i = 0; i < params.size(); ++i) line("    " + params[i] + (i + 1 < params.size() ? "," : ") {"));
  if (params.empty()) line("    ) {");
  ++indent_;
  line("extern __shared__ __align__(1024) uint8_t cake_smem_raw[];");
  line("const uint32_t cake_smem = (cake_smem_u32(cake_smem_raw) + 1023u) & ~1023u;");
  for (size_t p = 0; p < s_.pools.size(); ++p)
    line(fmt::format("const uint32_t cake_pool_{} = cake_smem + {};  // {} ({} B)", poolNames_[p], poolOffset_[p],
                     sanitizeComment(s_.pools[p].name), *constOf(s_.pools[p].bytes)));
  for (size_t v = 0; v < s_.views.size(); ++v) {
    const auto& view = s_.views[v];
    const int vi = static_cast<int>(v);
    std::vector<int64_t> sh = viewShape(vi);
    line(fmt::format("const uint32_t {} = cake_pool_{} + {};  // {} {}, {} slot{} of {} B{}", viewName(vi),
                     poolNames_[view.pool], *constOf(view.offset), fmt::join(sh, "x"), ir::dtypeName(view.dtype),
                     view.stages, view.stages > 1 ? "s" : "", viewSlotBytes(vi),
                     view.swizzle != ir::Swizzle::None ? fmt::format(", {} swizzle", ir::swizzleName(view.swizzle))
                                                        : std::string()));
    line(fmt::format("(void){};", viewName(vi)));
  }
  for (size_t b = 0; b < s_.barriers.size(); ++b) {
    const auto& bar = s_.barriers[b];
    line(fmt::format("const uint32_t {} = cake_smem + {};  // {} mbarrier{}, 8 B each", barName(static_cast<int>(b)),
                     barOffset_ + 8 * barSlotBase_[b], bar.count, bar.count > 1 ? "s" : ""));
    line(fmt::format("(void){};", barName(static_cast<int>(b))));
  }
  line("const int cake_warp = threadIdx.x / 32, cake_lane = threadIdx.x % 32;");
  line("(void)cake_lane;");
  emitRaster();
  line("");
  if (!s_.barriers.empty() || !tmaps_.empty()) {
    open("if (threadIdx.x == 0)");
    for (size_t b = 0; b < s_.barriers.size(); ++b) {
      const auto& bar = s_.barriers[b];
      const int w = barWeight_[b];
      std::string why = fmt::format("init_count {}", bar.init_count);
      if (w > 1) why += fmt::format(" x {} (one arrival per warp of an arriving instance)", w);
      line(fmt::format("for (int s = 0; s < {}; ++s) cake_mbar_init({} + 8 * s, {});  // {}", bar.count,
                       barName(static_cast<int>(b)), bar.init_count * w, why));
    }
    if (!s_.barriers.empty()) line("cake_fence_mbarrier_init();");
    for (const auto& [tp, tv] : tmaps_) line(fmt::format("cake_prefetch_tensormap(&{});", tmapName(tp, tv)));
    close();
  }
  if (usesTmem_) {
    comment(fmt::format("TMEM: warp 0 allocates {} columns (covers every lm.tmem) and publishes the base", tmemCols_));
    line(fmt::format("if (cake_warp == 0) cake_tmem_alloc(cake_smem + {}, {});", tmemSlotOffset_, tmemCols_));
    line("cake_tc_fence_before();");
  }
  line("__syncthreads();");
  if (usesTmem_) {
    line("cake_tc_fence_after();");
    line(fmt::format("const uint32_t cake_tmem_base = cake_lds<uint32_t>(cake_smem + {});", tmemSlotOffset_));
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
  if (usesTmem_) {
    comment("every role is done with TMEM: warp 0 frees it");
    line("cake_tc_fence_before();");
    line("__syncthreads();");
    open("if (cake_warp == 0)");
    line("cake_tc_fence_after();");
    line(fmt::format("cake_tmem_dealloc(cake_tmem_base, {});", tmemCols_));
    close();
  }
  --indent_;
  line("}");
}

}  // namespace cake::lowering::detail
