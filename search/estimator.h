// The estimator `cake tune` ranks with: the cost model (costmodel/estimate.h)
// on the workload's shape. Tests plug in their own (tune.h's Estimator).
#pragma once

#include <string>

#include "search/tune.h"

namespace cake::search {

// The cost model as an Estimator, and its name for the report.
Estimator defaultEstimator(std::string* name);

}  // namespace cake::search
