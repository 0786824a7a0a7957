// buildSystem() with an evaluation hook, for the persistent-kernel proof
// (encoder/trip_proof.cpp): it builds a tile loop around a K loop with the
// K trip count and the tile's ring start chosen per tile, which no binding
// of the schedule's parameters expresses. Kept out of system.h: nothing
// else needs it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "encoder/system.h"

namespace cake::encoder {

// Asked first for every sub-expression the builder evaluates: a value
// replaces the sub-expression, nullopt evaluates it as usual.
using EvalHook = std::function<std::optional<int64_t>(const ir::Expr&, const ir::EvalEnv&)>;

std::optional<System> buildSystemHooked(const ir::Schedule& s, const Binding& b, ir::Target target,
                                        const EvalHook& hook, std::string* error);

}  // namespace cake::encoder
