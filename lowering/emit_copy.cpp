// Stage 3, copies: TMA loads and stores (tensor-map boxes), cp.async. See
// emit.h and docs/gpu.md.
#include "lowering/emit.h"

#include <algorithm>

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
// or 0 where the chunks keep their own row, column and swizzle. A thread takes `rowChunks` chunks of a
// row in each pass (columns c, c + T, ... for the T = perRow / rowChunks threads of a row), so a pass
// covers rowChunks times the rows.
int Emitter::cpAsyncChunk(const ir::Op& op) const {
  const int64_t rowBytes = plan_.viewTile(op.dst.index).C * ir::dtypeBytes(s_.views[op.dst.index].dtype);
  return rowBytes % 16 == 0 ? 16 : rowBytes % 8 == 0 ? 8 : rowBytes % 4 == 0 ? 4 : 0;
}

int64_t Emitter::cpAsyncPassBytes(const ir::Op& op, int rowChunks) const {
  const int v = op.dst.index, ch = cpAsyncChunk(op);
  if (!ch || rowChunks < 1) return 0;
  const Tile t = plan_.viewTile(v);
  const int64_t rowBytes = t.C * ir::dtypeBytes(s_.views[v].dtype);
  const int instThreads = s_.roles[role_].warpsPerInstance() * 32;
  const int64_t perRow = rowBytes / ch, chunks = t.R * perRow;
  if (perRow % rowChunks || chunks % instThreads || (chunks / instThreads) % rowChunks) return 0;
  const int64_t rowThreads = perRow / rowChunks;
  const int sw = ir::swizzleBytes(s_.views[v].swizzle);
  const int64_t passRows = instThreads / rowThreads, passBytes = passRows * rowBytes;
  const bool ok = instThreads % rowThreads == 0 && (plan_.viewBlock_.empty() || !plan_.viewBlock_[v]) &&
                  (sw == 0 || passBytes % (8 * sw) == 0);
  return ok ? passBytes : 0;
}

namespace {
// the byte a cake_swz<sw> offset lands on (the prelude's cake_swz, on the host)
uint32_t swizzled(uint32_t off, int sw) {
  const uint32_t mask = sw == 128 ? 0x70u : sw == 64 ? 0x30u : sw == 32 ? 0x10u : 0u;
  return off ^ ((off >> 3) & mask);
}

// the row a thread's natural row `n` (thread / threads a row) takes when the low bits of n are permuted:
// bit i of the result is bit order[i] of n, the bits above them are n's
int64_t permutedRow(int64_t n, const std::vector<int>& order) {
  const int64_t low = (int64_t{1} << order.size()) - 1;
  int64_t r = n & ~low;
  for (size_t i = 0; i < order.size(); ++i) r |= ((n >> order[i]) & 1) << i;
  return r;
}
}  // namespace

// Shared-memory wavefronts of all the warp instructions of one copy of a slot when each thread of the
// instance takes `rowChunks` chunks of a row (columns c, c + T, ... for the T threads of a row) in the row
// `order` makes of its natural one: a store of `ch` bytes per thread is served 128 / ch threads at a
// time, in as many wavefronts as the most chunks on one 4-byte bank (docs/gpu.md "sm_80: two cp.async
// chunks of a row per thread"; bench/gpu/cp_async_bank_phases.py counts the same).
int64_t Emitter::cpAsyncWavefronts(const ir::Op& op, int rowChunks, const std::vector<int>& order) const {
  const int v = op.dst.index, ch = cpAsyncChunk(op);
  const Tile t = plan_.viewTile(v);
  const int64_t rowBytes = t.C * ir::dtypeBytes(s_.views[v].dtype), perRow = rowBytes / ch;
  const int instThreads = s_.roles[role_].warpsPerInstance() * 32, sw = ir::swizzleBytes(s_.views[v].swizzle);
  const int64_t rowThreads = perRow / rowChunks, passRows = instThreads / rowThreads;
  const int phase = 128 / ch;
  // one chunk a row: chunk q = thread + i * threads of the tile in row q / perRow (the unstepped loop's
  // order, the same as the stepped one's where that steps); more: pass i, the thread's row and column j
  const int64_t instrs = t.R * perRow / instThreads;
  int64_t waves = 0;
  for (int64_t i = 0; i < instrs; ++i)
    for (int t0 = 0; t0 < instThreads; t0 += phase) {
      int banks[32] = {};
      for (int th = t0; th < t0 + phase; ++th) {
        int64_t row = (th + i * instThreads) / perRow, col = (th + i * instThreads) % perRow;
        if (rowChunks > 1) {
          row = (i / rowChunks) * passRows + permutedRow(th / rowThreads, order);
          col = th % rowThreads + (i % rowChunks) * rowThreads;
        }
        const uint32_t off = swizzled(static_cast<uint32_t>(row * rowBytes + col * ch), sw);
        for (int b = 0; b < ch / 4; ++b) ++banks[(off / 4 + b) % 32];
      }
      waves += *std::max_element(banks, banks + 32);
    }
  return waves;
}

// Two chunks of a row per thread where they step and some order of a warp's rows makes their shared
// stores as conflict-free as one chunk a row, else one. With one, each pass is a 64-bit add to the global
// address (a serial IADD3 / IADD3.X chain per copy: 14 of the sm_80 GEMM's 34 copy instructions per
// operand and k-block, docs/gpu.md "sm_80: fewer copy passes"); the second chunk of a row is an
// immediate offset from the first's global address and one more hoisted shared offset. Two, not more:
// each adds a register for its shared offset, and the row's threads still cover 32 contiguous bytes or
// more per warp instruction (whole 32-byte sectors, as with one). In natural order (thread / T) the
// rows of a quarter-warp take the same chunk columns, which the swizzle maps to the same bank groups
// (a 2-way conflict on every store: session 16's try ran 1-32 % slower); the order is the first
// permutation of the low bits of a warp's row index (identity first) whose stores need no more
// wavefronts than one chunk a row: for the 128B swizzle over 128-byte rows, rows q and q + 4 in
// quarter-warp q (docs/gpu.md "sm_80: paired cp.async rows", helper sm80d, session 17).
Emitter::CpRows Emitter::cpAsyncRows(const ir::Op& op) const {
  CpRows one;
  const int ch = cpAsyncChunk(op);
  const int64_t perRow = ch ? plan_.viewTile(op.dst.index).C * ir::dtypeBytes(s_.views[op.dst.index].dtype) / ch : 0;
  if (perRow < 2 || perRow % 2 || (perRow / 2) * ch < 32 || !cpAsyncPassBytes(op, 2)) return one;
  const int64_t rowThreads = perRow / 2;
  if (32 % rowThreads) return one;
  std::vector<int> order;
  for (int64_t rows = 32 / rowThreads; rows > 1; rows /= 2) order.push_back(static_cast<int>(order.size()));
  if ((int64_t{1} << order.size()) * rowThreads != 32) return one;
  const int64_t single = cpAsyncWavefronts(op, 1, {});
  do {
    if (cpAsyncWavefronts(op, 2, order) <= single) return CpRows{2, order};
  } while (std::next_permutation(order.begin(), order.end()));
  return one;
}

// the row expression of a thread's natural row `n` under `order` (permutedRow, as C++)
std::string Emitter::cpRowExpr(const std::string& n, const std::vector<int>& order) {
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity = identity && order[i] == static_cast<int>(i);
  if (identity) return n;
  std::string e = fmt::format("({} & ~{})", n, (1 << order.size()) - 1);
  for (size_t i = 0; i < order.size(); ++i) {
    const int from = order[i], to = static_cast<int>(i);
    e += from > to   ? fmt::format(" | (({} >> {}) & {})", n, from - to, 1 << to)
         : from < to ? fmt::format(" | (({} << {}) & {})", n, to - from, 1 << to)
                     : fmt::format(" | ({} & {})", n, 1 << to);
  }
  return "(" + e + ")";
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
      const CpRows rows = cpAsyncRows(op);
      const int w = rows.w;
      const int64_t rowThreads = perRow / w, passRows = s_.roles[role_].warpsPerInstance() * 32 / rowThreads;
      const std::string n = cpHoistName(op), ext = "cake_ext_" + plan_.paramName(p);
      const std::string rowStride = N >= 2 ? fmt::format("{}.s[{}]", ext, N - 2) : "0LL";
      const std::string rt = cpRowExpr(fmt::format("(cake_inst_thread / {})", rowThreads), rows.order),
                        ct = fmt::format("((cake_inst_thread % {}) * {})", rowThreads, elems);
      comment(fmt::format("cp.async into '{}' from '{}': this thread's chunks (row {}, column {}{} of each pass)",
                          sanitizeComment(s_.views[v].name), sanitizeComment(s_.params[p].name), rt, ct,
                          w > 1 ? fmt::format(" and {} more {} columns on", w - 1, rowThreads * elems) : ""));
      line(fmt::format("const long long {}_g = cake_here(static_cast<long long>{} * {} + {});", n, rt, rowStride, ct));
      line(fmt::format("const uint32_t {}_s = cake_here({});", n, plan_.viewOffset(v, rt, fmt::format("{} * {}", ct, eb))));
      for (int j = 1; j < w; ++j)
        line(fmt::format("const uint32_t {}_s{} = cake_here({});", n, j,
                         plan_.viewOffset(v, rt, fmt::format("({} + {}) * {}", ct, j * rowThreads * elems, eb))));
      line(fmt::format("const long long {}_pass = cake_here({}LL * {});  // {} rows a pass", n, passRows, rowStride,
                       passRows));
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
    if (passBytes && N >= 2)
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
      const int w = cpAsyncRows(op).w;
      const int64_t rowThreads = perRow / w;
      line(fmt::format("const uint32_t cake_d = cake_dst + {}_s;", n));
      for (int j = 1; j < w; ++j) line(fmt::format("const uint32_t cake_d{} = cake_dst + {}_s{};", j, n, j));
      line("#pragma unroll");
      if (w == 1) {
        line(fmt::format("for (int cake_i = 0; cake_i < {}; ++cake_i)", chunks / instThreads));
        line(fmt::format("  cake_cp_async<{}>(cake_d + cake_i * {}u, cake_p + cake_i * {}_pass, {});", ch, passBytes, n, ch));
      } else {
        // the row's further chunks of this thread: `rowThreads` chunks on in the row, an immediate offset
        open(fmt::format("for (int cake_i = 0; cake_i < {}; ++cake_i)", chunks / instThreads / w));
        line(fmt::format("cake_cp_async<{}>(cake_d + cake_i * {}u, cake_p + cake_i * {}_pass, {});", ch, passBytes, n, ch));
        for (int j = 1; j < w; ++j)
          line(fmt::format("cake_cp_async<{}>(cake_d{} + cake_i * {}u, cake_p + cake_i * {}_pass + {}, {});", ch, j,
                           passBytes, n, j * rowThreads * elems, ch));
        close();
      }
    } else {
      line(fmt::format("const auto cake_src = {} + cake_base + cake_r0 * {} + cake_c0;", pn, rowStride));
      line(chunks % instThreads == 0 ? "#pragma unroll" : "#pragma unroll 4");
      open(fmt::format("for (int cake_q = cake_inst_thread; cake_q < {}; cake_q += {})", chunks, instThreads));
      line(fmt::format("const int cake_r = cake_q / {}, cake_c = (cake_q % {}) * {};", perRow, perRow, elems));
      line(fmt::format("cake_cp_async<{}>(cake_dst + {}, cake_src + cake_r * {} + cake_c, {});", ch,
                       plan_.viewOffset(v, "cake_r", fmt::format("cake_c * {}", eb)), rowStride, ch));
      close();
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
