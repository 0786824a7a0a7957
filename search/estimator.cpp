#include "search/estimator.h"

#include "costmodel/estimate.h"

namespace cake::search {

Estimator defaultEstimator(std::string* name) {
  *name = "the cost model (costmodel/estimate.h)";
  return [](const ir::Schedule& s, const Workload& w) -> std::optional<Prediction> {
    costmodel::Estimate e = costmodel::estimate(s, w.shape);
    if (!e.ok) return std::nullopt;   // unbound or unsupported: ranked last, not guessed
    return Prediction{e.time_ms, std::string(costmodel::bottleneckName(e.bottleneck))};
  };
}

}  // namespace cake::search
