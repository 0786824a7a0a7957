// Derived expect_tx, decided once for every consumer. A TMA load on a
// barrier that no role names in an lm.expect_tx gets its bytes announced by
// an arrive.expect_tx that nobody wrote (IR.md): which loads share one such
// arrival (a batch), where it is issued and how many bytes it announces is
// decided here, and both the model checker (encoder/system.cpp) and
// lowering (lowering/emit_kernel.cpp, emit_sync.cpp) follow this plan, so what is verified
// is what is emitted (docs/semantics.md "Derived expect_tx").
//
// A batch: a TMA load and the TMA loads after it in the same statement list
// that name the same barrier with the same selector (iter=/stage=/phase=
// expressions alike), up to the next compound statement (for / if) or the
// next wait on that barrier. Its arrive.expect_tx is issued right before
// its first load, counts one arrival, and announces the sum of the loads'
// box bytes. All of a batch runs whenever its first load does (straight-line
// code), so the bytes announced are the bytes that land.
#pragma once

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ir/schedule.h"

namespace cake::ir {

struct TxBatch {
  int role = -1;
  int barrier = -1;
  // In program order; the arrival goes right before loads.front() and
  // announces the sum of the loads' box bytes (each consumer evaluates the
  // views' shapes itself; tests/lowering checks that they agree).
  std::vector<const Stmt*> loads;
};

struct TxPlan {
  std::vector<TxBatch> batches;
  std::map<const Stmt*, int> batch_of;        // every covered TMA load -> its batch
  std::set<std::pair<int, int>> derived;      // (role, barrier) pairs whose loads are covered

  // The batch whose arrival is issued right before `load` (nullptr: none).
  const TxBatch* headedBy(const Stmt* load) const;
  // The batch `load` belongs to (nullptr: its role announces the bytes itself).
  const TxBatch* batchOf(const Stmt* load) const;
};

// Keyed by the statements of `s`: valid while `s` is.
TxPlan planDerivedTx(const Schedule& s);

}  // namespace cake::ir
