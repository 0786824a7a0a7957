// TMEM: column ranges, overlaps, allocatable widths, and the lane quarters
// of the warps that copy to or from it.
#include <fmt/format.h>

#include "checks/layout_internal.h"
#include "ir/tmem.h"

namespace cake::checks::layout {

static void useNote(Gates& g, ir::Finding& f, int tmem) {
  if (const OpSite* use = g.firstUse(ir::BufferRef::Kind::Tmem, tmem))
    Gates::note(f, use->op().range.valid() ? use->op().range : use->stmt->range,
                fmt::format("'{}' is used here", g.s.tmems[tmem].name));
}

// Whether an MMA's init= may be true: absent or a constant 0 means it
// always accumulates into what the accumulator holds.
static bool mayInitialize(const ir::Op& op) {
  if (!op.init) return false;
  const auto v = ir::constValue(op.init);
  return !v || *v != 0;
}

// data.uninitialized for tensor memory (docs/rules/data.uninitialized.md,
// "TMEM"): tcgen05.alloc does not clear the columns, so a region that an op
// reads - an MMA that accumulates into it (init= absent or constant false),
// a tcgen05.ld or generic copy from it, a tcgen05 MMA operand in it - while
// NO op anywhere in the schedule writes it with a defined value (an MMA
// whose init= may be true, tcgen05.st, a copy into it) is read undefined on
// every path. Any write anywhere counts (path-insensitive), so a region
// that some op initializes is never reported here: whether that write
// precedes the read across roles is ordering, which the model checker
// decides.
static void uninitializedTmem(Gates& g) {
  const ir::Schedule& s = g.s;
  const size_t n = s.tmems.size();
  std::vector<bool> written(n, false);
  std::vector<const OpSite*> first_read(n, nullptr);
  const auto tmemIndex = [&](const ir::BufferRef& r) -> int {
    return r.kind == ir::BufferRef::Kind::Tmem && r.index >= 0 && static_cast<size_t>(r.index) < n ? r.index : -1;
  };
  for (const OpSite& site : g.sites) {
    const ir::Op& op = site.op();
    const auto read = [&](int t) {
      if (t >= 0 && !first_read[t]) first_read[t] = &site;
    };
    read(tmemIndex(op.src));
    read(tmemIndex(op.src2));
    const int d = tmemIndex(op.dst);
    if (d < 0) continue;
    if (op.kind == ir::OpKind::Mma && !mayInitialize(op))
      read(d);
    else
      written[d] = true;
  }
  for (size_t t = 0; t < n; ++t) {
    if (written[t] || !first_read[t]) continue;
    const ir::Op& op = first_read[t]->op();
    const ir::Tmem& tm = s.tmems[t];
    const bool accumulates = op.kind == ir::OpKind::Mma && tmemIndex(op.dst) == static_cast<int>(t);
    ir::Finding f = g.finding(
        "data.uninitialized", op.range.valid() ? op.range : first_read[t]->stmt->range,
        fmt::format("{} TMEM region '{}', which no op of the schedule writes with a defined value (no MMA into it "
                    "has an init= that can be true, no tcgen05.st or copy writes it): tcgen05.alloc does not clear "
                    "tensor memory, so {}",
                    accumulates ? "this MMA accumulates into" : "this op reads", tm.name,
                    accumulates ? "the products are added to undefined values (give the first MMA of each "
                                  "accumulation init=True)"
                                : "it reads undefined values"));
    Gates::note(f, tm.range, fmt::format("TMEM region '{}' declared here", tm.name));
    f.subject["tmem"] = tm.name;
    g.emit(std::move(f));
  }
}

void runTmemGates(Gates& g) {
  const ir::Schedule& s = g.s;
  if (g.ti.known && !g.ti.tmem) return;  // lm.tmem is a target.feature error there
  const int n = static_cast<int>(s.tmems.size());
  uninitializedTmem(g);

  for (int i = 0; i < n; ++i) {
    const ir::Tmem& tm = s.tmems[i];
    ExprPtr cols = tm.cols ? tm.cols : lit(0), width = tm.width ? tm.width : lit(0);
    // Inside the 512 columns.
    auto r = g.check("tmem.out-of-range", land(ge(cols, lit(0)), le(add(cols, width), lit(ir::hw::kTmemColumns))));
    if (r.kind == encoder::BvVerdict::Fails) {
      ir::Finding f = g.finding("tmem.out-of-range", tm.range,
                                fmt::format("TMEM region '{}' covers columns [{}, {}), outside the {} columns of "
                                            "tensor memory{}",
                                            tm.name, g.show(cols, &r), g.show(add(cols, width), &r),
                                            ir::hw::kTmemColumns, g.when(r)));
      useNote(g, f, i);
      f.subject["tmem"] = tm.name;
      g.emit(std::move(f), &r);
    }
    // At most 128 lanes.
    if (!tm.shape.empty()) {
      auto rl = g.check("tmem.out-of-range", land(ge(tm.shape[0], lit(1)), le(tm.shape[0], lit(ir::hw::kTmemLanes))));
      if (rl.kind == encoder::BvVerdict::Fails) {
        ir::Finding f = g.finding("tmem.out-of-range", tm.range,
                                  fmt::format("TMEM region '{}' has {} rows; tensor memory has {} lanes{}", tm.name,
                                              g.show(tm.shape[0], &rl), ir::hw::kTmemLanes, g.when(rl)));
        useNote(g, f, i);
        f.subject["tmem"] = tm.name;
        g.emit(std::move(f), &rl);
      }
    }
    // An allocatable width.
    auto rw = g.check("tmem.width", anyOf({eq(width, lit(32)), eq(width, lit(64)), eq(width, lit(128)),
                                           eq(width, lit(256)), eq(width, lit(512))}));
    if (rw.kind == encoder::BvVerdict::Fails) {
      ir::Finding f = g.finding("tmem.width", tm.range,
                                fmt::format("TMEM region '{}' is {} columns wide; tcgen05.alloc allocates a power "
                                            "of 2 of at least 32 columns (32, 64, 128, 256 or 512){}",
                                            tm.name, g.show(width, &rw), g.when(rw)));
      useNote(g, f, i);
      f.subject["tmem"] = tm.name;
      g.emit(std::move(f), &rw);
    } else if (tm.shape.size() >= 2) {
      // Wide enough for its shape (32-bit columns; 16-bit values pack two per column).
      ExprPtr need = cdiv(mul(tm.shape.back(), lit(ir::dtypeBytes(tm.dtype))), lit(4));
      auto rn = g.check("tmem.width", le(need, width));
      if (rn.kind == encoder::BvVerdict::Fails) {
        ir::Finding f = g.finding("tmem.width", tm.range,
                                  fmt::format("TMEM region '{}' is {} columns wide but its shape needs {} columns "
                                              "({} x {} per lane){}",
                                              tm.name, g.show(width, &rn), g.show(need, &rn),
                                              g.show(tm.shape.back(), &rn), ir::dtypeName(tm.dtype), g.when(rn)));
        useNote(g, f, i);
        f.subject["tmem"] = tm.name;
        g.emit(std::move(f), &rn);
      }
    }
  }

  // Disjoint column ranges.
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const ir::Tmem& ta = s.tmems[a];
      const ir::Tmem& tb = s.tmems[b];
      ExprPtr ca = ta.cols ? ta.cols : lit(0), cb = tb.cols ? tb.cols : lit(0);
      ExprPtr ea = add(ca, ta.width ? ta.width : lit(0)), eb = add(cb, tb.width ? tb.width : lit(0));
      auto r = g.check("tmem.overlap", lnot(land(lt(ca, eb), lt(cb, ea))));
      if (r.kind != encoder::BvVerdict::Fails) continue;
      auto lo = g.valueAt(max(ca, cb), &r), hi = g.valueAt(min(ea, eb), &r);
      ir::Finding f = g.finding(
          "tmem.overlap", tb.range,
          fmt::format("TMEM region '{}' shares columns {} with region '{}'{}", tb.name,
                      lo && hi ? fmt::format("[{}, {})", *lo, *hi) : std::string("?"), ta.name, g.when(r)));
      Gates::note(f, ta.range, fmt::format("TMEM region '{}' declared here", ta.name));
      f.subject["tmem"] = {ta.name, tb.name};
      g.emit(std::move(f), &r);
    }
  }

  // tcgen05.ld / tcgen05.st: warp w reaches lanes 32*(w%4) .. +31. The
  // rows a copy touches may depend on lm.instance() (per-warp ownership of
  // a lane quarter: tmem[32 * lm.instance() : ..., :]): they are evaluated
  // per instance; rows that depend on anything else ask for every quarter.
  std::set<std::pair<int, int>> reported;  // (role, tmem)
  for (const OpSite& site : g.sites) {
    const ir::Op& op = site.op();
    const bool moves = op.kind == ir::OpKind::Copy || op.kind == ir::OpKind::TmemLoad || op.kind == ir::OpKind::TmemStore;
    if (!moves || site.role < 0) continue;
    const ir::BufferRef* tref = nullptr;
    if (op.src.kind == ir::BufferRef::Kind::Tmem) tref = &op.src;
    else if (op.dst.kind == ir::BufferRef::Kind::Tmem) tref = &op.dst;
    if (!tref || tref->index < 0) continue;
    const ir::Tmem& tm = s.tmems[tref->index];
    // Lanes [lo, hi) instance `inst` touches (all 128 lanes when unknown).
    auto rowsOf = [&](int inst) -> std::pair<int64_t, int64_t> {
      ir::EvalEnv env;
      env.instance = inst;
      const ir::TmemLaneBounds b = ir::tmemLaneBounds(s, *tref, env);
      if (!b.lo || !b.hi) return {0, ir::hw::kTmemLanes};  // symbolic slice: ask for every quarter
      return {*b.lo, *b.hi};
    };
    const ir::Role& role = s.roles[site.role];
    for (int inst = 0; inst < role.instanceCount(); ++inst) {
      const auto [lo, hi] = rowsOf(inst);
      const std::vector<int> quarters = ir::tmemQuarters(lo, std::min<int64_t>(hi, ir::hw::kTmemLanes));
      const std::set<int> need(quarters.begin(), quarters.end());
      std::set<int> have;
      for (int w : g.instanceWarps(site.role, inst)) have.insert(ir::tmemQuarterOfWarp(w));
      std::vector<std::string> missing;
      for (int q : need)
        if (!have.count(q)) missing.push_back(fmt::format("lanes {}-{}", 32 * q, 32 * q + 31));
      g.fact("tmem.reader", missing.empty());
      if (missing.empty()) continue;
      if (!reported.insert({site.role, tref->index}).second) break;
      std::vector<std::string> ws;
      for (int w : g.instanceWarps(site.role, inst)) ws.push_back(std::to_string(w));
      bool read = tref == &op.src;
      ir::Finding f = g.finding(
          "tmem.reader", op.range.valid() ? op.range : site.stmt->range,
          fmt::format("instance {} of role '{}' (warps [{}]) {} rows [{}, {}) of TMEM region '{}', but no warp of "
                      "it reaches {} (warp w reaches lanes 32*(w%4)..32*(w%4)+31: slice each warp its own quarter, or use a warpgroup)",
                      inst, role.name, fmt::join(ws, ", "), read ? "reads" : "writes", lo, hi, tm.name,
                      fmt::join(missing, ", ")));
      Gates::note(f, role.range, fmt::format("role '{}' declared here", role.name));
      Gates::note(f, tm.range, fmt::format("TMEM region '{}' declared here", tm.name));
      f.subject["role"] = role.name;
      f.subject["instance"] = inst;
      f.subject["tmem"] = tm.name;
      g.emit(std::move(f));
      break;
    }
  }
}

}  // namespace cake::checks::layout
