// docs/z3.md "Per-instance trip counts of private loops".
#include "encoder/trip_private.h"

#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "encoder/system.h"
#include "encoder/trip_restart_rotate.h"
#include "ir/expr_build.h"

namespace cake::encoder::trip {
namespace trip_private {

bool reads(const ir::ExprPtr& e, int var) { return e && ir::dependsOnLoopVar(*e, var); }

// Whether an operand names other elements at other values of `var` (its
// slot or slices read it): its accesses would move from iteration to
// iteration.
bool operandMoves(const ir::BufferRef& r, int var) {
  if (reads(r.slot, var)) return true;
  for (const ir::Slice& sl : r.slices)
    if (reads(sl.lo, var) || reads(sl.hi, var)) return true;
  return false;
}

bool gridDependency(const ir::Schedule& s, int tensor) {
  for (const ir::GridDependency& d : s.grid_deps)
    if (d.param == tensor) return true;
  return false;
}

// The conditions registersAndGlobalOnly leaves to this step: every op
// writes a register fragment, reads only fragments, literals and tensors
// no op writes (not a model space: no access at all) nor a preceding grid
// writes, and reads `var` only in its coordinates (the element box of a
// tensor that has no accesses).
std::string privateOps(const ir::Schedule& s, const ir::Block& b, int var, const std::set<int>& rw) {
  for (const ir::Stmt& st : b) {
    if (st.kind == ir::Stmt::Kind::If) {
      if (auto why = privateOps(s, st.body, var, rw); !why.empty()) return why;
      if (auto why = privateOps(s, st.orelse, var, rw); !why.empty()) return why;
      continue;
    }
    const ir::Op& op = st.op;
    if (op.dst.kind != ir::BufferRef::Kind::Regs)
      return fmt::format("lm.{} writes no register fragment (line {})", ir::opName(op.kind), st.range.line);
    for (const ir::BufferRef* r : {&op.src, &op.src2})
      if (r->kind == ir::BufferRef::Kind::Param && (rw.count(r->index) || gridDependency(s, r->index)))
        return fmt::format("lm.{} reads a tensor the schedule or a preceding grid writes (line {})",
                           ir::opName(op.kind), st.range.line);
    for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
      if (operandMoves(*r, var) || reads(r->scalar, var))
        return fmt::format("an operand of lm.{} reads the loop variable (line {})", ir::opName(op.kind),
                           st.range.line);
    if (reads(op.fill_value, var) || reads(op.base, var))
      return fmt::format("lm.{} reads the loop variable outside its coordinates (line {})", ir::opName(op.kind),
                         st.range.line);
  }
  return "";
}

// A loop that starts at a constant c and steps by a positive constant runs
// its first iteration, v = c, exactly when c < E.
bool constantStartAndStep(const ir::Stmt& loop) {
  const auto lo = loop.lo ? ir::constValue(loop.lo) : std::optional<int64_t>(0);
  const auto step = loop.step ? ir::constValue(loop.step) : std::optional<int64_t>(1);
  return lo && step && *step > 0;
}

// `if E > c: for v in lm.range(c, c + 1): body` in place of the loop.
ir::Stmt firstIterationOnly(const ir::Stmt& loop) {
  const int64_t c = loop.lo ? *ir::constValue(loop.lo) : 0;
  ir::Stmt once = loop;
  once.lo = ir::build::lit(c);
  once.hi = ir::build::lit(c + 1);
  once.step = nullptr;
  ir::Stmt guard;
  guard.kind = ir::Stmt::Kind::If;
  guard.range = loop.range;
  guard.cond = ir::build::gt(loop.hi, ir::build::lit(c));
  guard.body.push_back(std::move(once));
  return guard;
}

class Collapser {
 public:
  explicit Collapser(const ir::Schedule& s) : s_(s), rw_(readAndWrittenTensors(s)) {}
  void block(ir::Block& b, int instances) {
    for (ir::Stmt& st : b) {
      if (st.kind == ir::Stmt::Kind::For && collapsible(st, instances)) {
        lines_.push_back(st.range.line);
        st = firstIterationOnly(st);
        continue;
      }
      block(st.body, instances);
      block(st.orelse, instances);
    }
  }
  const std::vector<int>& lines() const { return lines_; }

 private:
  // A loop the proofs refuse for its bound alone (findTripWith): symbolic,
  // reading lm.instance() in a role of several instances, and no loop
  // variable (the guard that replaces it then picks no iterations of an
  // outer loop: it is the same at each of them).
  bool collapsible(const ir::Stmt& loop, int instances) const {
    if (instances < 2 || !loop.hi || !ir::exprUses(*loop.hi, {ir::ExprKind::Instance})) return false;
    if (!ir::exprUses(*loop.hi, {ir::ExprKind::Param}) || ir::exprUses(*loop.hi, {ir::ExprKind::LoopVar})) return false;
    return constantStartAndStep(loop) && privateLoopBody(s_, loop, rw_).empty();
  }
  const ir::Schedule& s_;
  const std::set<int> rw_;
  std::vector<int> lines_;
};

}  // namespace trip_private

std::string privateLoopBody(const ir::Schedule& s, const ir::Stmt& loop, const std::set<int>& rw) {
  if (auto why = registersAndGlobalOnly(s, loop.body); !why.empty()) return why;
  return trip_private::privateOps(s, loop.body, loop.loop_var, rw);
}

std::optional<CollapsedLoops> collapsePrivateInstanceLoops(const ir::Schedule& s) {
  auto copy = std::make_shared<ir::Schedule>(s);
  trip_private::Collapser c(s);
  for (ir::RoleBody& body : copy->bodies) {
    const bool known = body.role >= 0 && body.role < static_cast<int>(s.roles.size());
    c.block(body.body, known ? s.roles[body.role].instanceCount() : 1);
  }
  if (c.lines().empty()) return std::nullopt;
  return CollapsedLoops{copy, fmt::format("private loops with a trip count per instance run their first iteration "
                                          "alone (line{} {})",
                                          c.lines().size() > 1 ? "s" : "", fmt::join(c.lines(), ", "))};
}

}  // namespace cake::encoder::trip
