// calibrate: fit the cost model's free coefficients (Coefficients, one per
// term) to measured kernel times.
//
// The model is piecewise linear in its coefficients: with the main term's
// winner fixed (one of mainTerms(): tensor, dram, l2, latency), time =
// launches * (c_launch * launch + c_main * main + c_core * core + c_epi * epilogue). The fit
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

// Needs at least one sample with a positive time; coefficients of terms
// that are zero in every sample keep their previous value.
Fit calibrate(const std::vector<Sample>& samples, const Coefficients& start = {});

// Accuracy helpers (docs/costmodel.md): median |pred/meas - 1| and
// Spearman's rank correlation (average ranks for ties).
double medianAbsRelError(const std::vector<double>& pred, const std::vector<double>& meas);
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace cake::costmodel
