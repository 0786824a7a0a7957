// Internal to the explicit-state engine: persistent-set partial-order
// reduction (docs/semantics.md "Partial-order reduction").
#pragma once

#include <vector>

#include "encoder/sim_model.h"

namespace cake::encoder::sim {

class Reducer {
 public:
  explicit Reducer(const Model& m);
  // A subset of `enabled` that is persistent in s (all of it when no
  // smaller persistent set is found).
  std::vector<Step> reduce(const State& s, const Async& a, const std::vector<Step>& enabled);

 private:
  const Model& m_;
};

}  // namespace cake::encoder::sim
