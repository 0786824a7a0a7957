// Small constant-folding builders over ir::Expr (Python semantics): an
// operator on two constants folds to a constant (ir::evaluate), and the
// identities x + 0, x - 0, x * 1, x // 1 drop the constant. Used where a
// quantity is built rather than parsed: the shared-memory layout
// (ir/smem_layout.h) and the layout / hardware-contract gates
// (checks/layout*.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/schedule.h"

namespace cake::ir::build {

ExprPtr lit(int64_t v);
ExprPtr add(ExprPtr a, ExprPtr b);
ExprPtr sub(ExprPtr a, ExprPtr b);
ExprPtr mul(ExprPtr a, ExprPtr b);
ExprPtr fdiv(ExprPtr a, ExprPtr b);
ExprPtr mod(ExprPtr a, ExprPtr b);
ExprPtr cdiv(ExprPtr a, ExprPtr b);
ExprPtr min(ExprPtr a, ExprPtr b);
ExprPtr max(ExprPtr a, ExprPtr b);
ExprPtr lt(ExprPtr a, ExprPtr b);
ExprPtr le(ExprPtr a, ExprPtr b);
ExprPtr ge(ExprPtr a, ExprPtr b);
ExprPtr gt(ExprPtr a, ExprPtr b);
ExprPtr eq(ExprPtr a, ExprPtr b);
ExprPtr ne(ExprPtr a, ExprPtr b);
ExprPtr land(ExprPtr a, ExprPtr b);
ExprPtr lor(ExprPtr a, ExprPtr b);
ExprPtr lnot(ExprPtr a);
ExprPtr alignUp(ExprPtr e, int64_t a);            // (e + a - 1) // a * a; e for a <= 1
ExprPtr product(const std::vector<ExprPtr>& xs);  // 1 for an empty list
ExprPtr allOf(const std::vector<ExprPtr>& xs);    // 1 for an empty list
ExprPtr anyOf(const std::vector<ExprPtr>& xs);    // 0 for an empty list
bool isConst(const ExprPtr& e, int64_t* v = nullptr);

}  // namespace cake::ir::build
