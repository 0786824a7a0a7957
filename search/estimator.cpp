#include "search/estimator.h"

#include "costmodel/estimate.h"

namespace cake::search {

Estimator defaultEstimator(std::string* name) {
  *name = "the cost model (costmodel/estimate.h)";
  return [](const ir::Schedule& s, const Workload& w) -> std::optional<Prediction> {
    workload::Shape shape{workload::Kind::Gemm, {{"M", w.shape.M}, {"N", w.shape.N}, {"K", w.shape.K}}};
    costmodel::Estimate e = costmodel::estimate(s, shape);
    if (!e.ok) return std::nullopt;   // unbound or unsupported: ranked last, not guessed
    return Prediction{e.time_ms, std::string(costmodel::bottleneckName(e.bottleneck))};
  };
}

}  // namespace cake::search
