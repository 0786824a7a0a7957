#include "encoder/sim_por.h"

namespace cake::encoder::sim {

Reducer::Reducer(const Model& m) : m_(m) {}

std::vector<Step> Reducer::reduce(const State& s, const Async& a, const std::vector<Step>& enabled) {
  return enabled;
}

}  // namespace cake::encoder::sim
