// calibrate: fit the cost model's free coefficients (Coefficients, one per
// term) to measured kernel times.
//
// The model is piecewise linear in its coefficients: with the main term's
// winner fixed (one of mainTerms(): tensor, dram, l2, latency), time =
// launches * (c_launch * launch + c_main * main + c_core * core - c_overlap * overlap
// + c_epi * epilogue), c_overlap <= c_core (at most all overlappable work hidden). The fit
// alternates: assign each sample's winner under the current coefficients,
// then solve the weighted least-squares problem (rows scaled by 1/measured,
// so it minimises relative error) with non-negative coefficients (active
// set over Eigen's column-pivoting QR), until the winners stop changing.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "costmodel/estimate.h"

namespace cake::costmodel {

struct Sample {
  std::string id;                        // for reports
  std::map<std::string, double> raw;     // Estimate::raw
  double measured_ms = 0;
};

struct Fit {
  Coefficients k;
  int samples = 0, iterations = 0;
  double median_abs_rel = 0;             // on the samples fitted
  std::vector<double> predicted_ms;      // per sample, with the fitted k
};

// The least value each coefficient can physically take: a term computed at
// a unit's peak cannot run faster than that peak. The tensor term is the
// FLOP at the tensor cores' dense rate at the loaded clock (floor 1); the
// DRAM and L2 terms use achievable bandwidths, below the nominal peaks
// (floors: achievable / nominal). The other terms are model scales (the
// ring's queueing variance, the overlap of the CUDA-core work with the
// other units): no floor.
std::map<std::string, double> physicalFloors(const Hardware& hw);

// Needs at least one sample with a positive time; coefficients of terms
// that are zero in every sample keep their previous value. Each
// coefficient stays at or above its floor (a bounded least-squares solve:
// the floors are subtracted out and the rest is non-negative).
Fit calibrate(const std::vector<Sample>& samples, const Coefficients& start = {},
              const std::map<std::string, double>& floors = {});

// Accuracy helpers (docs/costmodel.md): median |pred/meas - 1| and
// Spearman's rank correlation (average ranks for ties).
double medianAbsRelError(const std::vector<double>& pred, const std::vector<double>& meas);
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace cake::costmodel
