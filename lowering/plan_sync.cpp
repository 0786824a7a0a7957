// Plan stage: where an instance of a multi-thread role must sync its own
// threads (IR.md: "lowering inserts the synchronization among the
// instance's own warps that this needs"). A forward dataflow over each
// role's bodies tracks the buffers the instance's threads read and wrote
// since its last sync; an op that conflicts with one of them gets a sync
// before it (PlanBuilder::syncBefore_, which emission only reads). A loop's
// head state is the least fixed point of head = entry | widen(end(head)),
// iterated to convergence: the states only grow and are drawn from a finite
// set (the body's accesses, each with its slot or with "any slot"), so the
// iteration ends; a bound derived from that set turns a failure to converge
// into a located internal error, never into a missing sync.
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
    auto x = ir::evaluate(*a.slot, env), y = ir::evaluate(*b.slot, env);
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

SyncState PlanBuilder::widen(const SyncState& st) const {
  SyncState o;
  for (auto a : st.rd) {
    if (a.slot && !constOf(a.slot)) a.slot = nullptr;
    o.rd.insert(a);
  }
  for (auto a : st.wr) {
    if (a.slot && !constOf(a.slot)) a.slot = nullptr;
    o.wr.insert(a);
  }
  return o;
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
      // body's accesses (with its own slot or widened to any slot) or an entry
      // access widened to any slot
      const size_t bound = 2 * accessBound(s.body) + st.rd.size() + st.wr.size() + 1;
      SyncState head = st, end;
      for (size_t round = 0;; ++round) {
        end = syncWalk(s.body, head, false);
        SyncState next = join(head, widen(end));
        if (next == head) break;
        if (round == bound) {
          error(ir::Rule::LowerUnsupported, s.range,
                "internal error: the analysis of the syncs this loop's instance needs did not converge");
          break;
        }
        head = std::move(next);
      }
      if (record) end = syncWalk(s.body, head, true);
      st = join(head, widen(end));
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
