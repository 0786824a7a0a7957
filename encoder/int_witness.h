// A witness search over unbounded integers (Z3's nonlinear integer
// arithmetic), for queries whose products of symbols (a persistent tile
// `lm.block_idx(0) + t * lm.grid_dim(0)`, a tile count `lm.cdiv(M, 128)`
// that divides it) the 64-bit bit-vector encoding (encoder/bv_prover.h)
// cannot settle in time. Python's integers are unbounded, so the encoding
// is exact: `//` and `%` floor, lm.cdiv(a, b) = -((-a) // b), a division
// by zero undefined (a witness must be defined everywhere). The free
// symbols range as in BvProver (a parameter and a loop variable over the
// 32-bit integers, lm.instance() over [0, 1024), lm.grid_dim(d) >= 1,
// 0 <= lm.block_idx(d) < lm.grid_dim(d)); the schedule's lm.assume facts
// are premises. The cross-CTA store check (checks/layout_gstore.cpp) is
// its user.
#pragma once

#include <vector>

#include "encoder/bv_prover.h"

namespace cake::encoder {

// Is there an assignment where every premise and `cond` are defined and
// true? Fails = yes (the witness in `model`), Holds = none, Unknown (the
// resource limit, the timeout, an unsupported construct; the reason in
// `detail`). `limits.rlimit` (Z3's deterministic resource units) and
// `limits.timeout_ms` bound the query.
BvResult intWitness(const ir::Schedule& s, const ir::ExprPtr& cond, const std::vector<ir::ExprPtr>& premises,
                    Limits limits);

}  // namespace cake::encoder
