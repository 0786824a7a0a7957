// Stage 3, copies: TMA loads and stores (tensor-map boxes), cp.async. See
// emit.h and docs/gpu.md.
#include "lowering/emit.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;

// ", c_last, ..., c_0": the TMA coordinates (innermost first) of box `blk`
// of a slot blocked into `W`-byte column boxes.
std::string Emitter::tmaBoxCoords(const ir::Op& op, int v, int blk, int W) {
  std::string coords;
  for (size_t i = op.coords.size(); i-- > 0;) {
    std::string c = plan_.expr(op.coords[i]);
    if (blk && i + 1 == op.coords.size()) c = fmt::format("{} + {}", c, blk * W / ir::dtypeBytes(s_.views[v].dtype));
    coords += ", " + c;
  }
  return coords;
}

void Emitter::emitTmaLoad(const ir::Op& op) {
  const int v = op.dst.index, p = op.src.index;
  const std::string dst = plan_.viewSlotAddrSel(op.dst, op.sel);
  const std::string bar = barSlotAddr(op.barrier, op.sel);
  const int W = plan_.viewBlock_[v];
  const int nblk = W ? static_cast<int>(plan_.viewRowBytes(v) / W) : 1;
  elected([&] {
    for (int blk = 0; blk < nblk; ++blk) {
      const std::string coords = tmaBoxCoords(op, v, blk, W);
      const std::string d = blk ? fmt::format("{} + {}", dst, blk * plan_.viewTile(v).R * W) : dst;
      if (W && blk == 0) comment(fmt::format("blocked slot: {} TMA boxes of {} B columns", nblk, W));
      if (op.multicast)  // the same offsets in every CTA of the mask (docs/ir-extensions.md)
        line(fmt::format("cake_tma_load_{}d_mc({}, &{}, {}, static_cast<uint16_t>({}){});", op.coords.size(), d,
                         plan_.tmapName(p, v), bar, plan_.expr(op.multicast), coords));
      else
        line(fmt::format("cake_tma_load_{}d({}, &{}, {}{});", op.coords.size(), d, plan_.tmapName(p, v), bar, coords));
    }
  });
}

void Emitter::emitTmaStore(const ir::Op& op) {
  const int v = op.src.index, p = op.dst.index;
  if (!single_ && s_.roles[role_].warpsPerInstance() == 1) line("__syncwarp();");
  const int W = plan_.viewBlock_[v];
  const int nblk = W ? static_cast<int>(plan_.viewRowBytes(v) / W) : 1;
  elected([&] {
    for (int blk = 0; blk < nblk; ++blk) {
      const std::string coords = tmaBoxCoords(op, v, blk, W);
      std::string src = plan_.viewSlotAddrSel(op.src, op.sel);
      if (blk) src = fmt::format("{} + {}", src, blk * plan_.viewTile(v).R * W);
      line(fmt::format("cake_tma_store_{}d(&{}, {}{});", op.coords.size(), plan_.tmapName(p, v), src, coords));
    }
  });
}

// A cp.async copy's interior chunks step by passes when every pass of the instance's threads covers
// whole rows and moves the swizzled address by a multiple of the swizzle period (8 x its bytes): then
// each thread's chunks are one shared and one global address plus a constant step. The bytes of a pass,
// or 0 where the chunks keep their own row, column and swizzle.
int Emitter::cpAsyncChunk(const ir::Op& op) const {
  const int64_t rowBytes = plan_.viewTile(op.dst.index).C * ir::dtypeBytes(s_.views[op.dst.index].dtype);
  return ir::cpAsyncChunkBytes(rowBytes);
}

int64_t Emitter::cpAsyncPassBytes(const ir::Op& op) const {
  const int v = op.dst.index, ch = cpAsyncChunk(op);
  if (!ch) return 0;
  const Tile t = plan_.viewTile(v);
  const int64_t rowBytes = t.C * ir::dtypeBytes(s_.views[v].dtype);
  const int instThreads = s_.roles[role_].warpsPerInstance() * 32;
  const int64_t perRow = rowBytes / ch, chunks = t.R * perRow;
  const int sw = ir::swizzleBytes(s_.views[v].swizzle);
  const int64_t passRows = instThreads / perRow, passBytes = passRows * rowBytes;
  const bool ok = chunks % instThreads == 0 && instThreads % perRow == 0 &&
                  (plan_.viewBlock_.empty() || !plan_.viewBlock_[v]) && (sw == 0 || passBytes % (8 * sw) == 0);
  return ok ? passBytes : 0;
}

// the names of a stepped copy's hoisted per-thread values: one set per view, tensor and rank
std::string Emitter::cpHoistName(const ir::Op& op) const {
  return fmt::format("cake_cpt{}_{}_{}", op.dst.index, op.src.index, op.coords.size());
}

// The per-thread values of the role's stepped cp.async copies (its chunks' global element offset from the
// tile's corner, their swizzled shared offset in the slot, the global step of a pass), once at the role's
// start: they depend only on the thread, the view and the tensor's strides. Stepping replaced a row, a
// column and a swizzle per chunk (273 -> 229 SASS instructions per k-block of the corpus sm_80 GEMM,
// docs/gpu.md "k-step slices and fewer copy instructions"); hoisting, because neither nvcc nor ptxas moves
// them out of the k-block loop at 200+ registers (docs/gpu.md "sm_80: hoisted copy offsets and the k-block
// boundary"). Same chunks, same bytes.
void Emitter::emitCpAsyncHoists(const std::vector<const ir::RoleBody*>& bodies) {
  cpHoisted_.clear();
  for (const auto* body : bodies)
    ir::forEachOp(body->body, [&](const Stmt& st) {
      const ir::Op& op = st.op;
      if (op.kind != OpKind::CpAsync || !cpAsyncPassBytes(op) || !cpHoisted_.insert(cpHoistName(op)).second) return;
      const int v = op.dst.index, p = op.src.index, N = static_cast<int>(op.coords.size());
      const int eb = ir::dtypeBytes(s_.views[v].dtype), ch = cpAsyncChunk(op);
      const int64_t perRow = plan_.viewTile(v).C * eb / ch, elems = ch / eb;
      const int64_t passRows = s_.roles[role_].warpsPerInstance() * 32 / perRow;
      const std::string n = cpHoistName(op), ext = "cake_ext_" + plan_.paramName(p);
      const std::string rowStride = N >= 2 ? fmt::format("{}.s[{}]", ext, N - 2) : "0LL";
      const std::string rt = fmt::format("(cake_inst_thread / {})", perRow),
                        ct = fmt::format("((cake_inst_thread % {}) * {})", perRow, elems);
      comment(fmt::format("cp.async into '{}' from '{}': this thread's chunks (row {}, column {} of each pass)",
                          sanitizeComment(s_.views[v].name), sanitizeComment(s_.params[p].name), rt, ct));
      line(fmt::format("const long long {}_g = cake_here(static_cast<long long>{} * {} + {});", n, rt, rowStride, ct));
      line(fmt::format("const uint32_t {}_s = cake_here({});", n, plan_.viewOffset(v, rt, fmt::format("{} * {}", ct, eb))));
      line(fmt::format("const long long {}_pass = {}LL * {};  // {} rows a pass", n, passRows, rowStride, passRows));
      if (N >= 2) {
        // the interior test's bounds: 0 <= r0 && r0 + R <= d is (unsigned) r0 < max(d - R + 1, 0), the same
        // for every 64-bit r0 (a negative one wraps above any bound); once here, not per k-block
        const Tile t = plan_.viewTile(v);
        line(fmt::format("const long long {0}_rl = cake_here({1}.d[{2}] - {3} + 1 > 0 ? {1}.d[{2}] - {3} + 1 : 0LL);", n,
                         ext, N - 2, t.R));
        line(fmt::format("const long long {0}_cl = cake_here({1}.d[{2}] - {3} + 1 > 0 ? {1}.d[{2}] - {3} + 1 : 0LL);", n,
                         ext, N - 1, t.C));
      }
    });
}

void Emitter::emitCpAsync(const ir::Op& op) {
  const int v = op.dst.index, p = op.src.index;
  const auto& view = s_.views[v];
  const int eb = ir::dtypeBytes(view.dtype);
  const Tile t = plan_.viewTile(v);
  const int64_t rowBytes = t.C * eb;
  const int ch = cpAsyncChunk(op);
  const int instThreads = s_.roles[role_].warpsPerInstance() * 32;
  const std::string pn = plan_.paramName(p), ext = "cake_ext_" + pn;
  const int N = static_cast<int>(op.coords.size());
  openScope();
  comment(fmt::format("{}[{}] <- {} at ({}): {} ({} per thread, zero-fill outside)", view.name,
                      plan_.pyText(op.sel.index ? op.sel.index : op.dst.slot), s_.params[p].name,
                      sanitizeComment(fmt::format("{}", fmt::join([&] {
                        std::vector<std::string> v2;
                        for (const auto& c : op.coords) v2.push_back(plan_.pyText(c));
                        return v2;
                      }(), ", "))),
                      ch ? fmt::format("{}-byte cp.async chunks", ch) : std::string("element copies"),
                      ch ? (t.R * rowBytes / ch + instThreads - 1) / instThreads
                         : (t.R * t.C + instThreads - 1) / instThreads));
  line(fmt::format("const uint32_t cake_dst = {};", plan_.viewSlotAddrSel(op.dst, op.sel)));
  // outer coordinates (all but the last two) pick one 2-D plane
  std::string base = "0", outerOk = "true";
  for (int k = 0; k + 2 < N; ++k) {
    base += fmt::format(" + static_cast<long long>({}) * {}.s[{}]", plan_.expr(op.coords[k]), ext, k);
    outerOk += fmt::format(" && ({0}) >= 0 && ({0}) < {1}.d[{2}]", plan_.expr(op.coords[k]), ext, k);
  }
  const std::string r0 = N >= 2 ? plan_.expr(op.coords[N - 2]) : "0", c0 = plan_.expr(op.coords[N - 1]);
  const std::string rowsExt = N >= 2 ? fmt::format("{}.d[{}]", ext, N - 2) : "1";
  const std::string rowStride = N >= 2 ? fmt::format("{}.s[{}]", ext, N - 2) : "0";
  line(fmt::format("const long long cake_r0 = {}, cake_c0 = {}, cake_base = {};", r0, c0, base));
  line(fmt::format("const bool cake_plane = {};", outerOk));
  if (ch) {
    const int64_t perRow = rowBytes / ch, chunks = t.R * perRow, elems = ch / eb;
    // interior tile (every tile of a shape that the tile divides): each chunk lies wholly inside, so its
    // cake_n would be ch; the copies go from one base pointer with no per-chunk bounds arithmetic (same
    // bytes as the guarded loop below; 373 -> 278 SASS instructions per k-block of the corpus sm_80 GEMM)
    const int64_t passBytes = cpAsyncPassBytes(op);
    // in the steady pass of its loop (emitSlotUnrolledLoop) the copy is interior in every iteration: its
    // stepped chunks only, with no test and no guarded path
    const bool steady = steadyCopies_.count(&op) > 0;
    if (steady && !(passBytes && N == 2)) internalError(op, "a steady-state cp.async copy that is not stepped and 2-D");
    if (steady) {
      line("{  // interior in every iteration of the steady pass (its cake_ss_ predicate)");
      ++indent_;
      line("(void)cake_plane;");
    } else if (passBytes && N >= 2)
      open(fmt::format("if (cake_plane && static_cast<unsigned long long>(cake_r0) < static_cast<unsigned long long>({0}_rl) "
                       "&& static_cast<unsigned long long>(cake_c0) < static_cast<unsigned long long>({0}_cl))",
                       cpHoistName(op)));
    else
      open(fmt::format("if (cake_plane && cake_r0 >= 0 && cake_r0 + {} <= {} && cake_c0 >= 0 && cake_c0 + {} <= {}.d[{}])",
                       t.R, rowsExt, t.C, ext, N - 1));
    if (passBytes) {
      // stepped chunks from the per-thread values hoisted to the role's start (emitCpAsyncHoists); the
      // sum's loop-invariant terms first, so that nvcc can hoist them where the rows are too
      const std::string n = cpHoistName(op);
      if (!cpHoisted_.count(n)) internalError(op, "a stepped cp.async copy without its hoisted per-thread values");
      line(fmt::format("const auto cake_p = {} + (cake_base + cake_r0 * {} + {}_g + cake_c0);", pn, rowStride, n));
      line(fmt::format("const uint32_t cake_d = cake_dst + {}_s;", n));
      line("#pragma unroll");
      line(fmt::format("for (int cake_i = 0; cake_i < {}; ++cake_i)", chunks / instThreads));
      line(fmt::format("  cake_cp_async<{}>(cake_d + cake_i * {}u, cake_p + cake_i * {}_pass, {});", ch, passBytes, n, ch));
    } else {
      line(fmt::format("const auto cake_src = {} + cake_base + cake_r0 * {} + cake_c0;", pn, rowStride));
      line(chunks % instThreads == 0 ? "#pragma unroll" : "#pragma unroll 4");
      open(fmt::format("for (int cake_q = cake_inst_thread; cake_q < {}; cake_q += {})", chunks, instThreads));
      line(fmt::format("const int cake_r = cake_q / {}, cake_c = (cake_q % {}) * {};", perRow, perRow, elems));
      line(fmt::format("cake_cp_async<{}>(cake_dst + {}, cake_src + cake_r * {} + cake_c, {});", ch,
                       plan_.viewOffset(v, "cake_r", fmt::format("cake_c * {}", eb)), rowStride, ch));
      close();
    }
    if (steady) {
      close();
      close();
      return;
    }
    close("} else {");
    ++indent_;
    line("#pragma unroll 4");
    open(fmt::format("for (int cake_q = cake_inst_thread; cake_q < {}; cake_q += {})", chunks, instThreads));
    line(fmt::format("const int cake_r = cake_q / {}, cake_c = (cake_q % {}) * {};", perRow, perRow, elems));
    line("const long long cake_gr = cake_r0 + cake_r, cake_gc = cake_c0 + cake_c;");
    line("int cake_n = 0;  // bytes inside the tensor");
    line(fmt::format("if (cake_plane && cake_gr >= 0 && cake_gr < {} && cake_gc >= 0 && cake_gc < {}.d[{}])", rowsExt,
                     ext, N - 1));
    line(fmt::format("  cake_n = static_cast<int>(cake_min({}, static_cast<int>(({}.d[{}] - cake_gc) * {})));", ch, ext,
                     N - 1, eb));
    line(fmt::format("cake_cp_async<{}>(cake_dst + {},", ch, plan_.viewOffset(v, "cake_r", fmt::format("cake_c * {}", eb))));
    line(fmt::format("                  {} + (cake_n ? cake_base + cake_gr * {} + cake_gc : 0), cake_n);", pn,
                     rowStride));
    close();
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
                     cType(view.dtype), plan_.viewOffset(v, "cake_r", fmt::format("cake_c * {}", eb)), pn, rowStride));
    close();
  }
  close();
}

}  // namespace cake::lowering::detail
