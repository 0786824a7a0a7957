#include "search/estimator.h"

namespace cake::search {

Estimator defaultEstimator(std::string* name) {
  *name = "none";
  return {};
}

}  // namespace cake::search
