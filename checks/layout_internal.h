// Internals of the layout / hardware-contract gates (checks/layout*.cpp).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/check.h"
#include "encoder/bv_prover.h"
#include "ir/diagnostic.h"
#include "ir/expr_build.h"
#include "ir/schedule.h"
#include "ir/target.h"

namespace cake::checks {

// A rule the gates report (ir::rule: an unknown id throws). The gates also
// report the static case of the model checker's sync.tx-imbalance (explicit
// expect_tx vs. the bytes of the boxes aimed at the same slot and phase);
// the driver dedupes.
inline const ir::RuleInfo& layoutRule(std::string_view id) { return ir::rule(id); }

namespace layout {

using ir::ExprPtr;

// ------------------------------------------------ expression construction
// The constant-folding builders (Python semantics), shared with the
// shared-memory layout.
using ir::build::add;
using ir::build::alignUp;
using ir::build::allOf;
using ir::build::anyOf;
using ir::build::cdiv;
using ir::build::eq;
using ir::build::fdiv;
using ir::build::ge;
using ir::build::gt;
using ir::build::isConst;
using ir::build::land;
using ir::build::le;
using ir::build::lit;
using ir::build::lnot;
using ir::build::lor;
using ir::build::lt;
using ir::build::max;
using ir::build::min;
using ir::build::mod;
using ir::build::mul;
using ir::build::ne;
using ir::build::product;
using ir::build::sub;

ExprPtr symbol(ir::ExprKind k, int index);  // a parameter, loop variable or builtin

// The values the variable of `for v in lm.range(lo, hi, step)` takes, as
// premises: lo <= v < hi (hi < v <= lo for a negative step), and
// (v - lo) % step == 0 for |step| > 1. Without `upper`, the bound on the
// `hi` side is left out (a weaker premise, often a much cheaper query).
void pushLoopPremises(const ir::Stmt& loop, std::vector<ExprPtr>& premises, bool upper = true);
// 0 <= lm.instance() < instances (at least 1).
void pushInstancePremises(int instances, std::vector<ExprPtr>& premises);

// The solver limits of a check run.
encoder::Limits limitsOf(const CheckOptions& o);

// ------------------------------------------------------------- op sites

// One op with where it runs: role, enclosing loops/guards as premises.
struct OpSite {
  const ir::Stmt* stmt = nullptr;
  int role = -1;
  const ir::Block* block = nullptr;  // the block holding the statement
  size_t index = 0;                  // its index in `block`
  std::vector<ExprPtr> premises;     // loop bounds, guards, instance range
  const ir::Op& op() const { return stmt->op; }
};

// ---------------------------------------------------------- target facts

// The target's limits and features: the one target table (ir/target.h).
using TargetInfo = ir::TargetLimits;
TargetInfo targetInfo(ir::Target t);

// ---------------------------------------------------------------- gates

// The obligations of one rule: counted as they are decided, summed up into
// one verdict (proved / counterexample / unknown / error).
struct VerdictAgg {
  int obligations = 0;
  int symbolic = 0;
  int failed = 0;
  std::string first_failure;
  std::vector<std::string> unknown;  // reasons
  std::vector<std::string> errors;

  void record(const ir::Schedule& s, const encoder::BvResult& r, bool symbolic);
  // `vacuous`: the schedule's assumptions contradict each other.
  PropertyVerdict verdict(const ir::Schedule& s, std::string_view rule, bool vacuous) const;
};

class Gates {
 public:
  Gates(const ir::Schedule& s, const CheckOptions& opts, ir::DiagnosticSink& sink);

  const ir::Schedule& s;
  const CheckOptions& opts;
  ir::DiagnosticSink& sink;
  TargetInfo ti;
  encoder::BvProver prover;
  std::vector<OpSite> sites;
  bool vacuous = false;  // the assumptions contradict each other

  // Derived facts.
  std::vector<bool> view_tma;       // a TMA copy uses the view
  std::vector<bool> view_mma;       // an MMA reads the view
  std::vector<int64_t> view_align;  // required slot alignment (bytes): the strictest of the view's uses
  std::vector<std::string> view_align_why;  // "16 bytes, as an MMA operand needs ..."
  std::vector<int64_t> pool_align;

  // Prove `goal` as an obligation of `rule` (result is recorded).
  encoder::BvResult check(std::string_view rule, const ExprPtr& goal,
                          const std::vector<ExprPtr>& premises = {});
  // Is `cond` possible? (recorded under `rule`; "holds" = impossible.)
  encoder::BvResult possible(std::string_view rule, const ExprPtr& cond,
                             const std::vector<ExprPtr>& premises = {});
  // A solver-free obligation.
  void fact(std::string_view rule, bool ok, const std::string& what = {});

  // A finding of `rule`; with a solver result, the counterexample goes
  // into the verdict / data / message suffix.
  ir::Finding finding(std::string_view rule, const ir::SourceRange& at, std::string message);
  void emit(ir::Finding f, const encoder::BvResult* r = nullptr);
  static void note(ir::Finding& f, const ir::SourceRange& at, std::string message);

  // Text helpers.
  std::string str(const ExprPtr& e) const;  // "128 * BN * 2"
  // "N" for a constant; "expr" (= value under the model) otherwise.
  std::string show(const ExprPtr& e, const encoder::BvResult* r = nullptr) const;
  std::optional<int64_t> valueAt(const ExprPtr& e, const encoder::BvResult* r) const;
  std::string when(const encoder::BvResult& r) const;  // " when BN = 136" / ""

  // Shapes and sizes.
  ExprPtr slotBytes(int view) const;
  ExprPtr viewBytes(int view) const;  // stages * slot
  // Extents of a buffer reference after slicing; empty for params/scalars.
  std::vector<ExprPtr> refShape(const ir::BufferRef& r) const;
  ir::DType refDtype(const ir::BufferRef& r) const;
  std::string refName(const ir::BufferRef& r) const;
  ir::SourceRange refDecl(const ir::BufferRef& r) const;
  // The first op site that uses view / TMEM region `index` (nullptr if none),
  // optionally only ops of kind `kind`.
  const OpSite* firstUse(ir::BufferRef::Kind k, int index, std::optional<ir::OpKind> kind = std::nullopt) const;
  // Warps of instance `i` of role `r`.
  std::vector<int> instanceWarps(int role, int i) const;

  std::vector<PropertyVerdict> verdicts() const;

  std::map<std::string, VerdictAgg, std::less<>> agg;
  void record(std::string_view rule, const encoder::BvResult& r, bool symbolic);
};

// The gate families (layout_*.cpp).
void runTargetFeatureGates(Gates& g);
void runSmemGates(Gates& g);
void runCpAsyncGlobalGates(Gates& g);  // layout_smem.cpp
void runTmaGates(Gates& g);
void runMmaGates(Gates& g);
void runTmemGates(Gates& g);
void runRoleGates(Gates& g);
void runGlobalStoreGates(Gates& g);
nlohmann::json buildResourceReport(Gates& g);

}  // namespace layout
}  // namespace cake::checks
