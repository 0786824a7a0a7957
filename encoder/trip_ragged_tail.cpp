#include "encoder/trip_ragged_tail.h"

#include <fmt/format.h>

#include <set>
#include <vector>

#include "encoder/defined_premise.h"
#include "ir/expr_build.h"
#include "ir/expr_canon.h"
#include "ir/expr_fields.h"

namespace cake::encoder::trip {

namespace {

using K = ir::ExprKind;
namespace rb = ir::build;  // (rb: a unity build shares this namespace)

constexpr int kMaxPeeledLoops = 8;
constexpr int kMaxAskedPerLoop = 32;  // nodes and conditions asked per loop

ir::ExprPtr raggedLeaf(K kind, int index) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = kind;
  e->index = index;
  return e;
}

bool stepIsOne(const ir::Stmt& loop) {
  if (!loop.lo || !loop.hi) return false;
  const std::optional<int64_t> step = loop.step ? ir::constValue(loop.step) : std::optional<int64_t>(1);
  return step && *step == 1;
}

// The variables of the loops in `b` (at any depth).
void loopVarsIn(const ir::Block& b, std::set<int>& out) {
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::For) out.insert(st.loop_var);
    loopVarsIn(st.body, out);
    loopVarsIn(st.orelse, out);
  }
}

// A TMA load in b: its derived expect_tx batch is the loads after it whose
// selectors are alike, which a decided node could make alike where the
// schedule's are not (docs/semantics.md "Derived expect_tx"); such loops are
// not peeled.
bool loadsByTma(const ir::Block& b) {
  bool any = false;
  ir::forEachOp(b, [&](const ir::Stmt& st) { any = any || st.op.kind == ir::OpKind::TmaLoad; });
  return any;
}

bool readsAnyOf(const ir::Expr& e, const std::set<int>& vars) {
  return ir::anySubExpr(e, [&](const ir::Expr& x) { return x.kind == K::LoopVar && vars.count(x.index); });
}

class RaggedPeeler {
 public:
  RaggedPeeler(ir::Schedule& s, const HoldsUnder& holds) : s_(s), holds_(holds), defined_(s, holds) {}

  // Peels the loops of `block` (a role body of the copy; `instances` its
  // role's instance count), outermost first.
  void peelIn(ir::Block& block, int instances) {
    const ir::ExprPtr inst = raggedLeaf(K::Instance, 0);
    outer_ = {rb::le(rb::lit(0), inst), rb::lt(inst, rb::lit(instances))};
    bound_.clear();
    walk(block);
  }

  int peeled = 0;
  std::vector<std::string> texts;

 private:
  ir::Schedule& s_;
  const HoldsUnder& holds_;
  DefinedPremises defined_;         // which conditions and bounds may be premises (sound51)
  std::vector<ir::ExprPtr> outer_;  // premises: the instance's range, the loops around
  std::set<int> bound_;             // the loops around: their variables

  // The loop's own attempt's state.
  struct Attempt {
    int var = -1;
    std::set<int> inner;                // variables of the loops in its body
    std::vector<ir::ExprPtr> early;     // premises of an iteration before the last
    int asked = 0, decided = 0;
  };

  void walk(ir::Block& block) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block[i].kind == ir::Stmt::Kind::For) {
        if (bound_.count(block[i].loop_var)) return;  // shadowed: nothing below is asked
        if (peeled < kMaxPeeledLoops)
          if (std::optional<ir::Stmt> last = tryPeel(block[i])) {
            block.insert(block.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(*last));
            ++i;  // the peeled iteration: nothing in it is peeled again
            continue;
          }
        ir::Stmt& loop = block[i];
        const std::vector<ir::ExprPtr> r = rangeOf(loop, loop.hi);
        outer_.insert(outer_.end(), r.begin(), r.end());
        bound_.insert(loop.loop_var);
        walk(loop.body);
        bound_.erase(loop.loop_var);
        outer_.resize(outer_.size() - r.size());
        continue;
      }
      walk(block[i].body);
      walk(block[i].orelse);
    }
  }

  // lo <= v < end for a loop by 1 (none for another step).
  static std::vector<ir::ExprPtr> rangeOf(const ir::Stmt& loop, const ir::ExprPtr& end) {
    if (!stepIsOne(loop)) return {};
    const ir::ExprPtr v = raggedLeaf(K::LoopVar, loop.loop_var);
    return {rb::le(loop.lo, v), rb::lt(v, end)};
  }

  bool asked(const ir::Expr& e) const {
    return !(s_.cluster_ops && s_.clusterSize() > 1 && ir::exprUses(e, {K::BlockIdx, K::GridDim}));
  }

  // A node or condition the attempt may decide: reads its variable, no
  // variable of a loop inside the body, and is defined before the last
  // iteration.
  bool askable(const ir::ExprPtr& e, Attempt& a) {
    if (!ir::dependsOnLoopVar(*e, a.var) || readsAnyOf(*e, a.inner) || !asked(*e)) return false;
    if (a.asked >= kMaxAskedPerLoop) return false;
    ++a.asked;
    return defined_.definedUnder(e, a.early);
  }

  // e with each min / max node that an iteration before the last reads as
  // one operand replaced by it (bottom up).
  ir::ExprPtr decideNodes(const ir::ExprPtr& e, Attempt& a) {
    if (!e || !ir::dependsOnLoopVar(*e, a.var)) return e;
    auto copy = std::make_shared<ir::Expr>(*e);
    bool changed = false;
    for (ir::ExprPtr& arg : copy->args) {
      ir::ExprPtr d = decideNodes(arg, a);
      changed = changed || d != arg;
      arg = std::move(d);
    }
    const ir::ExprPtr node = changed ? ir::ExprPtr(copy) : e;
    if ((node->kind != K::Min && node->kind != K::Max) || node->args.size() != 2 || !askable(node, a)) return node;
    const ir::ExprPtr& x = node->args[0];
    const ir::ExprPtr& y = node->args[1];
    const bool is_min = node->kind == K::Min;
    if (holds_(rb::ge(x, y), a.early)) return ++a.decided, is_min ? y : x;
    if (holds_(rb::ge(y, x), a.early)) return ++a.decided, is_min ? x : y;
    return node;
  }

  // Each `if` whose condition an iteration before the last decides gets
  // the constant outcome.
  void decideConditions(ir::Block& b, Attempt& a) {
    for (ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::If && st.cond && askable(st.cond, a)) {
        if (holds_(st.cond, a.early)) {
          st.cond = rb::lit(1), ++a.decided;
        } else if (holds_(rb::lnot(st.cond), a.early)) {
          st.cond = rb::lit(0), ++a.decided;
        }
      }
      decideConditions(st.body, a);
      decideConditions(st.orelse, a);
    }
  }

  // The loops of b given variables of their own (the peeled iteration's
  // copy of the body beside the loop's).
  void renumberLoops(ir::Block& b) {
    for (ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::For) {
        const int fresh = static_cast<int>(s_.loop_vars.size());
        s_.loop_vars.push_back(s_.loop_vars.at(static_cast<size_t>(st.loop_var)));
        const ir::ExprPtr to = raggedLeaf(K::LoopVar, fresh);
        const int old = st.loop_var;
        ir::forEachExprField(st.body, [&](ir::ExprPtr& e) {
          if (e) e = ir::substituteLoopVar(e, old, to);
        });
        st.loop_var = fresh;
      }
      renumberLoops(st.body);
      renumberLoops(st.orelse);
    }
  }

  std::optional<ir::Stmt> tryPeel(ir::Stmt& loop) {
    if (!stepIsOne(loop) || !asked(*loop.lo) || !asked(*loop.hi) || loadsByTma(loop.body)) return std::nullopt;
    const ir::ExprPtr last_v = rb::sub(loop.hi, rb::lit(1));  // the copy's bound and its last iteration
    if (!defined_.definedUnder(loop.lo, outer_) || !defined_.definedUnder(loop.hi, outer_) ||
        !defined_.definedUnder(last_v, outer_))
      return std::nullopt;
    Attempt a;
    a.var = loop.loop_var;
    loopVarsIn(loop.body, a.inner);
    if (a.inner.count(a.var)) return std::nullopt;  // rebound inside: its reads are not this loop's
    a.early = outer_;
    const ir::ExprPtr v = raggedLeaf(K::LoopVar, loop.loop_var);
    a.early.push_back(rb::le(loop.lo, v));
    a.early.push_back(rb::lt(rb::add(v, rb::lit(1)), loop.hi));
    ir::Block early_body = loop.body;
    ir::forEachExprField(early_body, [&](ir::ExprPtr& e) { e = decideNodes(e, a); });
    decideConditions(early_body, a);
    if (!a.decided) return std::nullopt;

    ir::Stmt last;
    last.kind = ir::Stmt::Kind::If;
    last.range = loop.range;
    last.cond = holds_(rb::lt(loop.lo, loop.hi), outer_) ? rb::lit(1) : rb::lt(loop.lo, loop.hi);
    last.body = loop.body;
    ir::forEachExprField(last.body, [&](ir::ExprPtr& e) {
      if (e) e = ir::substituteLoopVar(e, a.var, last_v);
    });
    renumberLoops(last.body);

    texts.push_back(fmt::format("lm.range({}, {}) with its last iteration peeled ({} decided before it)",
                                ir::exprToString(*loop.lo, s_), ir::exprToString(*loop.hi, s_), a.decided));
    loop.body = std::move(early_body);
    loop.hi = last_v;
    ++peeled;
    return last;
  }
};

}  // namespace

std::optional<PeeledTails> peelRaggedLastIterations(const ir::Schedule& s, const HoldsUnder& holds) {
  auto copy = std::make_shared<ir::Schedule>(s);
  RaggedPeeler peeler(*copy, holds);
  for (ir::RoleBody& body : copy->bodies) {
    const int instances = body.role >= 0 && body.role < static_cast<int>(copy->roles.size())
                              ? copy->roles[body.role].instanceCount()
                              : 1;
    peeler.peelIn(body.body, instances);
  }
  if (!peeler.peeled) return std::nullopt;
  PeeledTails out;
  out.s = std::move(copy);
  out.peeled = peeler.peeled;
  for (const std::string& t : peeler.texts)
    if (out.text.find(t) == std::string::npos) out.text += (out.text.empty() ? "" : ", ") + t;
  return out;
}

}  // namespace cake::encoder::trip
