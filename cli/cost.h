// The cost model's report, shared by `cake cost` and `cake check --shape`.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "costmodel/estimate.h"
#include "ir/schedule.h"

namespace cake::cli {

// Binds the schedule to the workload and shape and estimates it; nullopt
// with `error` for a bad workload name or shape.
std::optional<costmodel::Estimate> costOf(const ir::Schedule& s, const std::string& workload,
                                          const std::string& shape, const std::map<std::string, int64_t>& sets,
                                          std::string* error, bool coverage = true);
// "cost: 0.2100 ms predicted, tensor-core-bound\n  tensor ... \n"
std::string costText(const costmodel::Estimate& e);

}  // namespace cake::cli
