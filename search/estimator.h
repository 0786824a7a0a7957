// The estimator `cake tune` ranks with. The cost model (costmodel/, helper
// branch h-cost) plugs in here once its API lands; until then there is no
// estimator and candidates are measured in enumeration order (the report
// and the ablation say so: nothing is predicted that was not computed).
#pragma once

#include <string>

#include "search/tune.h"

namespace cake::search {

// The estimator to use and its name for the report ("none" when empty).
Estimator defaultEstimator(std::string* name);

}  // namespace cake::search
