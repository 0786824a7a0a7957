// A per-tile table read one slice per K iteration, widened to its slot
// (trip_widen.h; docs/z3.md "A table read one slice per K iteration,
// widened to its slot").
#include "encoder/trip_widen.h"

#include <algorithm>
#include <functional>
#include <map>
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

  // The operand of the op at `path` that qualifies, or nullptr.
  BufferRef* qualifying(const std::vector<Step>& path, int role) {
    ir::Op& o = path.back().stmt().op;
    if (o.kind != OpKind::Copy && o.kind != OpKind::Unary && o.kind != OpKind::Binary) return nullptr;
    if (o.dst.kind != BufferRef::Kind::Regs) return nullptr;
    Loops ls;
    for (const Step& st : path)
      if (st.stmt().kind == ir::Stmt::Kind::For) ls.loops.push_back(&st.stmt());
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

  // 2: at u before u' in one run of loops j.., the slice ends at or before
  // where it starts at u' (a slice end or start left open is the
  // dimension's end or 0, where the builder clamps it too)
  bool disjointInRun(const BufferRef& ref, int dim, const Loops& ls, size_t j) {
    const std::set<int> inner = ls.vars(j, ls.loops.size());
    const ir::Slice& sl = ref.slices[dim];
    const ir::ExprPtr lo = sl.lo ? sl.lo : ir::makeConst(0);
    const ir::ExprPtr hi = sl.hi ? sl.hi : s_.views[ref.index].shape[dim];
    auto here = ls.ranges(0, ls.loops.size(), {});
    auto there = ls.ranges(j, ls.loops.size(), inner);
    if (!here || !there) return false;
    std::vector<ir::ExprPtr> premises = *here;
    premises.insert(premises.end(), there->begin(), there->end());
    premises.push_back(ls.before(j, ls.loops.size()));
    return holds(ir::makeExpr(K::Le, {hi, primed(lo, inner)}), premises);
  }

  // 1: X differs between any two iterations of the loops around loop j
  bool indexPerRun(const BufferRef& ref, const Loops& ls, size_t j) {
    if (j == 0) return true;  // one run per process
    const std::set<int> outer = ls.vars(0, j);
    auto here = ls.ranges(0, j, {});
    auto there = ls.ranges(0, j, outer);
    if (!here || !there) return false;
    std::vector<ir::ExprPtr> premises = *here;
    premises.insert(premises.end(), there->begin(), there->end());
    premises.push_back(ls.before(0, j));
    const ir::ExprPtr x = ref.slot ? ref.slot : ir::makeConst(0);
    return holds(ir::makeExpr(K::Ne, {x, primed(x, outer)}), premises);
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

}  // namespace

std::optional<WidenedReads> widenTableReads(const ir::Schedule& s, const Limits& limits) {
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

}  // namespace cake::encoder::trip
