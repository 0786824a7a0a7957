// A per-tile table read one slice per K iteration, widened to its slot
// (trip_widen.h; docs/z3.md "A table read one slice per K iteration,
// widened to its slot").
#include "encoder/trip_widen.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "encoder/bv_prover.h"
#include "encoder/system.h"

namespace cake::encoder::trip {

namespace {

using K = ir::ExprKind;
using ir::BufferRef;
using ir::OpKind;

// Loop variables standing for a second iteration (u' beside u): indices no
// schedule uses.
constexpr int kPrimed = 1 << 22;

// One statement on the way from a role body to an op: the block it is in
// and its position there.
struct Step {
  ir::Block* block = nullptr;
  size_t pos = 0;
  ir::Stmt& stmt() const { return (*block)[pos]; }
};

bool namesView(const BufferRef& r, int view) { return r.kind == BufferRef::Kind::View && r.index == view; }

// An op whose only use of `view` is to write it: its destination, of a
// copy, fill, unary or binary op, or of a TMA or cp.async load.
bool onlyWrites(const ir::Op& o, int view) {
  if (namesView(o.src, view) || namesView(o.src2, view)) return false;
  if (!namesView(o.dst, view)) return true;
  switch (o.kind) {
    case OpKind::Copy:
    case OpKind::Fill:
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::TmaLoad:
    case OpKind::CpAsync: return true;
    default: return false;
  }
}

ir::ExprPtr primed(const ir::ExprPtr& e, const std::set<int>& vars) {
  if (!e) return e;
  if (e->kind == K::LoopVar && vars.count(e->index)) {
    auto x = std::make_shared<ir::Expr>(*e);
    x->index += kPrimed;
    return x;
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  for (ir::ExprPtr& a : copy->args) a = primed(a, vars);
  return copy;
}

ir::ExprPtr var(int v) {
  auto x = std::make_shared<ir::Expr>();
  x->kind = K::LoopVar;
  x->index = v;
  return x;
}

ir::ExprPtr both(std::vector<ir::ExprPtr> xs) {
  ir::ExprPtr all = xs.front();
  for (size_t i = 1; i < xs.size(); ++i) all = ir::makeExpr(K::And, {all, xs[i]});
  return all;
}

// The loops around an op, outermost first, and their facts.
struct Loops {
  std::vector<const ir::Stmt*> loops;

  // lo <= v < hi for each of loops[a..b), with `vars` primed (nullopt:
  // a step that is not a positive constant)
  std::optional<std::vector<ir::ExprPtr>> ranges(size_t a, size_t b, const std::set<int>& vars) const {
    std::vector<ir::ExprPtr> out;
    for (size_t i = a; i < b; ++i) {
      const ir::Stmt& l = *loops[i];
      const auto step = l.step ? ir::constValue(l.step) : std::optional<int64_t>(1);
      if (!step || *step <= 0 || !l.lo || !l.hi) return std::nullopt;
      const ir::ExprPtr v = primed(var(l.loop_var), vars);
      out.push_back(ir::makeExpr(K::Le, {primed(l.lo, vars), v}));
      out.push_back(ir::makeExpr(K::Lt, {v, primed(l.hi, vars)}));
    }
    return out;
  }
  // (v_a, ..., v_{b-1}) before its primed copy, lexicographically
  ir::ExprPtr before(size_t a, size_t b) const {
    std::set<int> all;
    for (size_t i = a; i < b; ++i) all.insert(loops[i]->loop_var);
    ir::ExprPtr any;
    std::vector<ir::ExprPtr> equal;
    for (size_t i = a; i < b; ++i) {
      const ir::ExprPtr v = var(loops[i]->loop_var), w = primed(v, all);
      std::vector<ir::ExprPtr> here = equal;
      here.push_back(ir::makeExpr(K::Lt, {v, w}));
      const ir::ExprPtr c = both(here);
      any = any ? ir::makeExpr(K::Or, {any, c}) : c;
      equal.push_back(ir::makeExpr(K::Eq, {v, w}));
    }
    return any;
  }
  std::set<int> vars(size_t a, size_t b) const {
    std::set<int> out;
    for (size_t i = a; i < b; ++i) out.insert(loops[i]->loop_var);
    return out;
  }
};

bool readsAny(const ir::ExprPtr& e, const std::set<int>& vars) {
  if (!e) return false;
  return std::any_of(vars.begin(), vars.end(), [&](int v) { return ir::dependsOnLoopVar(*e, v); });
}

class Widener {
 public:
  // `s`: the schedule being edited; `facts`: the one whose lm.assume facts
  // the solver takes (the same)
  // (its queries' models are never read: linear facts first, bv_prover.h)
  Widener(const ir::Schedule& s, const ir::Schedule& facts, const Limits& limits) : s_(s), prover_(facts, limits) {
    prover_.linearSubsets(true);
  }

  // Whether the read `ref` of the op at `path` reads each byte at most once
  // per run of the loops from the j-th around it on (condition 2 with
  // those loops: one moving dimension, its ranges disjoint in a run).
  bool readsOncePerRun(const BufferRef& ref, const std::vector<Step>& path, size_t j) {
    const Loops ls = loopsOf(path);
    if (j >= ls.loops.size()) return true;  // no loop inside: at most once
    const std::optional<int> dim = movingDim(ref, ls.vars(j, ls.loops.size()));
    return dim && disjointInRun(ref, *dim, ls, j);
  }

  // The operand of the op at `path` that qualifies, or nullptr.
  BufferRef* qualifying(const std::vector<Step>& path, int role) {
    ir::Op& o = path.back().stmt().op;
    if (o.kind != OpKind::Copy && o.kind != OpKind::Unary && o.kind != OpKind::Binary) return nullptr;
    if (o.dst.kind != BufferRef::Kind::Regs) return nullptr;
    const Loops ls = loopsOf(path);
    for (BufferRef* ref : {&o.src, &o.src2}) {
      if (ref->kind != BufferRef::Kind::View || ref->slices.empty()) continue;
      if (namesView(o.dst, ref->index) || (ref == &o.src && namesView(o.src2, ref->index)) ||
          (ref == &o.src2 && namesView(o.src, ref->index)))
        continue;
      if (qualifies(*ref, ls, path, role)) return ref;
    }
    return nullptr;
  }

 private:
  static Loops loopsOf(const std::vector<Step>& path) {
    Loops ls;
    for (const Step& st : path)
      if (st.stmt().kind == ir::Stmt::Kind::For) ls.loops.push_back(&st.stmt());
    return ls;
  }

  bool qualifies(const BufferRef& ref, const Loops& ls, const std::vector<Step>& path, int role) {
    // j: the outermost loop whose variable the slices read
    size_t j = ls.loops.size();
    for (size_t i = 0; i < ls.loops.size() && j == ls.loops.size(); ++i)
      for (const ir::Slice& sl : ref.slices)
        if (readsAny(sl.lo, {ls.loops[i]->loop_var}) || readsAny(sl.hi, {ls.loops[i]->loop_var})) j = i;
    if (j == ls.loops.size()) return false;
    const std::set<int> inner = ls.vars(j, ls.loops.size());
    if (readsAny(ref.slot, inner)) return false;  // 1: one index per run
    std::optional<int> dim = movingDim(ref, inner);
    if (!dim) return false;
    return disjointInRun(ref, *dim, ls, j) && indexPerRun(ref, ls, j) && othersOnlyWrite(ref.index, role, path, j);
  }

  // 2: the one dimension whose slice reads the run's variables, every
  // dimension before it of extent 1
  std::optional<int> movingDim(const BufferRef& ref, const std::set<int>& inner) const {
    const ir::View& v = s_.views[ref.index];
    std::optional<int> dim;
    for (size_t d = 0; d < ref.slices.size() && d < v.shape.size(); ++d)
      if (readsAny(ref.slices[d].lo, inner) || readsAny(ref.slices[d].hi, inner)) {
        if (dim) return std::nullopt;
        dim = static_cast<int>(d);
      }
    if (!dim) return std::nullopt;
    for (int d = 0; d < *dim; ++d)
      if (ir::constValue(v.shape[d]) != 1) return std::nullopt;
    return dim;
  }

  bool holds(const ir::ExprPtr& goal, const std::vector<ir::ExprPtr>& premises) {
    return prover_.prove(goal, premises).kind == BvVerdict::Holds;
  }
  // The goal under `first` alone, else under `first` and `rest`: a goal
  // that holds under fewer premises holds under more. The loops around a
  // run are bounded by the tile count (DeepGEMM's `lm.cdiv(max(num_tiles -
  // lm.block_idx(0), 0), lm.grid_dim(0))`, a division by a parameter that
  // costs the solver ~1 s), and most goals need no bound of theirs.
  bool holdsCheapFirst(const ir::ExprPtr& goal, std::vector<ir::ExprPtr> first, const std::vector<ir::ExprPtr>& rest) {
    if (holds(goal, first)) return true;
    if (rest.empty()) return false;
    first.insert(first.end(), rest.begin(), rest.end());
    return holds(goal, first);
  }

  // 2: at u before u' in one run of loops j.., the slice ends at or before
  // where it starts at u' (a slice end or start left open is the
  // dimension's end or 0, where the builder clamps it too)
  bool disjointInRun(const BufferRef& ref, int dim, const Loops& ls, size_t j) {
    const std::set<int> inner = ls.vars(j, ls.loops.size());
    const ir::Slice& sl = ref.slices[dim];
    const ir::ExprPtr lo = sl.lo ? sl.lo : ir::makeConst(0);
    const ir::ExprPtr hi = sl.hi ? sl.hi : s_.views[ref.index].shape[dim];
    auto outside = ls.ranges(0, j, {});
    auto here = ls.ranges(j, ls.loops.size(), {});
    auto there = ls.ranges(j, ls.loops.size(), inner);
    if (!outside || !here || !there) return false;
    std::vector<ir::ExprPtr> run = *here;  // the run's loops, first
    run.insert(run.end(), there->begin(), there->end());
    run.push_back(ls.before(j, ls.loops.size()));
    return holdsCheapFirst(ir::makeExpr(K::Le, {hi, primed(lo, inner)}), run, *outside);
  }

  // 1: X differs between any two iterations of the loops around loop j
  bool indexPerRun(const BufferRef& ref, const Loops& ls, size_t j) {
    if (j == 0) return true;  // one run per process
    const std::set<int> outer = ls.vars(0, j);
    auto here = ls.ranges(0, j, {});
    auto there = ls.ranges(0, j, outer);
    if (!here || !there) return false;
    std::vector<ir::ExprPtr> ranges = *here;
    ranges.insert(ranges.end(), there->begin(), there->end());
    const ir::ExprPtr x = ref.slot ? ref.slot : ir::makeConst(0);
    // the order alone first (`t != t'` for t before t')
    return holdsCheapFirst(ir::makeExpr(K::Ne, {x, primed(x, outer)}), {ls.before(0, j)}, ranges);
  }

  // 3: every other op of the role only writes the view, and none inside
  // loop j
  bool othersOnlyWrite(int view, int role, const std::vector<Step>& path, size_t j) const {
    const ir::Stmt* run = nullptr;
    size_t seen = 0;
    for (const Step& st : path)
      if (st.stmt().kind == ir::Stmt::Kind::For && seen++ == j) run = &st.stmt();
    const ir::Stmt* self = &path.back().stmt();
    bool ok = true;
    std::function<void(const ir::Block&, bool)> walk = [&](const ir::Block& b, bool in_run) {
      for (const ir::Stmt& st : b) {
        if (!ok) return;
        if (st.kind == ir::Stmt::Kind::Op) {
          if (&st != self && (!onlyWrites(st.op, view) || (in_run && namesView(st.op.dst, view)))) ok = false;
          continue;
        }
        walk(st.body, in_run || &st == run);
        walk(st.orelse, in_run || &st == run);
      }
    };
    for (const ir::RoleBody& rb : s_.bodies)
      if (rb.role == role) walk(rb.body, false);
    return ok;
  }

  const ir::Schedule& s_;
  BvProver prover_;
};

// Every op of `b` with its path (the block and position of each statement
// from the role body down to it).
void forEachOpPath(ir::Block& b, std::vector<Step>& path, const std::function<void(std::vector<Step>&)>& fn) {
  for (size_t i = 0; i < b.size(); ++i) {
    path.push_back({&b, i});
    if (b[i].kind == ir::Stmt::Kind::Op) fn(path);
    forEachOpPath(b[i].body, path, fn);
    forEachOpPath(b[i].orelse, path, fn);
    path.pop_back();
  }
}

// Where W goes: O's place, moved before every `if` whose branch it then
// begins (inside the innermost loop: never out of a loop's body).
Step placeOf(const std::vector<Step>& path) {
  size_t at = path.size() - 1;
  while (at > 0 && path[at].pos == 0 && path[at - 1].stmt().kind == ir::Stmt::Kind::If) --at;
  return path[at];
}

// At most this many reads are widened (each round walks the schedule).
constexpr int kMaxWidened = 8;

// Widens the read `ref` of the op at `path` in `copy` (trip_widen.h): a
// fresh fragment of the slot's shape, W = lm.copy(fragment, V[X]) where
// placeOf says, and the op reads the fragment. Returns what it did.
std::string widen(ir::Schedule& copy, const std::vector<Step>& path, BufferRef& ref) {
  const ir::Stmt& o = path.back().stmt();
  const std::string was = opText(copy, o);
  const ir::View& v = copy.views[ref.index];
  ir::Regs fresh;
  fresh.name = fmt::format("{}_widened{}", v.name, copy.regs.size());
  fresh.shape = v.shape;
  fresh.dtype = v.dtype;
  fresh.range = o.range;
  copy.regs.push_back(fresh);
  ir::Stmt read;
  read.kind = ir::Stmt::Kind::Op;
  read.range = o.range;
  read.op.kind = OpKind::Copy;
  read.op.range = o.op.range;
  read.op.dst.kind = BufferRef::Kind::Regs;
  read.op.dst.index = static_cast<int>(copy.regs.size()) - 1;
  read.op.dst.range = ref.range;
  read.op.src = ref;
  read.op.src.slices.clear();
  const std::string name = v.name;
  ref = read.op.dst;  // the op reads the fragment
  const Step at = placeOf(path);
  const bool moved = at.block != path.back().block;
  at.block->insert(at.block->begin() + static_cast<std::ptrdiff_t>(at.pos), std::move(read));
  return fmt::format("{} read as its whole slot of {}{}", was, name, moved ? ", before its guard" : "");
}

// ---------------------------------------------------------------------------
// One-stage tables named by their tile (trip_widen.h, nameTablesByTile).

// An operand naming a view, and the op's path.
struct ViewUse {
  std::vector<Step> path;
  int role = -1;
  BufferRef* ref = nullptr;
  bool write = false;
};

std::vector<ViewUse> usesOf(ir::Schedule& s, int view) {
  std::vector<ViewUse> out;
  for (ir::RoleBody& rb : s.bodies) {
    std::vector<Step> path;
    forEachOpPath(rb.body, path, [&](std::vector<Step>& p) {
      ir::Op& o = p.back().stmt().op;
      for (BufferRef* r : {&o.dst, &o.src, &o.src2})
        if (namesView(*r, view)) out.push_back({p, rb.role, r, r == &o.dst});
    });
  }
  return out;
}

bool namesSlotZero(const BufferRef& r) { return !r.slot || ir::constValue(r.slot) == 0; }

// The loop around a use, outermost first.
std::vector<const ir::Stmt*> loopsAround(const std::vector<Step>& path) {
  std::vector<const ir::Stmt*> out;
  for (size_t i = 0; i + 1 < path.size(); ++i)
    if (path[i].stmt().kind == ir::Stmt::Kind::For) out.push_back(&path[i].stmt());
  return out;
}

// The write of a table once per iteration of its loop L: a copy, fill,
// unary or binary op into the view (reading no other of its slots), a
// statement of L's body itself (no `if`, no inner loop: every iteration
// runs it once), L in no loop, from 0 by 1 (its variable counts the
// iterations before), and the same bytes every time (its slices read no
// loop variable). Returns L, or nullptr.
const ir::Stmt* onceEveryIteration(const ViewUse& w, int view) {
  const ir::Op& o = w.path.back().stmt().op;
  const bool kind_ok = o.kind == OpKind::Copy || o.kind == OpKind::Fill || o.kind == OpKind::Unary ||
                       o.kind == OpKind::Binary;
  if (!w.write || !kind_ok || namesView(o.src, view) || namesView(o.src2, view)) return nullptr;
  const std::vector<const ir::Stmt*> loops = loopsAround(w.path);
  if (loops.size() != 1 || w.path.size() < 2 || &w.path[w.path.size() - 2].stmt() != loops.front()) return nullptr;
  const ir::Stmt& l = *loops.front();
  if (ir::constValue(l.lo) != 0 || (l.step && ir::constValue(l.step) != 1)) return nullptr;
  for (const ir::Slice& sl : w.ref->slices)
    if (readsAny(sl.lo, {l.loop_var}) || readsAny(sl.hi, {l.loop_var})) return nullptr;
  return &l;
}

// The read of the table: a copy, unary or binary op into registers, with
// the view one operand, in L.
bool readInLoop(const ViewUse& r, int view, const ir::Stmt* l) {
  const ir::Op& o = r.path.back().stmt().op;
  if (r.write || (o.kind != OpKind::Copy && o.kind != OpKind::Unary && o.kind != OpKind::Binary)) return false;
  if (o.dst.kind != BufferRef::Kind::Regs || (namesView(o.src, view) && namesView(o.src2, view))) return false;
  const std::vector<const ir::Stmt*> loops = loopsAround(r.path);
  return !loops.empty() && loops.front() == l;
}

// Renames the view's two uses to its loop's variable where the table
// qualifies (trip_widen.h); what it did, or nullopt.
std::optional<std::string> nameByTile(ir::Schedule& s, int view, const std::function<Widener&()>& widener) {
  if (s.views[view].stages != 1) return std::nullopt;
  std::vector<ViewUse> uses = usesOf(s, view);
  if (uses.size() != 2 || uses[0].role != uses[1].role || &uses[0].path.back().stmt() == &uses[1].path.back().stmt())
    return std::nullopt;
  if (!namesSlotZero(*uses[0].ref) || !namesSlotZero(*uses[1].ref)) return std::nullopt;
  if (!uses[0].write) std::swap(uses[0], uses[1]);
  const ir::Stmt* l = onceEveryIteration(uses[0], view);
  if (!l || !readInLoop(uses[1], view, l) || !bytesItsOwn(s, view)) return std::nullopt;
  if (!widener().readsOncePerRun(*uses[1].ref, uses[1].path, 1)) return std::nullopt;
  const ir::ExprPtr t = var(l->loop_var);
  const std::string name = s.views[view].name, tile = ir::exprToString(*t, s);
  for (ViewUse& u : uses) u.ref->slot = t;
  return fmt::format("{}[0] read as {}[{}] (a one-stage table written once per {}, each byte read at most once per {})",
                     name, name, tile, tile, tile);
}

}  // namespace

std::optional<WidenedReads> nameTablesByTile(const ir::Schedule& s, const Limits& limits) {
  auto copy = std::make_shared<ir::Schedule>(s);
  std::unique_ptr<Widener> w;
  const std::function<Widener&()> widener = [&]() -> Widener& {
    if (!w) w = std::make_unique<Widener>(*copy, s, limits);
    return *w;
  };
  std::vector<std::string> texts;
  for (size_t v = 0; v < s.views.size(); ++v)
    if (std::optional<std::string> text = nameByTile(*copy, static_cast<int>(v), widener)) texts.push_back(*text);
  if (texts.empty()) return std::nullopt;
  std::string text = "with";
  for (size_t i = 0; i < texts.size(); ++i) text += (i ? "; " : " ") + texts[i];
  return WidenedReads{copy, text};
}

namespace {

// The widening on `s` as written (trip_widen.h, widenTableReads).
std::optional<WidenedReads> widenAsWritten(const ir::Schedule& s, const Limits& limits) {
  // (a cheap look first: an op into registers reading a view slice)
  bool any = false;
  for (const ir::RoleBody& rb : s.bodies)
    ir::forEachOp(rb.body, [&](const ir::Stmt& st) {
      for (const BufferRef* r : {&st.op.src, &st.op.src2})
        any = any || (r->kind == BufferRef::Kind::View && !r->slices.empty() && st.op.dst.kind == BufferRef::Kind::Regs);
    });
  if (!any) return std::nullopt;
  auto copy = std::make_shared<ir::Schedule>(s);
  Widener w(*copy, s, limits);
  std::vector<std::string> texts;
  // one read at a time (an insertion moves the statements behind it); a
  // widened read reads no slice, and its fragment is no view
  for (int round = 0; round < kMaxWidened; ++round) {
    std::vector<Step> at;
    BufferRef* ref = nullptr;
    for (ir::RoleBody& rb : copy->bodies) {
      std::vector<Step> path;
      forEachOpPath(rb.body, path, [&](std::vector<Step>& p) {
        if (!ref && (ref = w.qualifying(p, rb.role))) at = p;
      });
      if (ref) break;
    }
    if (!ref) break;
    texts.push_back(widen(*copy, at, *ref));
  }
  if (texts.empty()) return std::nullopt;
  std::string text = "with the table read";
  for (size_t i = 0; i < texts.size(); ++i) text += (i ? "; " : " ") + texts[i];
  return WidenedReads{copy, text};
}

}  // namespace

std::optional<WidenedReads> widenTableReads(const ir::Schedule& s, const Limits& limits) {
  if (std::optional<WidenedReads> w = widenAsWritten(s, limits)) return w;
  const std::optional<WidenedReads> named = nameTablesByTile(s, limits);
  if (!named) return std::nullopt;
  std::optional<WidenedReads> w = widenAsWritten(*named->s, limits);
  if (w) w->text = fmt::format("{}, and {}", named->text, w->text);
  return w;
}

namespace {
// The view's bytes in its pool, [lo, hi) (nullopt: not constant).
std::optional<std::pair<int64_t, int64_t>> viewBytes(const ir::View& v) {
  const std::optional<int64_t> at = ir::constValue(v.offset);
  if (!at) return std::nullopt;
  int64_t n = ir::dtypeBytes(v.dtype) * v.stages;
  for (const ir::ExprPtr& d : v.shape) {
    const std::optional<int64_t> x = ir::constValue(d);
    if (!x || *x < 0) return std::nullopt;
    n *= *x;
  }
  return std::make_pair(*at, *at + n);
}
}  // namespace

// No other view of the pool meets the view's bytes (so every write there,
// and every read, is through the view itself; its layout is constant).
bool bytesItsOwn(const ir::Schedule& s, int view) {
  const auto own = viewBytes(s.views[view]);
  if (!own) return false;
  for (size_t u = 0; u < s.views.size(); ++u) {
    if (static_cast<int>(u) == view || s.views[u].pool != s.views[view].pool) continue;
    const auto other = viewBytes(s.views[u]);
    if (!other || (other->first < own->second && own->first < other->second)) return false;
  }
  return true;
}

}  // namespace cake::encoder::trip
