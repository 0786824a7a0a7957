// docs/z3.md "The restart form, checked on the text".
#include "encoder/trip_restart.h"

#include <algorithm>
#include <optional>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "encoder/bv_prover.h"
#include "encoder/sim_model.h"
#include "encoder/system.h"
#include "ir/expr_build.h"
#include "ir/expr_canon.h"
#include "ir/expr_fields.h"
#include "ir/ops.h"

namespace cake::encoder::trip {
namespace restart_form {

using ir::OpKind;
using ir::Stmt;

// A loop variable (the tile variable, C3) or a parameter (the tile count)
// whose reads the restart form limits.
struct Symbol {
  ir::ExprKind kind;
  int index;
};

bool reads(const ir::ExprPtr& e, Symbol var) { return e && ir::readsSymbol(*e, var.kind, var.index); }

bool refReads(const ir::BufferRef& r, Symbol var) {
  if (reads(r.slot, var) || reads(r.scalar, var)) return true;
  for (const ir::Slice& sl : r.slices)
    if (reads(sl.lo, var) || reads(sl.hi, var)) return true;
  return false;
}

// Whether op reads `var` (the tile variable) anywhere but the global coordinates
// of a copy to or from a tensor parameter whose accesses the model does not
// compare (`compared`: encoder::readAndWrittenTensors; those coordinates
// place boxes that may race, docs/semantics.md "Global memory", so they
// count like any operand: C3 of docs/z3.md "An outer loop that restarts
// the ring").
bool opReads(const ir::Op& op, Symbol var, const std::set<int>& compared) {
  if (refReads(op.dst, var) || refReads(op.src, var) || refReads(op.src2, var)) return true;
  for (const ir::ExprPtr* e : {&op.sel.index, &op.sel.phase, &op.bytes, &op.count, &op.pending, &op.init,
                               &op.fill_value, &op.base, &op.multicast, &op.cta})
    if (reads(*e, var)) return true;
  auto uncompared = [&](const ir::BufferRef& r) {
    return r.kind == ir::BufferRef::Kind::Param && !compared.count(r.index);
  };
  const bool global = uncompared(op.dst) || uncompared(op.src);
  if (!global)
    for (const ir::ExprPtr& c : op.coords)
      if (reads(c, var)) return true;
  return false;
}

// The first statement (depth first) that reads var outside global
// coordinates, or nullptr.
const Stmt* readOf(const ir::Block& b, Symbol var, const std::set<int>& compared) {
  for (const Stmt& st : b) {
    if (st.kind == Stmt::Kind::Op) {
      if (opReads(st.op, var, compared)) return &st;
      continue;
    }
    if (reads(st.lo, var) || reads(st.hi, var) || reads(st.step, var) || reads(st.cond, var)) return &st;
    if (const Stmt* r = readOf(st.body, var, compared)) return r;
    if (const Stmt* r = readOf(st.orelse, var, compared)) return r;
  }
  return nullptr;
}

bool allowedOp(OpKind k, ir::Target target) {
  switch (k) {
    case OpKind::CpAsync:
    case OpKind::CpAsyncCommit:
    case OpKind::CpAsyncWait:
    case OpKind::Sync:
    case OpKind::FenceProxy:
    case OpKind::Copy:
    case OpKind::Fill:
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Reduce:
      return true;
    case OpKind::Mma:
      return target == ir::Target::SM80;  // synchronous only there
    default:
      return false;
  }
}

bool holdsCpAsync(const Stmt& st) {
  bool any = false;
  ir::forEachOp(ir::Block{st}, [&](const Stmt& o) {
    any |= o.op.kind == OpKind::CpAsync || o.op.kind == OpKind::CpAsyncCommit;
  });
  return any;
}

bool writesRegs(const ir::Block& b) {
  bool any = false;
  ir::forEachOp(b, [&](const Stmt& o) {
    any |= o.op.dst.kind == ir::BufferRef::Kind::Regs ||
           (o.op.kind == OpKind::Reduce && o.op.src2.kind == ir::BufferRef::Kind::Regs);
  });
  return any;
}

// The first loop under b (depth first) that writes registers and may run no
// iteration, as a reason ("" if none).
std::string emptyRegsLoop(const ir::Block& b, const std::function<bool(const ir::ExprPtr&)>& atLeastOnce) {
  for (const Stmt& st : b) {
    if (st.kind == Stmt::Kind::Op) continue;
    if (st.kind == Stmt::Kind::For && writesRegs(st.body)) {
      const auto why = [&](const char* what) {
        return fmt::format("the loop at line {} writes registers and {}", st.range.line, what);
      };
      if (!st.lo || !st.hi) return why("has no bounds");
      if (st.step && ir::constValue(st.step) != 1) return why("steps by other than 1");
      if (ir::exprUses(*st.lo, {ir::ExprKind::LoopVar}) || ir::exprUses(*st.hi, {ir::ExprKind::LoopVar}))
        return why("its bounds read a loop variable");
      if (!atLeastOnce(ir::build::lt(st.lo, st.hi))) return why("may run no iteration");
    }
    if (auto r = emptyRegsLoop(st.body, atLeastOnce); !r.empty()) return r;
    if (auto r = emptyRegsLoop(st.orelse, atLeastOnce); !r.empty()) return r;
  }
  return "";
}

constexpr auto refuse = &refusedRestart<RestartForm>;

}  // namespace restart_form

RestartForm restartForm(const ir::Schedule& s) {
  using namespace restart_form;
  if (s.cluster_ops) return refuse("the cluster is modelled");
  if (!s.barriers.empty()) return refuse("an mbarrier carries its phases across the tiles");
  if (!s.grid_deps.empty()) return refuse("a grid dependency");
  if (!s.tmems.empty()) return refuse("tensor memory");
  for (const ir::RoleBody& body : s.bodies) {
    std::string bad;
    ir::forEachOp(body.body, [&](const Stmt& o) {
      if (bad.empty() && !allowedOp(o.op.kind, s.target))
        bad = fmt::format("lm.{} may be in flight or pending at the cut", ir::opName(o.op.kind));
    });
    if (!bad.empty()) return refuse(bad);
  }
  RestartForm f;
  std::vector<int> bodies_of(s.roles.size(), 0);
  for (const ir::RoleBody& body : s.bodies) {
    if (body.role < 0 || body.role >= static_cast<int>(s.roles.size())) return refuse("a body of no role");
    ++bodies_of[body.role];
    const std::string role = s.roles[body.role].name;
    if (body.body.size() != 1 || body.body[0].kind != Stmt::Kind::For)
      return refuse(fmt::format("{} runs more than its tile loop", role));
    const Stmt& loop = body.body[0];
    if (!loop.lo || ir::constValue(loop.lo) != 0 || (loop.step && ir::constValue(loop.step) != 1) || !loop.hi)
      return refuse(fmt::format("{}'s tile loop does not count from 0 by 1", role));
    if (ir::exprUses(*loop.hi, {ir::ExprKind::LoopVar, ir::ExprKind::Instance}))
      return refuse(fmt::format("{}'s tile count reads a loop variable or the instance", role));
    if (f.count && !ir::sameExpr(*f.count, *loop.hi))
      return refuse(fmt::format("{} runs another tile count", role));
    f.count = loop.hi.get();
    if (loop.body.empty() || loop.body[0].kind != Stmt::Kind::Op || loop.body[0].op.kind != OpKind::Sync)
      return refuse(fmt::format("{}'s tile does not start with lm.sync", role));
    const int bar = loop.body[0].op.named_barrier;
    if (f.barrier >= 0 && bar != f.barrier) return refuse(fmt::format("{}'s tile starts with another barrier", role));
    f.barrier = bar;
    if (f.tile_var < 0) f.tile_var = loop.loop_var;  // the first role's (each body is checked with its own)
    if (const Stmt* r = readOf(loop.body, {ir::ExprKind::LoopVar, loop.loop_var}, readAndWrittenTensors(s)))
      return refuse(fmt::format("{} reads its tile variable outside global coordinates (line {})", role,
                                r->range.line));
    // C2: the last statement that issues or commits cp.async is followed by
    // a drain at the top level of the tile
    int last = -1;
    for (size_t i = 0; i < loop.body.size(); ++i)
      if (holdsCpAsync(loop.body[i])) last = static_cast<int>(i);
    if (last >= 0) {
      bool drained = false;
      for (size_t i = last + 1; i < loop.body.size() && !drained; ++i) {
        const Stmt& st = loop.body[i];
        drained = st.kind == Stmt::Kind::Op && st.op.kind == OpKind::CpAsyncWait &&
                  (!st.op.pending || ir::constValue(st.op.pending) == 0);
      }
      if (!drained) return refuse(fmt::format("{}'s cp.async groups are not drained before the next tile", role));
    }
  }
  if (!f.count) return refuse("no role runs a tile loop");
  for (size_t r = 0; r < s.roles.size(); ++r)
    if (bodies_of[r] != 1) return refuse(fmt::format("{} has {} bodies", s.roles[r].name, bodies_of[r]));
  const std::vector<int>& in_bar = s.named_barriers[f.barrier].roles;
  for (size_t r = 0; r < s.roles.size(); ++r)
    if (std::find(in_bar.begin(), in_bar.end(), static_cast<int>(r)) == in_bar.end())
      return refuse(fmt::format("{} is no participant of the cut's barrier", s.roles[r].name));
  f.ok = true;
  return f;
}

std::string restartRoleName(const ir::Schedule& s, int role) {
  return role >= 0 && role < static_cast<int>(s.roles.size()) ? s.roles[role].name : std::string("a role");
}

std::string restartCountReads(const ir::Schedule& s, int count) {
  using namespace restart_form;
  const Symbol n{ir::ExprKind::Param, count};
  const std::string& name = s.params[count].name;
  // the declarations (pools, views, tensor memory, registers): every field
  ir::Schedule decls = s;
  decls.bodies.clear();
  bool in_decls = false;
  ir::forEachExprField(decls, [&](const ir::ExprPtr& e) { in_decls = in_decls || reads(e, n); });
  if (in_decls) return fmt::format("a declaration reads the tile count {}", name);
  const std::set<int> compared = readAndWrittenTensors(s);
  for (const ir::RoleBody& body : s.bodies)
    for (size_t i = 0; i < body.body.size(); ++i) {
      const Stmt& st = body.body[i];
      // the tile loop (the first statement) may read it in its bound
      const bool tile_loop = i == 0 && st.kind == Stmt::Kind::For;
      const Stmt* r = !tile_loop                           ? readOf(ir::Block{st}, n, compared)
                      : reads(st.lo, n) || reads(st.step, n) ? &st
                                                             : readOf(st.body, n, compared);
      if (r)
        return fmt::format("{} reads the tile count {} outside its tile loop's bound and global coordinates (line {})",
                           restartRoleName(s, body.role), name, r->range.line);
    }
  return "";
}

OneTileFacts oneTileFacts(const ir::Schedule& s, int count, const std::function<bool(const ir::ExprPtr&)>& follows) {
  OneTileFacts out;
  for (const ir::Assume& a : s.assumes) {
    if (!a.cond || !ir::readsSymbol(*a.cond, ir::ExprKind::Param, count)) {
      out.assumes.push_back(a);
      continue;
    }
    const ir::ExprPtr at_one = ir::substituteSymbol(a.cond, ir::ExprKind::Param, count, ir::build::lit(1));
    if (!follows(at_one)) {
      out.dropped.push_back(a.range.line);
      continue;
    }
    if (!hasFreeSymbols(*at_one)) continue;  // (true at N = 1: nothing to keep)
    out.assumes.push_back({at_one, a.range});
    out.at_one = out.at_one ? ir::makeExpr(ir::ExprKind::And, {out.at_one, at_one}) : at_one;
  }
  return out;
}

namespace restart_read_backs {

bool touches(const ir::Op& op, int view) {
  return (op.dst.kind == ir::BufferRef::Kind::View && op.dst.index == view) ||
         (op.src.kind == ir::BufferRef::Kind::View && op.src.index == view) ||
         (op.src2.kind == ir::BufferRef::Kind::View && op.src2.index == view);
}

bool touchesIn(const ir::Block& b, int view) {
  bool any = false;
  ir::forEachOp(b, [&](const ir::Stmt& o) { any = any || touches(o.op, view); });
  return any;
}

// One op of an instance's tile that touches the view, with its index.
struct Touch {
  const ir::Stmt* st;
  int64_t index;
  bool writes;
};

// The touches of `view` by instance `instance` in a tile body, in program
// order: a guard that reads nothing but lm.instance() and constants is
// fixed per instance and per tile (C3 keeps the tile variable out of it),
// so it is decided here and only its taken branch is walked. A touch in a
// loop, under a guard that reads more, or through an index that is no
// constant once the instance is fixed is refused. "" or why not.
std::string touchesOfInstance(const ir::Block& b, int view, const ir::EvalEnv& env, std::vector<Touch>& out,
                              const std::string& who, const std::string& name) {
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::For) {
      if (touchesIn(st.body, view)) return fmt::format("{} reads {} back in a loop or a branch of its tile (line {})", who, name, st.range.line);
      continue;
    }
    if (st.kind == ir::Stmt::Kind::If) {
      const auto taken = st.cond ? ir::evaluate(*st.cond, env) : std::nullopt;
      if (!taken) {
        if (touchesIn(st.body, view) || touchesIn(st.orelse, view))
          return fmt::format("{} reads {} back in a loop or a branch of its tile whose guard reads more than "
                             "lm.instance() (line {})",
                             who, name, st.range.line);
        continue;
      }
      if (auto why = touchesOfInstance(*taken ? st.body : st.orelse, view, env, out, who, name); !why.empty()) return why;
      continue;
    }
    const ir::Op& op = st.op;
    if (!touches(op, view)) continue;
    const bool writes_it = op.dst.kind == ir::BufferRef::Kind::View && op.dst.index == view;
    const bool reads_it = (op.src.kind == ir::BufferRef::Kind::View && op.src.index == view) ||
                          (op.src2.kind == ir::BufferRef::Kind::View && op.src2.index == view);
    if (writes_it && (reads_it || op.kind == ir::OpKind::Mma || op.kind == ir::OpKind::Reduce))
      return fmt::format("{} reads {} back in the op that writes it (line {})", who, name, st.range.line);
    // every operand on the view counts (a binary op may read two indices)
    for (const ir::BufferRef* ref : {&op.dst, &op.src, &op.src2}) {
      if (ref->kind != ir::BufferRef::Kind::View || ref->index != view) continue;
      const auto index = ref->slot ? ir::evaluate(*ref->slot, env) : std::optional<int64_t>(0);
      if (!index) return fmt::format("{} reads {} back through an index that is no constant (line {})", who, name, st.range.line);
      out.push_back({&st, *index, ref == &op.dst});
    }
  }
  return "";
}

// One instance's tile body (the role's program must be its tile loop
// alone), the environment that fixes lm.instance(), and the names messages
// use; `body` null with `why` set otherwise.
struct InstanceTile {
  const ir::Block* body = nullptr;
  ir::EvalEnv env;
  std::string who, name, why;
};
InstanceTile instanceTile(const ir::Schedule& s, const ir::RoleBody& body, int view, int instance, const std::string& role) {
  InstanceTile t;
  t.name = s.views[view].name;
  if (body.body.size() != 1 || body.body[0].kind != ir::Stmt::Kind::For) {
    t.why = fmt::format("{} reads {} back outside a tile loop", role, t.name);
    return t;
  }
  t.body = &body.body[0].body;
  t.env.instance = instance;
  const bool many = body.role >= 0 && body.role < static_cast<int>(s.roles.size()) && s.roles[body.role].instanceCount() > 1;
  t.who = many ? fmt::format("{}[{}]", role, instance) : role;
  return t;
}

// Why instance `instance` of role `role` does not touch `view` in the
// once-per-tile form restartReadBacks admits ("" if it does): per index it
// both writes and reads, one write and one read per tile, in either order.
std::string onceInTheTile(const ir::Schedule& s, const ir::RoleBody& body, int view, int instance, const std::string& role) {
  const InstanceTile tile = instanceTile(s, body, view, instance, role);
  if (!tile.body) return tile.why;
  const ir::EvalEnv& env = tile.env;
  const std::string& who = tile.who;
  const std::string& name = tile.name;
  std::vector<Touch> seq;
  if (auto why = touchesOfInstance(*tile.body, view, env, seq, who, name); !why.empty()) return why;
  std::map<int64_t, int> writes, reads;  // index -> count
  for (const Touch& t : seq) ++(t.writes ? writes : reads)[t.index];
  for (const auto& [index, n] : writes)
    if (n > 1 && reads.count(index)) return fmt::format("{} writes {}[{}] {} times per tile and reads it back", who, name, index, n);
  for (const auto& [index, n] : reads)
    if (writes.count(index) && n > 1) return fmt::format("{} reads {}[{}] back {} times per tile", who, name, index, n);
  return "";
}


// The alternating form (docs/z3.md "Session 52 (helper nested52)"): per
// index the instance both writes and reads, its touches in program order
// are write, read, write, read, ... for every trip count of every loop of
// the tile, and every write of the index covers the same bytes. Then each
// read is a read-back of its own latest write (system.cpp tag: it means
// max(epoch, own_gen) = own_gen = the number of its own earlier writes of
// the index minus one), the j-th read of the run means exactly j, which is
// m * t + j' in tile t (m: its reads per tile = its writes per tile), and
// its returns count at most j: the affine generation with e = m that the
// last-read rule compares, and gen_returns <= meant as the caps need.
struct Alternation {
  std::map<int64_t, bool> expect_read;  // index -> its last touch was a write
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> bytes;  // index -> its writes' slice bounds
};

// The index an operand names once the instance is fixed, and its slice
// bounds (the open ends as -1), or nullopt where either reads more.
std::optional<std::pair<int64_t, std::vector<std::pair<int64_t, int64_t>>>> fixedRef(const ir::BufferRef& ref,
                                                                                      const ir::EvalEnv& env) {
  const auto index = ref.slot ? ir::evaluate(*ref.slot, env) : std::optional<int64_t>(0);
  if (!index) return std::nullopt;
  std::vector<std::pair<int64_t, int64_t>> bounds;
  for (const ir::Slice& sl : ref.slices) {
    const auto lo = sl.lo ? ir::evaluate(*sl.lo, env) : std::optional<int64_t>(-1);
    const auto hi = sl.hi ? ir::evaluate(*sl.hi, env) : std::optional<int64_t>(-1);
    if (!lo || !hi) return std::nullopt;
    bounds.emplace_back(*lo, *hi);
  }
  return std::make_pair(*index, bounds);
}

// Walks b in program order, keeping per index of `both` whether a read is
// due; a loop body must leave that as it found it (so any trip count,
// none included, keeps the alternation). "" or why not.
std::string alternate(const ir::Block& b, int view, const std::set<int64_t>& both, const ir::EvalEnv& env,
                      Alternation& st, const std::string& who, const std::string& name) {
  for (const ir::Stmt& x : b) {
    if (x.kind == ir::Stmt::Kind::For) {
      const auto before = st.expect_read;
      if (auto why = alternate(x.body, view, both, env, st, who, name); !why.empty()) return why;
      if (st.expect_read != before)
        return fmt::format("{} does not alternate writes and reads of {} over the loop at line {}", who, name, x.range.line);
      continue;
    }
    if (x.kind == ir::Stmt::Kind::If) {
      const auto taken = x.cond ? ir::evaluate(*x.cond, env) : std::nullopt;
      if (!taken) {
        if (touchesIn(x.body, view) || touchesIn(x.orelse, view))
          return fmt::format("{} touches {} under a guard that reads more than lm.instance() (line {})", who, name, x.range.line);
        continue;
      }
      if (auto why = alternate(*taken ? x.body : x.orelse, view, both, env, st, who, name); !why.empty()) return why;
      continue;
    }
    const ir::Op& op = x.op;
    if (!touches(op, view)) continue;
    if (op.sel.mode != ir::SlotSel::Mode::None)
      return fmt::format("{} names {}'s slot by stage or iteration (line {})", who, name, x.range.line);
    if (op.kind == ir::OpKind::Mma || op.kind == ir::OpKind::Reduce)
      return fmt::format("{} accumulates into or reduces over {} (line {})", who, name, x.range.line);
    const bool writes_it = op.dst.kind == ir::BufferRef::Kind::View && op.dst.index == view;
    for (const ir::BufferRef* ref : {&op.dst, &op.src, &op.src2}) {
      if (ref->kind != ir::BufferRef::Kind::View || ref->index != view) continue;
      const auto fixed = fixedRef(*ref, env);
      if (!fixed) return fmt::format("{} names {} through an index or slice that is no constant (line {})", who, name, x.range.line);
      if (!both.count(fixed->first)) continue;
      const bool is_write = ref == &op.dst;
      if (writes_it && !is_write) return fmt::format("{} reads {} back in the op that writes it (line {})", who, name, x.range.line);
      bool& due = st.expect_read[fixed->first];
      if (due != !is_write)
        return fmt::format("{} {} {}[{}] twice without {} between (line {})", who, is_write ? "writes" : "reads", name,
                           fixed->first, is_write ? "a read" : "a write", x.range.line);
      due = is_write;
      if (is_write) {
        auto [it, first] = st.bytes.try_emplace(fixed->first, fixed->second);
        if (!first && it->second != fixed->second)
          return fmt::format("{} writes other bytes of {}[{}] (line {})", who, name, fixed->first, x.range.line);
      }
    }
  }
  return "";
}

// Why instance `instance` of role `role` does not touch `view` in the
// alternating form ("" if it does).
std::string alternatingInTheTile(const ir::Schedule& s, const ir::RoleBody& body, int view, int instance, const std::string& role) {
  const InstanceTile tile = instanceTile(s, body, view, instance, role);
  if (!tile.body) return tile.why;
  const ir::EvalEnv& env = tile.env;
  const std::string& who = tile.who;
  const std::string& name = tile.name;
  // the indices it both writes and reads (any op, any depth, both branches)
  std::set<int64_t> written, read;
  bool unfixed = false;
  ir::forEachOp(*tile.body, [&](const ir::Stmt& o) {
    for (const ir::BufferRef* ref : {&o.op.dst, &o.op.src, &o.op.src2}) {
      if (ref->kind != ir::BufferRef::Kind::View || ref->index != view) continue;
      const auto index = ref->slot ? ir::evaluate(*ref->slot, env) : std::optional<int64_t>(0);
      if (!index) unfixed = true;
      else (ref == &o.op.dst ? written : read).insert(*index);
    }
  });
  if (unfixed) return fmt::format("{} names {} through an index that is no constant", who, name);
  std::set<int64_t> both;
  for (int64_t i : written)
    if (read.count(i)) both.insert(i);
  Alternation st;
  if (auto why = alternate(*tile.body, view, both, env, st, who, name); !why.empty()) return why;
  for (const auto& [index, due] : st.expect_read)
    if (due) return fmt::format("{} ends its tile with a write of {}[{}] that it reads back", who, name, index);
  return "";
}

}  // namespace restart_read_backs

std::string restartReadBacks(const ir::Schedule& s) {
  for (const ir::RoleBody& body : s.bodies) {
    std::set<int> written, read;
    ir::forEachOp(body.body, [&](const ir::Stmt& o) {
      const ir::Op& op = o.op;
      if (op.dst.kind == ir::BufferRef::Kind::View) {
        written.insert(op.dst.index);
        // an op that accumulates into its destination reads it too
        if (op.kind == ir::OpKind::Mma || op.kind == ir::OpKind::Reduce) read.insert(op.dst.index);
      }
      for (const ir::BufferRef* r : {&op.src, &op.src2})
        if (r->kind == ir::BufferRef::Kind::View) read.insert(r->index);
    });
    const std::string role = restartRoleName(s, body.role);
    const int instances = body.role >= 0 && body.role < static_cast<int>(s.roles.size()) ? s.roles[body.role].instanceCount() : 1;
    for (int v : written)
      if (read.count(v))
        for (int i = 0; i < instances; ++i)
          if (auto why = restart_read_backs::onceInTheTile(s, body, v, i, role); !why.empty()) {
            const std::string alt = restart_read_backs::alternatingInTheTile(s, body, v, i, role);
            if (!alt.empty()) return fmt::format("{}; alternating: {}", why, alt);
          }
  }
  return "";
}

std::string restartRegisters(const ir::Schedule& s, const std::function<bool(const ir::ExprPtr&)>& atLeastOnce) {
  // the tile loop itself may run no iteration: then nothing follows it
  // (restartForm: the tile loop is the whole body), so its marks are read
  // by nothing
  for (const ir::RoleBody& body : s.bodies) {
    const bool tile_loop = body.body.size() == 1 && body.body[0].kind == ir::Stmt::Kind::For;
    if (auto r = restart_form::emptyRegsLoop(tile_loop ? body.body[0].body : body.body, atLeastOnce); !r.empty())
      return r;
  }
  return "";
}

namespace read_meets {

bool isRead(const Access& a) { return !a.write && a.view >= 0; }

}  // namespace read_meets

void recordMeets(ReadMeets& rec, const sim::Model& m, const sim::State& s, int p, int pc, bool may_be_last) {
  if (pc < 0 || pc >= m.programSize(p)) return;
  const Instr& in = m.instr(p, pc);
  std::map<ReadMeets::Reader, std::set<ReadMeets::Writer>> here;
  for (size_t i = 0; i < in.accesses.size(); ++i) {
    const Access& acc = in.accesses[i];
    if (!read_meets::isRead(acc)) continue;
    const ReadMeets::Reader reader{p, acc.view, acc.index};
    auto& keys = here[reader];
    const sim::AtomRange& r = m.atoms_of[p][pc][i];
    for (int x = r.a0; x < r.a1; ++x) {
      const int t = m.tracked_of[x];
      if (t < 0) continue;
      const int32_t d = s.v[sim::atomField(m, t, sim::kData)];
      if (d < 0) continue;  // nothing written: data.stale-read, which the proof meets
      const sim::Model::WriteRef& w = m.writes[d];
      if (w.proc == p) continue;  // its own data: never compared (staleWrite)
      const Access& wa = m.access(w.proc, w.pc, w.acc);
      rec.names[w.proc] = m.sys.procs[w.proc].name;
      if ((!acc.stage_like || !wa.stage_like) && rec.refused.empty())
        rec.refused = fmt::format("{} meets {}: an access that names an iteration (its lap does not grow per tile)",
                                  acc.what, wa.what);
      keys.insert({w.proc, wa.space, wa.view, wa.index, wa.lo, wa.hi, wa.runs, wa.stride});
    }
  }
  if (!here.empty()) rec.names[p] = m.sys.procs[p].name;
  for (auto& [reader, keys] : here) {
    rec.met[reader].insert(keys.begin(), keys.end());
    if (may_be_last) rec.last.insert({reader, std::move(keys)});
  }
}

std::string recordMeetsOfOneRun(const System& sys, ReadMeets& rec) {
  const sim::Model m(sys);
  // the last pc of each process that reads each (view, index)
  std::map<ReadMeets::Reader, int> last_pc;
  for (int p = 0; p < m.P; ++p)
    for (int pc = 0; pc < m.programSize(p); ++pc)
      for (const Access& a : m.instr(p, pc).accesses)
        if (read_meets::isRead(a)) last_pc[{p, a.view, a.index}] = pc;
  sim::State s = sim::initialState(m);
  std::vector<Violation> found;
  for (;;) {
    const sim::Async a = sim::decodeAsync(m, s);
    const std::vector<Step> steps = sim::enabledSteps(m, s, a);
    if (steps.empty()) return sim::allFinished(m, s) ? "" : "a run of the one-tile system stopped before its end";
    const Step& st = steps.front();
    if (st.kind == Step::Kind::Exec) {
      bool last = false;
      for (const Access& acc : m.instr(st.proc, st.pc).accesses)
        if (read_meets::isRead(acc)) last |= last_pc[{st.proc, acc.view, acc.index}] == st.pc;
      recordMeets(rec, m, s, st.proc, st.pc, last);
    }
    sim::applyStep(m, s, a, st, found, nullptr);
    if (!found.empty()) return fmt::format("a run of the one-tile system meets {}", found.front().rule);
  }
}

std::string lastReadRule(const ir::Schedule& s, const ReadMeets& rec) {
  if (!rec.refused.empty()) return rec.refused;
  for (const auto& [reader, keys] : rec.last) {
    const auto& any = rec.met.at(reader);
    for (const ReadMeets::Writer& k : any)
      if (!keys.count(k)) {
        const auto& [p, view, index] = reader;
        const auto name = [&](int q) { return rec.names.count(q) ? rec.names.at(q) : fmt::format("process {}", q); };
        return fmt::format("a last read of {}[{}] by {} meets no write of {}[{}] by {} that a read of it meets (that "
                           "writer may fall behind it from the second tile on)",
                           s.views[view].name, index, name(p), s.views[std::get<2>(k)].name, std::get<3>(k),
                           name(std::get<0>(k)));
      }
  }
  return "";
}

}  // namespace cake::encoder::trip
