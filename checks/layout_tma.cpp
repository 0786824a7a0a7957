// TMA: box extents, inner bytes, swizzle span, element types, and explicit
// expect_tx against the bytes of the boxes aimed at the same slot/phase.
#include <fmt/format.h>

#include "checks/layout_internal.h"

namespace cake::checks::layout {

namespace {

// Element types the copy engine takes (CUtensorMapDataType; fp8 travels as
// 8-bit integers). Every cake dtype is one today; the table is where a new
// dtype (sub-byte, f64, ...) must be decided.
bool tmaDtypeSupported(ir::DType d) {
  switch (d) {
    case ir::DType::BF16:
    case ir::DType::F16:
    case ir::DType::F32:
    case ir::DType::E4M3:
    case ir::DType::E5M2:
    case ir::DType::I8:
    case ir::DType::I32:
      return true;
  }
  return false;
}

}  // namespace

void runTmaGates(Gates& g) {
  const ir::Schedule& s = g.s;
  if (g.ti.known && !g.ti.tma) return;  // TMA ops are target.feature errors there

  std::set<std::pair<std::string, int>> reported;  // (rule, view) for unsliced boxes
  std::map<int, const OpSite*> first_use;          // tensor param -> first TMA op
  for (const OpSite& site : g.sites) {
    const ir::Op& op = site.op();
    if (op.kind != ir::OpKind::TmaLoad && op.kind != ir::OpKind::TmaStore) continue;
    bool load = op.kind == ir::OpKind::TmaLoad;
    const ir::BufferRef& vref = load ? op.dst : op.src;
    const ir::BufferRef& tref = load ? op.src : op.dst;
    if (vref.kind != ir::BufferRef::Kind::View || vref.index < 0) continue;
    const ir::View& view = s.views[vref.index];
    std::vector<ExprPtr> box = g.refShape(vref);
    if (box.empty()) continue;
    int bytes = ir::dtypeBytes(view.dtype);
    bool sliced = !vref.slices.empty();
    std::string opname(ir::opName(op.kind));
    std::string tname = tref.kind == ir::BufferRef::Kind::Param ? s.params[tref.index].name : std::string("?");
    const ir::SourceRange& oprange = op.range.valid() ? op.range : site.stmt->range;
    ir::SourceRange at = sliced ? oprange : view.range;
    auto once = [&](const char* rule) {
      if (sliced) return true;
      return reported.insert({rule, vref.index}).second;
    };
    auto useNote = [&](ir::Finding& f) {
      Gates::note(f, oprange, fmt::format("{} of '{}' moves one box of this shape", opname, tname));
      f.subject["view"] = view.name;
      f.subject["tensor"] = tname;
    };

    // Box rank vs. tensor rank.
    if (tref.kind == ir::BufferRef::Kind::Param) {
      int rank = ir::tmaRank(s.params[tref.index].type);
      bool ok = rank == 0 || static_cast<int>(box.size()) <= rank;
      g.fact("tma.box-extent", ok);
      if (!ok && once("tma.box-extent")) {
        ir::Finding f = g.finding("tma.box-extent", at,
                                  fmt::format("the box of view '{}' has {} dimensions but tensor '{}' is {}",
                                              view.name, box.size(), tname,
                                              ir::paramTypeName(s.params[tref.index].type)));
        useNote(f);
        Gates::note(f, s.params[tref.index].range, fmt::format("tensor '{}' declared here", tname));
        g.emit(std::move(f));
      }
    }
    // Each extent in 1..256.
    for (size_t d = 0; d < box.size(); ++d) {
      auto r = g.check("tma.box-extent", land(ge(box[d], lit(1)), le(box[d], lit(256))), site.premises);
      if (r.kind != encoder::BvVerdict::Fails) continue;
      if (!once("tma.box-extent")) continue;
      ir::Finding f = g.finding("tma.box-extent", at,
                                fmt::format("box dimension {} of view '{}' is {} elements; a TMA box dimension "
                                            "must be 1..256{}",
                                            d, view.name, g.show(box[d], &r), g.when(r)));
      useNote(f);
      g.emit(std::move(f), &r);
      break;
    }
    // Inner bytes multiple of 16.
    ExprPtr inner = mul(box.back(), lit(bytes));
    {
      auto r = g.check("tma.inner-bytes", eq(mod(inner, lit(16)), lit(0)), site.premises);
      if (r.kind == encoder::BvVerdict::Fails && once("tma.inner-bytes")) {
        ir::Finding f = g.finding("tma.inner-bytes", at,
                                  fmt::format("the inner box dimension of view '{}' is {} bytes ({} x {}), not a "
                                              "multiple of 16{}",
                                              view.name, g.show(inner, &r), g.show(box.back(), &r),
                                              ir::dtypeName(view.dtype), g.when(r)));
        useNote(f);
        g.emit(std::move(f), &r);
      }
    }
    // Swizzle span.
    if (view.swizzle != ir::Swizzle::None) {
      int span = ir::swizzleBytes(view.swizzle);
      auto r = g.check("tma.swizzle-span", le(inner, lit(span)), site.premises);
      if (r.kind == encoder::BvVerdict::Fails && once("tma.swizzle-span")) {
        ir::Finding f = g.finding("tma.swizzle-span", at,
                                  fmt::format("the inner box row of view '{}' is {} bytes, wider than its {} "
                                              "swizzle span ({} bytes){}",
                                              view.name, g.show(inner, &r), ir::swizzleName(view.swizzle), span,
                                              g.when(r)));
        useNote(f);
        g.emit(std::move(f), &r);
      }
    }
    // Element type: supported, and one per tensor descriptor.
    {
      bool ok = tmaDtypeSupported(view.dtype);
      g.fact("tma.dtype", ok);
      if (!ok && once("tma.dtype")) {
        ir::Finding f = g.finding("tma.dtype", at,
                                  fmt::format("the copy engine does not move {} elements (view '{}')",
                                              ir::dtypeName(view.dtype), view.name));
        useNote(f);
        g.emit(std::move(f));
      }
    }
    if (tref.kind == ir::BufferRef::Kind::Param) {
      auto [it, inserted] = first_use.emplace(tref.index, &site);
      if (!inserted) {
        const ir::Op& op0 = it->second->op();
        const ir::BufferRef& v0 = op0.kind == ir::OpKind::TmaLoad ? op0.dst : op0.src;
        ir::DType d0 = s.views[v0.index].dtype;
        bool ok = d0 == view.dtype;
        g.fact("tma.dtype", ok);
        if (!ok) {
          ir::Finding f = g.finding(
              "tma.dtype", oprange,
              fmt::format("{} moves {} elements through tensor '{}', whose descriptor already has element type "
                          "{} (view '{}')",
                          opname, ir::dtypeName(view.dtype), tname, ir::dtypeName(d0), s.views[v0.index].name));
          Gates::note(f, op0.range.valid() ? op0.range : it->second->stmt->range,
                      fmt::format("first TMA copy through '{}', with {} elements", tname, ir::dtypeName(d0)));
          f.subject["tensor"] = tname;
          g.emit(std::move(f));
        }
      }
    }
  }

  // Explicit expect_tx vs. the boxes completing on the same slot and phase.
  // Every expect_tx of one block that names the same barrier slot and phase
  // adds to that phase's transaction count (init_count = 2 with one
  // arrive.expect_tx per load is as correct as one expect_tx for both), so
  // the announced bytes are the sum over those ops; the first of them reports.
  auto sameSlotPhase = [&](const OpSite& a, const OpSite& b) {
    const ir::Op& x = a.op();
    const ir::Op& y = b.op();
    if (x.barrier != y.barrier || a.block != b.block || x.sel.mode != y.sel.mode) return false;
    if (!ir::sameOptExpr(x.sel.index, y.sel.index)) {
      // Same slot and phase written differently (k + 0 vs k)?
      if (!x.sel.index || !y.sel.index) return false;
      auto r = g.prover.prove(eq(x.sel.index, y.sel.index), a.premises);
      if (r.kind != encoder::BvVerdict::Holds) return false;
    }
    return ir::sameOptExpr(x.sel.phase, y.sel.phase);
  };
  // The comparison above pairs an expect_tx with the loads of its own block.
  // It is complete only if no other load can bring bytes to that phase: a
  // load of the same slot and phase under an `if` inside that block (the
  // loads taken on one path, e.g. a multicast share or a whole tile), or a
  // multicast load on the barrier (peers' boxes land here, this CTA's land
  // there). Then the model checker, which counts what lands, decides.
  auto nestedIn = [](const ir::Block* inner, const ir::Block& outer, auto& self) -> bool {
    for (const ir::Stmt& st : outer) {
      if (st.kind == ir::Stmt::Kind::Op) continue;
      if (&st.body == inner || &st.orelse == inner) return true;
      if (self(inner, st.body, self) || self(inner, st.orelse, self)) return true;
    }
    return false;
  };
  // A load on the barrier in another block that announces nothing there
  // (no expect_tx on the barrier in its own block) has its bytes announced
  // elsewhere, perhaps by this expect_tx: a prologue that arms a slot and
  // loads one operand before griddepcontrol.wait, with the other operand
  // loaded in the loop after it; an expect_tx under `if k >= S` with a load
  // of every iteration around it; a second producer role's load. The
  // pairing is incomplete then too.
  auto announcesInBlock = [&](const ir::Block* block, int barrier) {
    for (const OpSite& a : g.sites)
      if (a.block == block && a.op().kind == ir::OpKind::ExpectTx && a.op().barrier == barrier) return true;
    return false;
  };
  auto pairingIncomplete = [&](const OpSite& ex) {
    for (const OpSite& other : g.sites) {
      const ir::Op& op = other.op();
      if (op.kind != ir::OpKind::TmaLoad || op.barrier != ex.op().barrier) continue;
      if (op.multicast) return true;
      if (other.block != ex.block && !announcesInBlock(other.block, op.barrier)) return true;
      if (other.role != ex.role || other.block == ex.block || !nestedIn(other.block, *ex.block, nestedIn)) continue;
      const ir::Op& x = ex.op();
      if (x.sel.mode == op.sel.mode && ir::sameOptExpr(x.sel.index, op.sel.index) &&
          ir::sameOptExpr(x.sel.phase, op.sel.phase))
        return true;
    }
    return false;
  };
  for (const OpSite& site : g.sites) {
    const ir::Op& ex = site.op();
    if (ex.kind != ir::OpKind::ExpectTx || ex.barrier < 0 || !ex.bytes) continue;
    if (pairingIncomplete(site)) continue;
    std::vector<const OpSite*> matched;
    std::vector<const OpSite*> announcers;
    bool first = true;
    for (const OpSite& other : g.sites) {
      const ir::Op& op = other.op();
      if (op.kind == ir::OpKind::ExpectTx && op.bytes && sameSlotPhase(site, other)) {
        if (announcers.empty() && &other != &site) first = false;
        announcers.push_back(&other);
      }
      if (op.kind == ir::OpKind::TmaLoad && sameSlotPhase(site, other)) matched.push_back(&other);
    }
    if (!first) continue;
    ExprPtr announced = lit(0);
    for (const OpSite* a : announcers) announced = add(announced, a->op().bytes);
    const std::string who =
        announcers.size() > 1 ? fmt::format("the {} expect_tx on this slot and phase announce", announcers.size())
                              : std::string("expect_tx announces");
    const ir::Barrier& bar = s.barriers[ex.barrier];
    const ir::SourceRange& exrange = ex.range.valid() ? ex.range : site.stmt->range;
    if (matched.empty()) {
      // Loads on this barrier elsewhere: leave the pairing to the model checker.
      bool any = false;
      for (const OpSite& other : g.sites)
        if (other.op().kind == ir::OpKind::TmaLoad && other.op().barrier == ex.barrier) any = true;
      if (any) continue;
      auto r = g.check("sync.tx-imbalance", eq(announced, lit(0)), site.premises);
      if (r.kind != encoder::BvVerdict::Fails) continue;
      ir::Finding f = g.finding("sync.tx-imbalance", exrange,
                                fmt::format("{} {} bytes on barrier '{}', but no TMA load "
                                            "completes on it: the phase never completes{}",
                                            who, g.show(announced, &r), bar.name, g.when(r)));
      Gates::note(f, bar.range, fmt::format("barrier '{}' declared here", bar.name));
      f.subject["barrier"] = bar.name;
      g.emit(std::move(f), &r);
      continue;
    }
    ExprPtr sum = lit(0);
    for (const OpSite* m : matched) {
      const ir::BufferRef& v = m->op().dst;
      if (v.kind != ir::BufferRef::Kind::View) continue;
      sum = add(sum, mul(product(g.refShape(v)), lit(ir::dtypeBytes(s.views[v.index].dtype))));
    }
    auto r = g.check("sync.tx-imbalance", eq(announced, sum), site.premises);
    if (r.kind != encoder::BvVerdict::Fails) continue;
    ir::Finding f = g.finding(
        "sync.tx-imbalance", exrange,
        fmt::format("{} {} bytes on barrier '{}', but the {} TMA load(s) aimed at the same slot "
                    "and phase bring {} bytes{}",
                    who, g.show(announced, &r), bar.name, matched.size(), g.show(sum, &r), g.when(r)));
    for (const OpSite* a : announcers)
      if (a != &site)
        Gates::note(f, a->op().range.valid() ? a->op().range : a->stmt->range,
                    fmt::format("this expect_tx announces {} bytes", g.show(a->op().bytes, &r)));
    for (const OpSite* m : matched) {
      const ir::BufferRef& v = m->op().dst;
      std::string vname = v.kind == ir::BufferRef::Kind::View ? s.views[v.index].name : "?";
      ExprPtr b = v.kind == ir::BufferRef::Kind::View
                      ? mul(product(g.refShape(v)), lit(ir::dtypeBytes(s.views[v.index].dtype)))
                      : lit(0);
      Gates::note(f, m->op().range.valid() ? m->op().range : m->stmt->range,
                  fmt::format("this load of '{}' brings {} bytes", vname, g.show(b, &r)));
    }
    f.subject["barrier"] = bar.name;
    if (auto e = g.valueAt(announced, &r)) f.data["expected"] = *e;
    if (auto e = g.valueAt(sum, &r)) f.data["boxes"] = *e;
    g.emit(std::move(f), &r);
  }
}

}  // namespace cake::checks::layout
