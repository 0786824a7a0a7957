// Two CTAs of the grid storing one global element: a write-write race
// (sync.race on global memory). Nothing in the IR orders two CTAs (a
// cluster barrier orders the CTAs of one cluster only), so a store whose
// boxes for two different CTAs may share an element is the finding; the
// final value of that element depends on which CTA's store lands last.
// docs/semantics.md "Global memory" and docs/known-limits.md say what is
// checked and what is left out.
#include <fmt/format.h>

#include "checks/layout_internal.h"
#include "ir/global_box.h"

namespace cake::checks::layout {

namespace {

using ir::ExprKind;

// One store of a tile to a global tensor: where it runs, the box's first
// index per tensor dimension and its (constant) extents.
struct GlobalStore {
  const OpSite* site = nullptr;
  int tensor = -1;
  std::vector<ExprPtr> coords;
  std::vector<int64_t> box;
};

// The second CTA of a pair: the same parameters and grid, its own block
// indices, loop variables and role instance. Those are fresh loop-variable
// symbols past the schedule's (the prover ranges a loop variable over the
// 32-bit integers; the premises narrow it as they narrow the first CTA's).
class SecondCta {
 public:
  explicit SecondCta(const ir::Schedule& s) : loops_(static_cast<int>(s.loop_vars.size())) {}
  int loopVar(int i) const { return loops_ + i; }
  int blockVar(int d) const { return 2 * loops_ + d; }
  int instanceVar() const { return 2 * loops_ + 3; }

  ExprPtr operator()(const ExprPtr& e) const {
    if (!e) return e;
    switch (e->kind) {
      case ExprKind::LoopVar: return symbol(ExprKind::LoopVar, loopVar(e->index));
      case ExprKind::BlockIdx: return symbol(ExprKind::LoopVar, blockVar(e->index));
      case ExprKind::Instance: return symbol(ExprKind::LoopVar, instanceVar());
      default: break;
    }
    if (e->args.empty()) return e;
    auto copy = std::make_shared<ir::Expr>(*e);
    for (ExprPtr& a : copy->args) a = (*this)(a);
    return copy;
  }
  // The second CTA's values in a witness, as an evaluation environment.
  ir::EvalEnv env(const ir::Schedule& s, const encoder::BvModel& m) const {
    ir::EvalEnv e = m.env(s);
    auto value = [&](int var) {
      auto it = m.loop_vars.find(var);
      return it == m.loop_vars.end() ? int64_t{0} : it->second;
    };
    for (int i = 0; i < loops_; ++i) e.loop_vars[i] = value(loopVar(i));
    for (int d = 0; d < 3; ++d) e.block_idx[d] = value(blockVar(d));
    e.instance = value(instanceVar());
    return e;
  }

 private:
  int loops_;
};

// The extents of a store's tile, constant over the role's instances (a
// slice `[64 * lm.instance():64 * lm.instance() + 64]` is 64 rows for each).
std::optional<std::vector<int64_t>> tileExtents(const Gates& g, const ir::BufferRef& tile, int role) {
  const std::vector<ExprPtr> shape = g.refShape(tile);
  if (shape.empty()) return std::nullopt;
  const int instances = role >= 0 ? std::max(g.s.roles[role].instanceCount(), 1) : 1;
  std::vector<int64_t> out;
  for (const ExprPtr& x : shape) {
    std::optional<int64_t> v;
    for (int i = 0; i < instances; ++i) {
      ir::EvalEnv env;
      env.instance = i;
      auto xi = x ? ir::evaluate(*x, env) : std::nullopt;
      if (!xi || (v && *v != *xi)) return std::nullopt;
      v = xi;
    }
    out.push_back(*v);
  }
  return out;
}

// The stores of the schedule (a TMA store, an lm.copy to a tensor with
// coords=); nullopt with the reason where one cannot be placed.
std::vector<GlobalStore> globalStores(const Gates& g, std::vector<std::string>& unplaced) {
  std::vector<GlobalStore> out;
  for (const OpSite& site : g.sites) {
    const ir::Op& op = site.op();
    const bool tma = op.kind == ir::OpKind::TmaStore;
    if (!tma && op.kind != ir::OpKind::Copy) continue;
    if (op.dst.kind != ir::BufferRef::Kind::Param || op.coords.empty()) continue;
    const int rank = static_cast<int>(op.coords.size());
    const auto shape = tileExtents(g, op.src, site.role);
    std::vector<int64_t> box;
    if (shape) box = tma ? ir::tmaBoxShape(*shape, rank) : ir::copyBoxShape(*shape, rank);
    if (static_cast<int>(box.size()) != rank) {
      unplaced.push_back(fmt::format("line {}: the stored tile's box is not a constant box of the tensor's rank",
                                     op.range.line));
      continue;
    }
    out.push_back({&site, op.dst.index, op.coords, std::move(box)});
  }
  return out;
}

// The grid dimensions the schedule tells apart: those some lm.block_idx
// reads. Lowering launches one block along the others (docs/rules/lower.grid.md).
std::vector<int> gridDims(const Gates& g) {
  bool used[3] = {false, false, false};
  auto walk = [&](auto& self, const ExprPtr& e) -> void {
    if (!e) return;
    if (e->kind == ExprKind::BlockIdx && e->index >= 0 && e->index < 3) used[e->index] = true;
    for (const ExprPtr& a : e->args) self(self, a);
  };
  for (const OpSite& site : g.sites) {
    for (const ExprPtr& p : site.premises) walk(walk, p);
    for (const ExprPtr& c : site.op().coords) walk(walk, c);
  }
  std::vector<int> out;
  for (int d = 0; d < 3; ++d)
    if (used[d]) out.push_back(d);
  return out;
}

bool usesClusterSync(const Gates& g) {
  return std::any_of(g.sites.begin(), g.sites.end(),
                     [](const OpSite& site) { return site.op().kind == ir::OpKind::ClusterSync; });
}

// The second CTA's block indices lie in the grid, and the lm.assume facts
// that read a block index hold for it too.
void pushSecondCtaPremises(const Gates& g, const SecondCta& other, const std::vector<int>& dims,
                           std::vector<ExprPtr>& premises) {
  for (int d : dims) {
    ExprPtr b = symbol(ExprKind::LoopVar, other.blockVar(d));
    premises.push_back(ge(b, lit(0)));
    premises.push_back(lt(b, symbol(ExprKind::GridDim, d)));
  }
  for (const ir::Assume& a : g.s.assumes)
    if (a.cond && ir::exprUses(*a.cond, {ExprKind::BlockIdx, ExprKind::Instance})) premises.push_back(other(a.cond));
}

// Some element with every index >= 0 lies in both boxes (indices below 0
// name no element: the emitted code guards them, TMA clips them).
ExprPtr boxesMeet(const GlobalStore& a, const GlobalStore& b, const SecondCta& other) {
  std::vector<ExprPtr> all;
  for (size_t d = 0; d < a.coords.size(); ++d) {
    ExprPtr ca = a.coords[d], cb = other(b.coords[d]);
    ExprPtr lo = max(max(ca, cb), lit(0));
    ExprPtr hi = min(add(ca, lit(a.box[d])), add(cb, lit(b.box[d])));
    all.push_back(lt(lo, hi));
  }
  return allOf(all);
}

std::string ctaText(const ir::EvalEnv& env, const std::vector<int>& dims) {
  std::vector<std::string> parts;
  for (int d : dims) parts.push_back(fmt::format("lm.block_idx({}) = {}", d, env.block_idx[d].value_or(0)));
  return fmt::format("CTA ({})", fmt::join(parts, ", "));
}

std::string elementText(const GlobalStore& a, const GlobalStore& b, const ir::EvalEnv& ea, const ir::EvalEnv& eb) {
  std::vector<std::string> idx;
  for (size_t d = 0; d < a.coords.size(); ++d) {
    auto ca = ir::evaluate(*a.coords[d], ea), cb = ir::evaluate(*b.coords[d], eb);
    idx.push_back(ca && cb ? std::to_string(std::max({*ca, *cb, int64_t{0}})) : std::string("?"));
  }
  return fmt::format("({})", fmt::join(idx, ", "));
}

std::string loopText(const Gates& g, const OpSite& site, const ir::EvalEnv& env) {
  std::vector<std::string> parts;
  auto walk = [&](auto& self, const ExprPtr& e) -> void {
    if (!e) return;
    if (e->kind == ExprKind::LoopVar && e->index >= 0 && e->index < static_cast<int>(g.s.loop_vars.size())) {
      std::string p = fmt::format("{} = {}", g.s.loop_vars[e->index].name, env.loop_vars.count(e->index)
                                                                             ? env.loop_vars.at(e->index)
                                                                             : 0);
      if (std::find(parts.begin(), parts.end(), p) == parts.end()) parts.push_back(p);
    }
    for (const ExprPtr& x : e->args) self(self, x);
  };
  for (const ExprPtr& c : site.op().coords) walk(walk, c);
  return parts.empty() ? "" : fmt::format(" at {}", fmt::join(parts, ", "));
}


// A grid-stride tile index `lm.block_idx(d) + t * E` (a persistent loop's
// tile; E reads no block index, loop variable or instance).
struct GridStride {
  int dim = -1;
  int loop = -1;
  ExprPtr step;
  bool same(const GridStride& o) const {
    return dim == o.dim && loop == o.loop && step && o.step && ir::sameExpr(*step, *o.step);
  }
};

std::optional<GridStride> gridStride(const ExprPtr& e) {
  if (!e || e->kind != ExprKind::Add || e->args.size() != 2) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    const ExprPtr& b = e->args[k];
    const ExprPtr& m = e->args[1 - k];
    if (!b || !m || b->kind != ExprKind::BlockIdx || m->kind != ExprKind::Mul || m->args.size() != 2) continue;
    for (int j = 0; j < 2; ++j) {
      const ExprPtr& v = m->args[j];
      const ExprPtr& step = m->args[1 - j];
      if (!v || !step || v->kind != ExprKind::LoopVar) continue;
      if (ir::exprUses(*step, {ExprKind::BlockIdx, ExprKind::LoopVar, ExprKind::Instance})) continue;
      return GridStride{b->index, v->index, step};
    }
  }
  return std::nullopt;
}

// The grid-stride terms of a store's coordinates, one per grid dimension
// (nullopt where a dimension has two different ones).
std::optional<std::map<int, GridStride>> strides(const GlobalStore& st) {
  std::map<int, GridStride> out;
  bool ok = true;
  auto walk = [&](auto& self, const ExprPtr& e) -> void {
    if (!e) return;
    if (auto g = gridStride(e)) {
      auto [it, fresh] = out.emplace(g->dim, *g);
      if (!fresh && !it->second.same(*g)) ok = false;
      return;
    }
    for (const ExprPtr& a : e->args) self(self, a);
  };
  for (const ExprPtr& c : st.coords) walk(walk, c);
  if (!ok) return std::nullopt;
  return out;
}

// `e` with each grid-stride term of `dims` replaced by its tile symbol.
ExprPtr replaceStrides(const ExprPtr& e, const std::map<int, ExprPtr>& tiles) {
  if (!e) return e;
  if (auto g = gridStride(e))
    if (auto it = tiles.find(g->dim); it != tiles.end()) return it->second;
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ExprPtr& a : copy->args) a = replaceStrides(a, tiles);
  return copy;
}

bool reads(const ExprPtr& e, ExprKind kind, int index) { return e && ir::readsSymbol(*e, kind, index); }

// `r` is the witness; `shown` its first CTA's values (the finding's
// counterexample data).
void reportOverlap(Gates& g, const GlobalStore& a, const GlobalStore& b, const SecondCta& other,
                   const std::vector<int>& dims, const encoder::BvResult& r, const encoder::BvResult& shown) {
  const ir::EvalEnv ea = r.model.env(g.s), eb = other.env(g.s, r.model);
  const ir::Op& oa = a.site->op();
  const ir::Op& ob = b.site->op();
  const std::string tensor = g.s.params[a.tensor].name;
  const std::string params = [&] {
    std::vector<std::string> p;
    for (const auto& [k, v] : r.model.params) p.push_back(fmt::format("{} = {}", g.s.params[k].name, v));
    for (int d : dims) p.push_back(fmt::format("lm.grid_dim({}) = {}", d, ea.grid_dim[d].value_or(1)));
    return fmt::format("{}", fmt::join(p, ", "));
  }();
  ir::Finding f = g.finding(
      "sync.race", oa.range,
      fmt::format("two CTAs store element {} of global tensor '{}' and nothing orders them (a write-write race: "
                  "the element keeps whichever store lands last): {} here{} and {} {}{}, when {}",
                  elementText(a, b, ea, eb), tensor, ctaText(ea, dims), loopText(g, *a.site, ea), ctaText(eb, dims),
                  a.site == b.site ? std::string("at the same store") : fmt::format("at line {}", ob.range.line),
                  loopText(g, *b.site, eb), params));
  Gates::note(f, ob.range, fmt::format("the other CTA's store of '{}'", tensor));
  f.subject["tensor"] = tensor;
  f.data["cta_a"] = ctaText(ea, dims);
  f.data["cta_b"] = ctaText(eb, dims);
  g.emit(std::move(f), &shown);
}

// The cross-CTA store check of one schedule: each pair of stores to one
// tensor, asked whether two different CTAs' boxes can share an element.
class StorePairs {
 public:
  StorePairs(Gates& g, std::vector<int> dims, bool by_cluster)
      : g_(g), other_(g.s), dims_(std::move(dims)), by_cluster_(by_cluster) {}

  // Holds (no two CTAs meet), Fails (the witness, replayed), or Unknown.
  encoder::BvResult check(const GlobalStore& a, const GlobalStore& b) {
    encoder::BvResult r = witness(query(a, b, {}), limits(kDirectRlimit));
    if (r.kind == encoder::BvVerdict::Fails && !replays(a, b, r)) {
      r.kind = encoder::BvVerdict::Unknown;
      r.detail = "the integer solver's witness does not replay";
    }
    if (r.kind != encoder::BvVerdict::Unknown) return r;
    // A persistent tile `lm.block_idx(d) + t * E` with E >= lm.grid_dim(d)
    // names its CTA: the boxes meeting only where the tiles are equal is
    // then enough, a query without the products of t and E.
    const auto tiles = tileSymbols(a, b);
    if (!tiles) return r;
    encoder::BvResult t = witness(query(a, b, *tiles), limits(kTileRlimit));
    if (t.kind == encoder::BvVerdict::Holds) return t;
    r.detail += "; by tiles: " + (t.kind == encoder::BvVerdict::Fails ? std::string("two tiles may meet") : t.detail);
    return r;
  }

  const SecondCta& other() const { return other_; }
  // The result with the first CTA's values only (the verdict's "e.g."
  // names the schedule's symbols; the message names both CTAs).
  encoder::BvResult firstCtaOnly(encoder::BvResult r) const {
    const int loops = static_cast<int>(g_.s.loop_vars.size());
    for (encoder::BvModel* m : {&r.model, &r.goal_model})
      for (auto it = m->loop_vars.begin(); it != m->loop_vars.end();)
        it = it->first >= loops ? m->loop_vars.erase(it) : std::next(it);
    return r;
  }

 private:
  // Deterministic work caps (Z3 resource units) of the two queries; the
  // wall clock of --timeout is only a safety limit.
  static constexpr uint64_t kDirectRlimit = 4000000;
  static constexpr uint64_t kTileRlimit = 20000000;

  Gates& g_;
  SecondCta other_;
  std::vector<int> dims_;
  bool by_cluster_;

  encoder::Limits limits(uint64_t rlimit) const {
    encoder::Limits l = limitsOf(g_.opts);
    l.rlimit = rlimit;
    return l;
  }
  encoder::BvResult witness(const std::vector<ExprPtr>& q, const encoder::Limits& l) {
    std::vector<ExprPtr> premises(q.begin() + 1, q.end());
    return encoder::intWitness(g_.s, q.front(), premises, l);
  }

  // A tile symbol per abstracted grid dimension: the first CTA's, and the
  // second's as written before the renaming to the second CTA.
  struct Tiles {
    std::map<int, ExprPtr> first, second;
    std::set<int> loops_a, loops_b;
  };
  int tileVar(int d, int cta) const { return other_.instanceVar() + 1 + 3 * cta + d; }

  // The dimensions whose block index both stores read only through one
  // grid-stride term with the same step E, E >= lm.grid_dim(d) and the
  // loop variable >= 0; nullopt when there is none.
  std::optional<Tiles> tileSymbols(const GlobalStore& a, const GlobalStore& b) {
    if (by_cluster_) return std::nullopt;
    const auto sa = strides(a), sb = strides(b);
    if (!sa || !sb) return std::nullopt;
    Tiles out;
    for (int d : dims_) {
      auto ia = sa->find(d), ib = sb->find(d);
      if (ia == sa->end() || ib == sb->end() || !ir::sameExpr(*ia->second.step, *ib->second.step)) continue;
      if (!covers(ia->second, *a.site) || !covers(ib->second, *b.site)) continue;
      out.first[d] = symbol(ExprKind::LoopVar, tileVar(d, 0));
      out.second[d] = symbol(ExprKind::LoopVar, tileVar(d, 1));
      out.loops_a.insert(ia->second.loop);
      out.loops_b.insert(ib->second.loop);
    }
    if (out.first.empty()) return std::nullopt;
    // every read of an abstracted block index or loop variable is inside its term
    auto clean = [&](const GlobalStore& st, const Tiles& t, const std::set<int>& loops) {
      for (const ExprPtr& c : st.coords) {
        ExprPtr r = replaceStrides(c, t.first);
        for (const auto& [d, x] : t.first)
          if (reads(r, ExprKind::BlockIdx, d)) return false;
        for (int v : loops)
          if (reads(r, ExprKind::LoopVar, v)) return false;
      }
      return true;
    };
    if (!clean(a, out, out.loops_a) || !clean(b, out, out.loops_b)) return std::nullopt;
    return out;
  }
  // E >= lm.grid_dim(d) under the assumptions, and the loop variable >= 0
  // where the store runs: then b + t * E determines b.
  bool covers(const GridStride& st, const OpSite& site) {
    const encoder::Limits l = limits(kDirectRlimit);
    const auto wide = encoder::intWitness(g_.s, lt(st.step, symbol(ExprKind::GridDim, st.dim)), {}, l);
    const auto from0 = encoder::intWitness(g_.s, lt(symbol(ExprKind::LoopVar, st.loop), lit(0)), site.premises, l);
    return wide.kind == encoder::BvVerdict::Holds && from0.kind == encoder::BvVerdict::Holds;
  }

  // [the boxes meet, premises...]: with `tiles`, the abstracted terms are
  // tile symbols (>= 0) and the premises that read their block index or
  // loop variable are left out (weaker premises: an unsat answer still
  // holds).
  std::vector<ExprPtr> query(const GlobalStore& a, const GlobalStore& b, const std::optional<Tiles>& tiles) {
    GlobalStore ta = a, tb = b;
    std::vector<ExprPtr> q{nullptr};
    auto keep = [&](const ExprPtr& p, const std::set<int>& loops) {
      if (!tiles) return true;
      for (const auto& [d, x] : tiles->first)
        if (reads(p, ExprKind::BlockIdx, d)) return false;
      for (int v : loops)
        if (reads(p, ExprKind::LoopVar, v)) return false;
      return true;
    };
    for (const ExprPtr& p : a.site->premises)
      if (keep(p, tiles ? tiles->loops_a : std::set<int>{})) q.push_back(p);
    for (const ExprPtr& p : b.site->premises)
      if (keep(p, tiles ? tiles->loops_b : std::set<int>{})) q.push_back(other_(p));
    std::vector<ExprPtr> second;
    pushSecondCtaPremises(g_, other_, dims_, second);
    q.insert(q.end(), second.begin(), second.end());
    std::vector<ExprPtr> apart;
    for (int d : dims_) {
      if (tiles && tiles->first.count(d)) {
        q.push_back(ge(tiles->first.at(d), lit(0)));
        q.push_back(ge(other_(tiles->second.at(d)), lit(0)));
        apart.push_back(ne(tiles->first.at(d), other_(tiles->second.at(d))));
        continue;
      }
      ExprPtr x = symbol(ExprKind::BlockIdx, d), y = symbol(ExprKind::LoopVar, other_.blockVar(d));
      if (by_cluster_) {
        x = fdiv(x, lit(g_.s.cluster[d]));
        y = fdiv(y, lit(g_.s.cluster[d]));
      }
      apart.push_back(ne(x, y));
    }
    q.push_back(anyOf(apart));
    if (tiles) {
      for (ExprPtr& c : ta.coords) c = replaceStrides(c, tiles->first);
      // the second store's terms: its tile symbols before boxesMeet renames them
      for (ExprPtr& c : tb.coords) c = replaceStrides(c, tiles->second);
    }
    q[0] = boxesMeet(ta, tb, other_);
    return q;
  }

  // The witness, evaluated: both CTAs reach their store and the boxes meet.
  bool replays(const GlobalStore& a, const GlobalStore& b, const encoder::BvResult& r) const {
    const ir::EvalEnv ea = r.model.env(g_.s), eb = other_.env(g_.s, r.model);
    auto holds = [](const std::vector<ExprPtr>& ps, const ir::EvalEnv& env) {
      return std::all_of(ps.begin(), ps.end(), [&](const ExprPtr& p) {
        auto v = p ? ir::evaluate(*p, env) : std::optional<int64_t>(1);
        return v && *v != 0;
      });
    };
    if (!holds(a.site->premises, ea) || !holds(b.site->premises, eb)) return false;
    bool apart = false;
    for (int d : dims_) {
      int64_t x = ea.block_idx[d].value_or(0), y = eb.block_idx[d].value_or(0);
      if (by_cluster_) x /= g_.s.cluster[d], y /= g_.s.cluster[d];
      apart = apart || x != y;
    }
    if (!apart) return false;
    for (size_t d = 0; d < a.coords.size(); ++d) {
      auto ca = ir::evaluate(*a.coords[d], ea), cb = ir::evaluate(*b.coords[d], eb);
      if (!ca || !cb) return false;
      if (std::max({*ca, *cb, int64_t{0}}) >= std::min(*ca + a.box[d], *cb + b.box[d])) return false;
    }
    return true;
  }
};

}  // namespace

void runGlobalStoreGates(Gates& g) {
  std::vector<std::string> unplaced;
  const std::vector<GlobalStore> stores = globalStores(g, unplaced);
  for (const std::string& why : unplaced) {
    encoder::BvResult r;
    r.kind = encoder::BvVerdict::Unknown;
    r.detail = "a store to global memory is left out of the cross-CTA check (" + why + ")";
    g.record("sync.race", r, true);
  }
  std::vector<int> dims = gridDims(g);
  if (stores.empty() || dims.empty()) return;  // one CTA along every dimension the schedule reads
  StorePairs pairs(g, dims, usesClusterSync(g));
  std::set<int> reported;  // one finding per tensor
  for (size_t i = 0; i < stores.size(); ++i)
    for (size_t j = i; j < stores.size(); ++j) {
      const GlobalStore& a = stores[i];
      const GlobalStore& b = stores[j];
      if (a.tensor != b.tensor || a.coords.size() != b.coords.size() || reported.count(a.tensor)) continue;
      const encoder::BvResult r = pairs.check(a, b);
      const encoder::BvResult shown = pairs.firstCtaOnly(r);
      g.record("sync.race", shown, true);
      if (r.kind != encoder::BvVerdict::Fails) continue;
      reported.insert(a.tensor);
      reportOverlap(g, a, b, pairs.other(), dims, r, shown);
    }
}

}  // namespace cake::checks::layout
