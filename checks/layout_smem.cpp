// Shared memory: views inside pools, alignment, overlap notes, the
// per-block limit.
#include <algorithm>

#include <fmt/format.h>

#include "checks/layout_internal.h"
#include "ir/smem_layout.h"

namespace cake::checks::layout {

// The alignment view v's slots need and why (Gates::view_align_why).
static std::string alignReason(const Gates& g, int v) { return g.view_align_why[v]; }

void runSmemGates(Gates& g) {
  const ir::Schedule& s = g.s;
  const int nv = static_cast<int>(s.views.size());

  for (int v = 0; v < nv; ++v) {
    const ir::View& view = s.views[v];
    if (view.pool < 0 || view.pool >= static_cast<int>(s.pools.size())) continue;
    const ir::Pool& pool = s.pools[view.pool];
    ExprPtr off = view.offset ? view.offset : lit(0);
    ExprPtr pool_bytes = pool.bytes ? pool.bytes : lit(0);

    // Positive extents.
    bool extents_ok = true;
    for (size_t d = 0; d < view.shape.size(); ++d) {
      ExprPtr ext = view.shape[d] ? view.shape[d] : lit(0);
      auto r = g.check("layout.view-outside-pool", ge(ext, lit(1)));
      if (r.kind != encoder::BvVerdict::Fails) continue;
      extents_ok = false;
      ir::Finding f = g.finding("layout.view-outside-pool", view.range,
                                fmt::format("extent {} of view '{}' (dimension {}) is not positive{}", g.show(ext, &r),
                                            view.name, d, g.when(r)));
      f.subject["view"] = view.name;
      g.emit(std::move(f), &r);
    }
    if (!extents_ok) continue;

    // Inside the pool.
    auto r0 = g.check("layout.view-outside-pool", ge(off, lit(0)));
    if (r0.kind == encoder::BvVerdict::Fails) {
      ir::Finding f = g.finding("layout.view-outside-pool", view.range,
                                fmt::format("view '{}' starts at byte {}, before the start of pool '{}'{}", view.name,
                                            g.show(off, &r0), pool.name, g.when(r0)));
      Gates::note(f, pool.range, fmt::format("pool '{}' declared here", pool.name));
      f.subject["view"] = view.name;
      f.subject["pool"] = pool.name;
      g.emit(std::move(f), &r0);
      continue;
    }
    ExprPtr end = add(off, g.viewBytes(v));
    auto r1 = g.check("layout.view-outside-pool", le(end, pool_bytes));
    if (r1.kind == encoder::BvVerdict::Fails) {
      ir::Finding f = g.finding(
          "layout.view-outside-pool", view.range,
          fmt::format("view '{}' ends at byte {} ({} stage(s) of {} bytes from offset {}), past the end of pool "
                      "'{}' ({} bytes){}",
                      view.name, g.show(end, &r1), view.stages, g.show(g.slotBytes(v), &r1), g.show(off, &r1),
                      pool.name, g.show(pool_bytes, &r1), g.when(r1)));
      Gates::note(f, pool.range, fmt::format("pool '{}' declared here with {} bytes", pool.name, g.str(pool_bytes)));
      f.subject["view"] = view.name;
      f.subject["pool"] = pool.name;
      if (auto e = g.valueAt(end, &r1)) f.data["view_end"] = *e;
      if (auto e = g.valueAt(pool_bytes, &r1)) f.data["pool_bytes"] = *e;
      g.emit(std::move(f), &r1);
    }

    // Alignment of every slot.
    // The layout (ir/smem_layout.h) starts every pool at a multiple of
    // hw::kSmemPoolAlign from a base the kernel aligns the same way: the
    // view's address is aligned iff its offset in the pool is. Every view
    // starts on 16 bytes at least (the lowering places views there,
    // lowering/plan_build.cpp); its slots after the first on what its uses
    // need (a view only element-wise generic ops touch: its element).
    const int64_t a = g.view_align[v], a0 = std::max<int64_t>(a, 16);
    g.fact("layout.misaligned", ir::hw::kSmemPoolAlign % a0 == 0);
    auto ra = g.check("layout.misaligned", eq(mod(off, lit(a0)), lit(0)));
    if (ra.kind == encoder::BvVerdict::Fails) {
      ir::Finding f = g.finding("layout.misaligned", view.range,
                                fmt::format("view '{}' starts at offset {}, which is not a multiple of {}{}", view.name,
                                            g.show(off, &ra),
                                            a0 > a ? std::string("16 bytes, where every view starts") : alignReason(g, v),
                                            g.when(ra)));
      Gates::note(f, pool.range,
                  fmt::format("pool '{}' starts {}-byte aligned", pool.name, ir::hw::kSmemPoolAlign));
      f.subject["view"] = view.name;
      f.data["alignment"] = a0;
      g.emit(std::move(f), &ra);
    } else if (view.stages > 1) {
      ExprPtr slot = g.slotBytes(v);
      auto rs = g.check("layout.misaligned", eq(mod(slot, lit(a)), lit(0)));
      if (rs.kind == encoder::BvVerdict::Fails) {
        ir::Finding f = g.finding(
            "layout.misaligned", view.range,
            fmt::format("slot 1 of view '{}' starts {} bytes after slot 0, not a multiple of {}{}", view.name,
                        g.show(slot, &rs), alignReason(g, v), g.when(rs)));
        if (const OpSite* use = g.view_tma[v] ? g.firstUse(ir::BufferRef::Kind::View, v, ir::OpKind::TmaLoad) : nullptr)
          Gates::note(f, use->op().range, "a TMA copy writes each slot");
        else if (const OpSite* u2 = g.view_tma[v] ? g.firstUse(ir::BufferRef::Kind::View, v, ir::OpKind::TmaStore) : nullptr)
          Gates::note(f, u2->op().range, "a TMA copy reads each slot");
        f.subject["view"] = view.name;
        f.subject["slot"] = 1;
        f.data["alignment"] = a;
        g.emit(std::move(f), &rs);
      }
    }
  }

  // Views sharing bytes of a pool: a note for the race checker.
  for (int a = 0; a < nv; ++a) {
    for (int b = a + 1; b < nv; ++b) {
      const ir::View& va = s.views[a];
      const ir::View& vb = s.views[b];
      if (va.pool != vb.pool || va.pool < 0) continue;
      ExprPtr oa = va.offset ? va.offset : lit(0), ob = vb.offset ? vb.offset : lit(0);
      ExprPtr ea = add(oa, g.viewBytes(a)), eb = add(ob, g.viewBytes(b));
      // Informational: only an undecided query shows up in the verdicts.
      auto r = g.prover.witness(land(lt(oa, eb), lt(ob, ea)));
      if (r.kind == encoder::BvVerdict::Unknown || r.kind == encoder::BvVerdict::Error)
        g.record("layout.overlap", r, true);
      if (r.kind != encoder::BvVerdict::Fails) continue;
      ExprPtr lo = max(oa, ob), hi = min(ea, eb);
      auto lov = g.valueAt(lo, &r), hiv = g.valueAt(hi, &r);
      std::string bytes = lov && hiv ? fmt::format("bytes [{}, {})", *lov, *hiv) : "bytes";
      ir::Finding f = g.finding(
          "layout.overlap", vb.range,
          fmt::format("view '{}' shares {} of pool '{}' with view '{}'{}; the race checker orders their uses",
                      vb.name, bytes, s.pools[va.pool].name, va.name, r.constant ? "" : g.when(r)));
      Gates::note(f, va.range, fmt::format("view '{}' declared here", va.name));
      f.subject["views"] = {va.name, vb.name};
      f.subject["pool"] = s.pools[va.pool].name;
      if (lov && hiv) f.data["bytes"] = {*lov, *hiv};
      f.data["always"] = false;
      // Overlapping for every allowed value, or only for some?
      auto always = g.prover.prove(land(lt(oa, eb), lt(ob, ea)));
      f.data["always"] = always.kind == encoder::BvVerdict::Holds;
      g.emit(std::move(f));
    }
  }

  // The per-block limit, on what the kernel requests at launch: the layout
  // plus the alignment slack (ir::requestedSmemBytes), as the lowering
  // places and launches it (ir/smem_layout.h).
  if (!g.ti.known) return;
  const ir::SmemLayout L = ir::smemLayout(s);
  for (size_t p = 0; p < s.pools.size(); ++p) {
    ExprPtr bytes = s.pools[p].bytes ? s.pools[p].bytes : lit(0);
    auto r = g.check("layout.smem-limit", ge(bytes, lit(0)));
    if (r.kind == encoder::BvVerdict::Fails) {
      ir::Finding f = g.finding("layout.smem-limit", s.pools[p].range,
                                fmt::format("pool '{}' has a negative size {}{}", s.pools[p].name,
                                            g.show(bytes, &r), g.when(r)));
      g.emit(std::move(f), &r);
    }
  }
  const int64_t limit = g.ti.smem_per_block;
  const int64_t slack = ir::hw::kSmemAlignSlack;
  auto r = g.check("layout.smem-limit", le(L.requested, lit(limit)));
  if (r.kind == encoder::BvVerdict::Holds && L.scratch_bound > 0) {
    // The lowering adds a reduction scratch after the layout for the roles
    // whose fragment layout needs one (a cross-warp reduction); which do is
    // the lowering's choice, not known here. Proved when even all of them
    // fit; else undecided (cake lower decides, with a located error).
    ExprPtr with_scratch = add(add(L.scratch_base, lit(L.scratch_bound)), lit(slack));
    encoder::BvResult rs = g.prover.prove(le(with_scratch, lit(limit)));
    if (rs.kind == encoder::BvVerdict::Fails) {
      std::vector<std::string> roles;
      for (int role : L.scratch_roles) roles.push_back("'" + s.roles[role].name + "'");
      auto at = g.valueAt(L.scratch_base, &rs);
      const std::string when = g.when(rs);
      rs.kind = encoder::BvVerdict::Unknown;
      rs.detail = fmt::format(
          "the reduction scratch the lowering may add for role(s) {} ({} bytes from byte {}, after the layout) would "
          "exceed the {} bytes {} allows per block{}; whether a role needs it depends on the lowering's fragment "
          "layout (cake lower decides)",
          fmt::join(roles, ", "), L.scratch_bound, at ? std::to_string(*at) : g.str(L.scratch_base), limit,
          ir::targetName(g.ti.target), when);
    }
    g.record("layout.smem-limit", rs, !rs.constant);
  }
  if (r.kind != encoder::BvVerdict::Fails) return;
  // Blame the first pool whose end, with the slack, crosses the limit (else
  // the barriers, else the TMEM address slot).
  ir::SourceRange at = s.range;
  std::string culprit;
  int blamed = -1;
  for (size_t p = 0; p < s.pools.size(); ++p) {
    auto e = g.valueAt(L.pool_end[p], &r);
    if (e && *e + slack > limit) {
      blamed = static_cast<int>(p);
      break;
    }
  }
  if (blamed >= 0) {
    at = s.pools[blamed].range;
    culprit = fmt::format("pool '{}' ends at byte {}", s.pools[blamed].name, g.show(L.pool_end[blamed], &r));
  } else if (!s.barriers.empty()) {
    at = s.barriers.front().range;
    culprit = fmt::format("the {} mbarrier(s) end at byte {}", L.barrier_slots,
                          g.show(add(L.barrier_base, lit(ir::hw::kMbarrierBytes * L.barrier_slots)), &r));
  } else if (L.tmem_slot) {
    at = s.tmems.front().range;
    culprit = fmt::format("the TMEM address slot ends at byte {}", g.show(L.total, &r));
  }
  auto total = g.valueAt(L.total, &r);
  ir::Finding f = g.finding(
      "layout.smem-limit", at,
      fmt::format("the block needs {} bytes of shared memory ({} of layout + {} alignment slack), more than the {} "
                  "bytes {} allows per block{}{}",
                  total ? std::to_string(*total + slack) : g.str(L.requested),
                  total ? std::to_string(*total) : g.str(L.total), slack, limit, ir::targetName(g.ti.target),
                  culprit.empty() ? "" : ": " + culprit, g.when(r)));
  for (size_t p = 0; p < s.pools.size(); ++p) {
    if (static_cast<int>(p) == blamed) continue;
    auto b = g.valueAt(L.pool_base[p], &r);
    auto e = g.valueAt(L.pool_end[p], &r);
    Gates::note(f, s.pools[p].range,
                fmt::format("pool '{}' occupies bytes [{}, {})", s.pools[p].name, b ? std::to_string(*b) : "?",
                            e ? std::to_string(*e) : "?"));
  }
  if (blamed >= 0) {
    for (size_t v = 0; v < s.views.size(); ++v) {
      if (s.views[v].pool != blamed) continue;
      auto vb = g.valueAt(g.viewBytes(static_cast<int>(v)), &r);
      Gates::note(f, s.views[v].range,
                  fmt::format("view '{}' takes {} bytes ({} stage(s))", s.views[v].name,
                              vb ? std::to_string(*vb) : g.str(g.viewBytes(static_cast<int>(v))), s.views[v].stages));
    }
  }
  if (L.barrier_slots > 0 && !(blamed < 0)) {
    Gates::note(f, s.barriers.front().range,
                fmt::format("{} mbarrier slot(s) take {} bytes after the pools", L.barrier_slots,
                            ir::hw::kMbarrierBytes * L.barrier_slots));
  }
  if (total) {
    f.data["bytes"] = *total;
    f.data["requested"] = *total + slack;
  }
  f.data["align_slack"] = slack;
  f.data["limit"] = limit;
  g.emit(std::move(f), &r);
}

// The global side of a cp.async (docs/rules/layout.misaligned.md): the
// lowering copies a slot row in chunks of ir::cpAsyncChunkBytes (16, 8 or 4
// bytes, lowering/emit_copy.cpp cpAsyncChunk) from the tensor's element
// `base + (r0 + r) * row_stride + c0 + c`, c a multiple of the chunk's
// elements, and cp.async needs its global source aligned to the chunk as
// much as its shared destination. The IR names the column c0 (the last
// coordinate); the tensor's strides are the launch's (docs/known-limits.md).
// So c0 must be a multiple of the chunk's elements wherever the copy runs.
// `e` is a multiple of n whatever its symbols are: a constant multiple of
// n, a product with such a factor, a sum or difference of such terms. The
// solver is asked only where this does not show it (`(k_lo + k + 2) * 32`
// of the split-K GEMM, under guards with lm.cdiv and min, took a query 120 s
// and left the verdict unknown).
static bool visiblyMultipleOf(const ir::Expr& e, int64_t n) {
  switch (e.kind) {
    case ir::ExprKind::Const: return e.value % n == 0;
    case ir::ExprKind::Mul:
      return std::any_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return a && visiblyMultipleOf(*a, n); });
    case ir::ExprKind::Add:
    case ir::ExprKind::Sub:
    case ir::ExprKind::Neg:
      return std::all_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return a && visiblyMultipleOf(*a, n); });
    default: return false;
  }
}

void runCpAsyncGlobalGates(Gates& g) {
  const ir::Schedule& s = g.s;
  for (const OpSite& site : g.sites) {
    const ir::Op& op = site.op();
    if (op.kind != ir::OpKind::CpAsync || op.coords.empty() || !op.coords.back()) continue;
    if (op.dst.kind != ir::BufferRef::Kind::View || op.dst.index < 0 ||
        op.dst.index >= static_cast<int>(s.views.size()))
      continue;
    const ir::View& view = s.views[op.dst.index];
    const int64_t eb = ir::dtypeBytes(view.dtype);
    const auto cols = view.shape.empty() ? std::optional<int64_t>(1) : ir::constValue(view.shape.back());
    const int64_t chunk = cols ? ir::cpAsyncChunkBytes(*cols * eb) : 0;
    if (chunk <= eb) continue;  // element copies, or one element per chunk: the element's own alignment
    const int64_t elems = chunk / eb;
    const ExprPtr& c0 = op.coords.back();
    if (visiblyMultipleOf(*c0, elems)) {
      g.fact("layout.misaligned", true);
      continue;
    }
    auto r = g.check("layout.misaligned", eq(mod(c0, lit(elems)), lit(0)), site.premises);
    if (r.kind != encoder::BvVerdict::Fails) continue;
    const std::string tensor = op.src.kind == ir::BufferRef::Kind::Param ? g.refName(op.src) : "the tensor";
    ir::Finding f = g.finding(
        "layout.misaligned", op.range,
        fmt::format("the cp.async into '{}' copies {}-byte chunks from column {} of '{}', which is not a multiple "
                    "of {} elements ({} bytes of {}): the chunk's global address is not {}-byte aligned{}",
                    view.name, chunk, g.show(c0, &r), tensor, elems, chunk, ir::dtypeName(view.dtype), chunk,
                    g.when(r)));
    Gates::note(f, view.range,
                fmt::format("view '{}' has rows of {} bytes, copied in {}-byte chunks", view.name, *cols * eb, chunk));
    f.subject["view"] = view.name;
    f.data["alignment"] = chunk;
    g.emit(std::move(f), &r);
  }
}

}  // namespace cake::checks::layout
