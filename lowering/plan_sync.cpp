// Plan stage: where an instance of a multi-thread role must sync its own
// threads (IR.md: "lowering inserts the synchronization among the
// instance's own warps that this needs"). A forward dataflow over each
// role's bodies tracks the buffers the instance's threads read and wrote
// since its last sync; an op that conflicts with one of them gets a sync
// before it (PlanBuilder::syncBefore_, which emission only reads). A loop's
// head state is the least fixed point of head = entry | shiftBack(end(head)),
// iterated to convergence: the states only grow and are drawn from a finite
// set (the body's and the entry's accesses, each with its slot lagged by
// 0..stages iterations of the loop or with "any slot"), so the iteration
// ends; a bound derived from that set turns a failure to converge into a
// located internal error, never into a missing sync.
#include <random>

#include "lowering/lower_internal.h"

namespace cake::lowering::detail {

using K = ir::BufferRef::Kind;

namespace {
Access viewAccess(const ir::BufferRef& r, const ir::SlotSel* sel) {
  Access a{r.index, r.slot};
  if (sel && sel->mode != ir::SlotSel::Mode::None) a.slot = sel->index;
  return a;
}
}  // namespace

std::vector<Access> PlanBuilder::opReads(const ir::Op& op) const {
  std::vector<Access> v;
  auto add = [&](const ir::BufferRef& r) {
    if (r.kind == K::View) v.push_back(viewAccess(r, nullptr));
    if (r.kind == K::Param) v.push_back(Access{100000 + r.index, nullptr});
  };
  switch (op.kind) {
    case OpKind::Copy: case OpKind::Unary: case OpKind::Binary: case OpKind::Reduce:
      add(op.src);
      add(op.src2);
      break;
    case OpKind::Mma:
      add(op.src);
      add(op.src2);
      break;
    case OpKind::TmaStore:
      v.push_back(viewAccess(op.src, &op.sel));
      break;
    default:
      break;
  }
  return v;
}

std::vector<Access> PlanBuilder::opWrites(const ir::Op& op) const {
  std::vector<Access> v;
  switch (op.kind) {
    case OpKind::Copy: case OpKind::Fill: case OpKind::Unary: case OpKind::Binary: case OpKind::Reduce:
      if (op.dst.kind == K::View) v.push_back(viewAccess(op.dst, nullptr));
      if (op.dst.kind == K::Param) v.push_back(Access{100000 + op.dst.index, nullptr});
      break;
    case OpKind::TmaLoad:
    case OpKind::CpAsync:
      v.push_back(viewAccess(op.dst, &op.sel));
      break;
    default:
      break;
  }
  return v;
}

bool PlanBuilder::conflicts(const Access& a, const Access& b) const {
  if (a.key != b.key) return false;
  if (a.key >= 100000) return true;
  const int stages = s_.views[a.key].stages;
  if (stages == 1 || !a.slot || !b.slot) return true;
  // different slots when slot(a) - slot(b) is one constant, not a multiple of stages, at several points
  std::mt19937_64 rng(12345);
  std::optional<int64_t> diff;
  for (int i = 0; i < 6; ++i) {
    ir::EvalEnv env;
    for (size_t p = 0; p < s_.params.size(); ++p) env.params[static_cast<int>(p)] = 1 + static_cast<int64_t>(rng() % 4096);
    specEnv(env);
    for (size_t l = 0; l < s_.loop_vars.size(); ++l) env.loop_vars[static_cast<int>(l)] = static_cast<int64_t>(rng() % 4096);
    env.instance = static_cast<int64_t>(rng() % 4);
    for (int d = 0; d < 3; ++d) env.block_idx[d] = static_cast<int64_t>(rng() % 512), env.grid_dim[d] = 512 + d;
    // an access made before a loop is pending in its first iteration only: compare there
    for (const Access* c : {&a, &b})
      if (c->pinLoop) {
        auto lo = ir::evaluate(*c->pinLoop->lo, env);
        if (!lo) return true;
        env.loop_vars[c->pinLoop->loop_var] = *lo;
      }
    // each at its own iteration: a lagged access at its loop variable's value `lag` ago
    auto at = [&](const Access& c) {
      ir::EvalEnv e = env;
      if (c.lagVar >= 0) e.loop_vars[c.lagVar] -= c.lag;
      return ir::evaluate(*c.slot, e);
    };
    auto x = at(a), y = at(b);
    if (!x || !y) return true;
    if (diff && *diff != *x - *y) return true;
    diff = *x - *y;
  }
  return !diff || ((*diff % stages) + stages) % stages == 0;
}

bool PlanBuilder::needsSync(const ir::Op& op, const SyncState& st) const {
  for (const auto& r : opReads(op))
    for (const auto& w : st.wr)
      if (conflicts(r, w)) return true;
  for (const auto& w : opWrites(op)) {
    for (const auto& x : st.wr)
      if (conflicts(w, x)) return true;
    for (const auto& x : st.rd)
      if (conflicts(w, x)) return true;
  }
  return false;
}

void PlanBuilder::applyOp(const ir::Op& op, SyncState& st) const {
  switch (op.kind) {
    case OpKind::CpAsyncWait:
    case OpKind::TmaStoreWait:
    case OpKind::Sync:
      st = SyncState{};  // these end with a sync of the instance
      return;
    case OpKind::Copy: case OpKind::Fill: case OpKind::Unary: case OpKind::Binary: case OpKind::Reduce:
    case OpKind::Mma:
      for (const auto& r : opReads(op)) st.rd.insert(r);
      if (op.kind != OpKind::Mma)
        for (const auto& w : opWrites(op)) st.wr.insert(w);
      return;
    default:
      return;  // async writes (TMA, cp.async) are ordered by their barrier / cp_async_wait
  }
}

namespace {
// `st` with each access passed through `f`
template <class F>
SyncState mapAccesses(const SyncState& st, F f) {
  SyncState o;
  for (auto a : st.rd) o.rd.insert(f(a));
  for (auto a : st.wr) o.wr.insert(f(a));
  return o;
}
Access anySlot(Access a) {
  a.slot = nullptr;
  a.lagVar = -1;
  a.lag = 0;
  a.pinLoop = nullptr;
  return a;
}
}  // namespace

SyncState PlanBuilder::widen(const SyncState& st) const {
  return mapAccesses(st, [&](const Access& a) { return a.slot && !constOf(a.slot) ? anySlot(a) : a; });
}

// The state at the end of an iteration of `loop` as seen from the head of the next: each access with a
// slot that is not constant was made one step of the loop variable earlier (its slot is the same
// expression at the variable minus the step). Up to the view's stages iterations back, then any slot,
// so that the states stay finite; any slot for a loop with a step that is not constant and for an access
// already lagged on another loop's variable. (widen, before: every such slot became any slot, so a read of
// slot k + 1 at the end of iteration k conflicted with a write of slot k + 2 in iteration k + 1.)
SyncState PlanBuilder::shiftBack(const SyncState& st, const Stmt& loop) const {
  const auto step = loop.step ? constOf(loop.step) : std::optional<int64_t>(1);
  return mapAccesses(st, [&](Access a) {
    if (a.pinLoop == &loop) a.pinLoop = nullptr;  // it outlived the first iteration
    if (!a.slot || constOf(a.slot)) return a;
    if (!step || *step == 0 || (a.lagVar >= 0 && a.lagVar != loop.loop_var)) return anySlot(a);
    const int64_t n = a.lag / *step + 1;  // iterations back
    if (a.key >= 100000 || n > s_.views[a.key].stages) return anySlot(a);
    a.lagVar = loop.loop_var;
    a.lag += *step;
    return a;
  });
}

// Into the loop: what is pending is pending in its first iteration (pinned to it; an access already pinned
// to an outer loop keeps that pin, which holds in every iteration of this one).
SyncState PlanBuilder::enterLoop(const SyncState& st, const Stmt& loop) const {
  return mapAccesses(st, [&](Access a) {
    if (!a.pinLoop && a.lagVar < 0 && a.slot) a.pinLoop = &loop;
    return a;
  });
}

// Past the loop its variable has no value: what refers to it (a lag on it, a slot of the body's) is any
// slot; what was pinned to its first iteration may still be pending (no trip, or no sync in the body).
SyncState PlanBuilder::leaveLoop(const SyncState& st, const Stmt& loop) const {
  return mapAccesses(st, [&](Access a) {
    if (a.pinLoop == &loop) a.pinLoop = nullptr;
    return a.lagVar == loop.loop_var ? anySlot(a) : a;
  });
}

namespace {
SyncState join(SyncState a, const SyncState& b) {
  a.rd.insert(b.rd.begin(), b.rd.end());
  a.wr.insert(b.wr.begin(), b.wr.end());
  return a;
}
}  // namespace


// Every access an op of the block (nested blocks included) can add to a state.
static size_t accessBound(const ir::Block& b) {
  size_t n = 0;
  ir::forEachOp(b, [&](const Stmt&) { n += 3; });  // at most src, src2 and dst
  return n;
}

SyncState PlanBuilder::syncWalk(const ir::Block& b, SyncState st, bool record) {
  for (const Stmt& s : b) {
    if (s.kind == Stmt::Kind::For) {
      // each round that does not converge adds an access to `head`: one of the
      // body's or the entry's accesses, pinned to the first iteration, its slot
      // lagged 0..stages iterations, or any slot (stages + 3 forms each)
      int maxStages = 1;
      for (const auto& v : s_.views) maxStages = std::max(maxStages, v.stages);
      const size_t bound = (maxStages + 3) * (accessBound(s.body) + st.rd.size() + st.wr.size()) + 1;
      const SyncState entry = enterLoop(st, s);
      SyncState head = entry, end;
      for (size_t round = 0;; ++round) {
        end = syncWalk(s.body, head, false);
        SyncState next = join(head, shiftBack(end, s));
        if (next == head) break;
        if (round == bound) {
          error(ir::Rule::LowerUnsupported, s.range,
                "internal error: the analysis of the syncs this loop's instance needs did not converge");
          break;
        }
        head = std::move(next);
      }
      if (record) end = syncWalk(s.body, head, true);
      st = join(leaveLoop(head, s), widen(end));
      continue;
    }
    if (s.kind == Stmt::Kind::If) {
      SyncState a = syncWalk(s.body, st, record);
      SyncState c = s.orelse.empty() ? st : syncWalk(s.orelse, st, record);
      st = join(a, c);
      continue;
    }
    if (needsSync(s.op, st)) {
      if (record) syncBefore_.insert(&s);
      st = SyncState{};
    }
    applyOp(s.op, st);
  }
  return st;
}

void PlanBuilder::planInstanceSyncs() {
  for (size_t r = 0; r < s_.roles.size(); ++r) {
    if (roleSingle_[r]) continue;  // one thread per instance: nothing to sync
    SyncState st;
    for (const auto& b : s_.bodies)
      if (b.role == static_cast<int>(r)) st = syncWalk(b.body, st, true);
  }
}

}  // namespace cake::lowering::detail
