// Counterexample traces: the kinds of steps, the handoffs between them, the
// "relevant steps" slice, and the swimlane picture (SVG). The trace itself
// is ir::TraceStep in a Finding (ir/diagnostic.h); the model checker fills
// it (checks/model_check.cpp) from the simulator's replay. docs/traces.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::ir {

struct TraceStep;
struct Finding;

// What a step does, as the simulator executes it (encoder/sim_state.cpp).
// The names (stepKindName) are stable: JSON "kind", text "[kind]", SVG.
#define CAKE_STEP_KINDS(X)                                                                          \
  X(Arrive, "arrive")                 /* lm.arrive: arrivals on an mbarrier slot */                  \
  X(ExpectTx, "expect-tx")            /* lm.expect_tx or the derived one: one arrival + bytes */     \
  X(TmaIssue, "tma-issue")            /* a TMA load is issued (its bytes land later) */              \
  X(TmaLand, "tma-land")              /* the TMA load's bytes land: they count on its slot */        \
  X(TmaStoreIssue, "tma-store-issue") /* a TMA store joins its instance's store group */            \
  X(CpAsyncIssue, "cp-async-issue")   /* a cp.async joins its instance's cp.async group */          \
  X(MmaIssue, "mma-issue")            /* an asynchronous MMA joins the open MMA group */             \
  X(MmaRun, "mma-run")                /* a synchronous MMA (sm_80) reads and writes at once */       \
  X(MmaCommit, "mma-commit")          /* lm.mma_commit closes the MMA group */                       \
  X(MmaComplete, "mma-complete")      /* sm_100a: the committed group completes, arrives on slot */  \
  X(MmaWait, "mma-wait")              /* lm.mma_wait retires MMA groups */                           \
  X(GroupCommit, "group-commit")      /* tma_store_commit / cp_async_commit */                       \
  X(GroupWait, "group-wait")          /* tma_store_wait / cp_async_wait / tmem_*_wait retire groups */ \
  X(WaitPass, "wait-pass")            /* lm.wait passes: the phase it waits for completed */         \
  X(WaitBlock, "wait-block")          /* lm.wait that never passes (deadlock, lost phase) */         \
  X(NamedArrive, "named-arrive")      /* lm.bar_arrive on a named barrier */                         \
  X(NamedSync, "named-sync")          /* lm.sync arrives on a named barrier (and will wait) */       \
  X(NamedPass, "named-pass")          /* lm.sync's generation completed: it passes */                \
  X(NamedBlock, "named-block")        /* lm.sync that never passes */                                \
  X(Fence, "fence")                   /* lm.fence_proxy */                                           \
  X(Access, "access")                 /* a synchronous generic op reads / writes bytes */            \
  X(TmemLdIssue, "tmem-ld-issue")     /* lm.tmem_load: a tcgen05.ld is in flight until wait::ld */   \
  X(TmemStIssue, "tmem-st-issue")     /* lm.tmem_store: a tcgen05.st is in flight until wait::st */  \
  X(Other, "other")                   /* not classified (a step from another producer) */

enum class StepKind {
#define CAKE_STEP_KIND_ENUM(e, name) e,
  CAKE_STEP_KINDS(CAKE_STEP_KIND_ENUM)
#undef CAKE_STEP_KIND_ENUM
};
std::string_view stepKindName(StepKind k);
std::optional<StepKind> parseStepKind(std::string_view name);
// All kinds, in declaration order (docs, tests).
std::vector<StepKind> allStepKinds();

// A step that counts on an mbarrier slot (arrive, expect-tx, tma-land,
// mma-complete).
bool countsOnSlot(StepKind k);

// One edge of the happens-before structure that a trace shows: the step
// `from` enables or releases the step `to` (indices into the trace).
struct Handoff {
  enum class Kind {
    Barrier,   // an arrival counted into the phase a wait passed on (mbarrier or named barrier)
    Landing,   // a TMA load's issue -> its bytes landing
    Completion // an MMA commit -> the group's completion (sm_100a)
  };
  size_t from = 0, to = 0;
  Kind kind = Kind::Barrier;
};
std::string_view handoffKindName(Handoff::Kind k);  // "barrier", "landing", "completion"

// The handoffs of a trace, from its steps alone: per (barrier, slot) the
// completed-phase count before each arrival says which phase it counted
// into, and a passing wait is released by the arrivals of the phase that
// completed last; landings and completions pair with the issue / commit of
// the same op, instance and iteration.
std::vector<Handoff> traceHandoffs(const std::vector<TraceStep>& trace);

// The steps a violation depends on (ascending indices into `trace`): the
// violating steps `anchors`, and backwards from them and from `blocked`
// (waits that never passed), the synchronization that ordered each of them
// in its instance (the last passing wait before it) and the arrivals,
// landings and issues behind that wait, `depth` handoffs deep; for a
// blocked wait, the arrivals that its phase did get.
std::vector<int> relevantSteps(const std::vector<TraceStep>& trace, const std::vector<int>& anchors,
                               const std::vector<TraceStep>& blocked, int depth = 3);

// The finding's trace as an SVG swimlane picture: one lane per role
// instance, time downwards, arrows for handoffs, the relevant steps in
// black and the others grey, the violating steps and blocked waits red.
// Elements carry class= and data-* attributes (docs/traces.md) for tools.
std::string traceSvg(const Finding& f);

}  // namespace cake::ir
