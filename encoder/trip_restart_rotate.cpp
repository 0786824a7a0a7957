// docs/z3.md "The cut after H: a slice loop rotated onto the restart form".
#include "encoder/trip_restart_rotate.h"

#include <optional>
#include <set>

#include <fmt/format.h>

#include "encoder/system.h"
#include "ir/ops.h"

namespace cake::encoder::trip {
namespace restart_rotate {

using ir::OpKind;
using ir::Stmt;

bool isSync(const Stmt& st) { return st.kind == Stmt::Kind::Op && st.op.kind == OpKind::Sync; }

bool registerGlobalOrLiteral(const ir::BufferRef& r) {
  using K = ir::BufferRef::Kind;
  return r.kind == K::None || r.kind == K::Regs || r.kind == K::Param || r.kind == K::Scalar;
}

bool tailOp(OpKind k) {
  return k == OpKind::Copy || k == OpKind::Fill || k == OpKind::Unary || k == OpKind::Binary || k == OpKind::Reduce;
}

// A guard of T reads nothing that differs between slices or changes during
// a run: only lm.instance() and constants (Marlin's `w == 0`).
bool instanceOnly(const ir::Expr& e) {
  return !ir::exprUses(e, {ir::ExprKind::Param, ir::ExprKind::LoopVar, ir::ExprKind::BlockIdx, ir::ExprKind::GridDim});
}

// One role's program split at its slice loop and the loop's last top-level
// lm.sync.
struct Split {
  ir::Block pre;  // before the slice loop
  const Stmt* loop = nullptr;
  ir::Block h, t;             // the slice body before / after S
  const Stmt* cut = nullptr;  // S
};

std::optional<Split> split(const ir::RoleBody& body, std::string& why, const std::string& role) {
  if (body.body.empty() || body.body.back().kind != Stmt::Kind::For) {
    why = fmt::format("{} runs something after its slice loop, or has none", role);
    return std::nullopt;
  }
  Split out;
  out.pre.assign(body.body.begin(), body.body.end() - 1);
  out.loop = &body.body.back();
  const ir::Block& b = out.loop->body;
  int cut = -1;
  for (size_t i = 0; i < b.size(); ++i)
    if (isSync(b[i])) cut = static_cast<int>(i);
  if (cut < 0) {
    why = fmt::format("{}'s slice has no lm.sync at its top level (no cut)", role);
    return std::nullopt;
  }
  out.cut = &b[cut];
  out.h.assign(b.begin(), b.begin() + cut);
  out.t.assign(b.begin() + cut + 1, b.end());
  return out;
}

// pre: empty, or ends with an unguarded lm.sync and holds no other
// named-barrier op (lm.sync is the only one the restart form allows).
std::string preCondition(const Split& sp, const std::string& role) {
  if (sp.pre.empty()) return "";
  if (!isSync(sp.pre.back())) return fmt::format("{}'s code before the slice loop does not end with lm.sync", role);
  int syncs = 0;
  ir::forEachOp(sp.pre, [&](const Stmt& o) { syncs += o.op.kind == OpKind::Sync; });
  if (syncs != 1)
    return fmt::format(
        "{}'s code before the slice loop syncs a named barrier more than once (the slices' cuts would not be one "
        "generation in every process)",
        role);
  return "";
}

// A copy of s whose every role runs `for s in <the role's slice loop>:
// first ; rest` (the loop's variable and bounds kept).
ir::Schedule withSliceBodies(const ir::Schedule& s, const std::vector<Split>& splits,
                             ir::Block (*body_of)(const Split&)) {
  ir::Schedule out = s;
  for (size_t i = 0; i < out.bodies.size(); ++i) {
    Stmt loop = *splits[i].loop;
    loop.body = body_of(splits[i]);
    out.bodies[i].body = ir::Block{std::move(loop)};
  }
  return out;
}

ir::Block rotatedBody(const Split& sp) {
  ir::Block b{*sp.cut};
  b.insert(b.end(), sp.h.begin(), sp.h.end());
  b.insert(b.end(), sp.t.begin(), sp.t.end());
  return b;
}

// pre as a tile of the restart form: its closing sync first, then the rest
// (restartForm then checks its ops and its drain before that sync).
ir::Block preAsTile(const Split& sp) {
  if (sp.pre.empty()) return ir::Block{*sp.cut};
  ir::Block b{sp.pre.back()};
  b.insert(b.end(), sp.pre.begin(), sp.pre.end() - 1);
  return b;
}

// A global tensor whose accesses the model compares (one the CTA both
// reads and writes, docs/known-limits.md "Global memory: what is
// modelled") that T touches and H (or pre) touches too: T(s) and H(s + 1)
// are unordered (no sync between them in other processes), so their race
// would be in no one-slice run. T against T is ordered across slices
// (T(s + 1) follows every process's arrival at S(s + 1)) and compared
// within one. "" or the tensor's name.
std::string tailTensorAlsoBefore(const ir::Schedule& s, const std::vector<Split>& splits) {
  const std::set<int> compared = readAndWrittenTensors(s);
  std::set<int> tail, before;
  for (const Split& sp : splits) {
    for (int t : globalTensors(sp.t)) tail.insert(t);
    for (const ir::Block* b : {&sp.h, &sp.pre})
      for (int t : globalTensors(*b)) before.insert(t);
  }
  for (int t : tail)
    if (before.count(t) && compared.count(t)) return s.params[t].name;
  return "";
}

constexpr auto refuse = &refusedRestart<RestartReduction>;

}  // namespace restart_rotate

std::set<int> globalTensors(const ir::Block& b) {
  std::set<int> out;
  ir::forEachOp(b, [&](const ir::Stmt& o) {
    for (const ir::BufferRef* r : {&o.op.dst, &o.op.src, &o.op.src2})
      if (r->kind == ir::BufferRef::Kind::Param) out.insert(r->index);
  });
  return out;
}

std::string registersAndGlobalOnly(const ir::Schedule& s, const ir::Block& tail) {
  using namespace restart_rotate;
  for (const Stmt& st : tail) {
    if (st.kind == Stmt::Kind::For) return fmt::format("a loop after the cut (line {})", st.range.line);
    if (st.kind == Stmt::Kind::If) {
      if (!st.cond || !instanceOnly(*st.cond))
        return fmt::format("a guard after the cut reads more than lm.instance() (line {})", st.range.line);
      if (auto r = registersAndGlobalOnly(s, st.body); !r.empty()) return r;
      if (auto r = registersAndGlobalOnly(s, st.orelse); !r.empty()) return r;
      continue;
    }
    const ir::Op& op = st.op;
    if (!tailOp(op.kind))
      return fmt::format("lm.{} after the cut (line {}): only register and global-memory ops may follow it",
                         ir::opName(op.kind), st.range.line);
    for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
      if (!registerGlobalOrLiteral(*r))
        return fmt::format("an op after the cut touches shared or tensor memory (line {})", st.range.line);
  }
  return "";
}

RestartReduction rotatedRestartForm(const ir::Schedule& s) {
  using namespace restart_rotate;
  std::vector<Split> splits;
  bool any_pre = false, every_pre = true;
  for (const ir::RoleBody& body : s.bodies) {
    const std::string role = restartRoleName(s, body.role);
    std::string why;
    auto sp = split(body, why, role);
    if (!sp) return refuse(why);
    if (auto r = registersAndGlobalOnly(s, sp->t); !r.empty()) return refuse(fmt::format("{}: {}", role, r));
    if (auto r = preCondition(*sp, role); !r.empty()) return refuse(r);
    any_pre |= !sp->pre.empty();
    every_pre &= !sp->pre.empty();
    splits.push_back(std::move(*sp));
  }
  if (splits.empty()) return refuse("no role runs a slice loop");
  if (any_pre && !every_pre) return refuse("some roles sync before the slice loop and others do not");
  if (auto t = tailTensorAlsoBefore(s, splits); !t.empty())
    return refuse(fmt::format("the global tensor {} is touched after the cut and before it (the next slice's ops "
                              "could meet the tail's)",
                              t));
  RestartReduction out;
  out.text = withSliceBodies(s, splits, rotatedBody);
  out.form = restartForm(out.text);
  if (!out.form.ok) return refuse("rotated to the cut first: " + out.form.reason);
  if (any_pre) {
    const RestartForm pre = restartForm(withSliceBodies(s, splits, preAsTile));
    if (!pre.ok) return refuse("the code before the slice loop: " + pre.reason);
    if (pre.barrier != out.form.barrier)
      return refuse("the code before the slice loop ends with another barrier than the cut's");
  }
  out.ok = true;
  return out;
}

}  // namespace cake::encoder::trip
