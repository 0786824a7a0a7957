// Does a schedule compute the GEMM size `cake run` asks for?
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/schedule.h"

namespace cake::lowering {

// C[M,N] = A[M,K] . B[N,K]^T of this size, decided from the schedule alone,
// before any GPU work (`cake run` reports `unsupported_shape` with the
// returned reason):
//  - every lm.assume that the bound sizes decide must hold for them;
//  - a size that is not an i32 parameter is fixed by the schedule: K must be
//    the extent the loads of A and B cover along their K axis (their
//    coordinates evaluated over the loops that issue them).
// nullopt: nothing contradicts the size (or the schedule does not say).
std::optional<std::string> gemmShapeMismatch(const ir::Schedule& schedule, int64_t M, int64_t N, int64_t K);

}  // namespace cake::lowering
