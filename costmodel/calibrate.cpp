#include "costmodel/calibrate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

namespace cake::costmodel {

namespace {

// every fitted term: the main ones (one wins the max per sample), then the additive ones
const std::vector<std::string>& termNames() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> all = mainTerms();
    for (const std::string& t : additiveTerms()) all.push_back(t);
    all.push_back("overlap");  // subtracted: the hidden share of the CUDA-core work
    return all;
  }();
  return n;
}

bool isMain(const std::string& n) {
  const auto& m = mainTerms();
  return std::find(m.begin(), m.end(), n) != m.end();
}

double rawOf(const Sample& s, const std::string& n) {
  auto it = s.raw.find(n);
  return it == s.raw.end() ? 0.0 : it->second;
}

// Non-negative least squares by an active set: solve on the free columns,
// drop the most negative coefficient, repeat.
Eigen::VectorXd nnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& y, std::vector<bool> active) {
  const int m = static_cast<int>(A.cols());
  Eigen::VectorXd x = Eigen::VectorXd::Zero(m);
  for (int round = 0; round < m; ++round) {
    std::vector<int> cols;
    for (int j = 0; j < m; ++j)
      if (active[j]) cols.push_back(j);
    if (cols.empty()) break;
    Eigen::MatrixXd sub(A.rows(), static_cast<int>(cols.size()));
    for (size_t c = 0; c < cols.size(); ++c) sub.col(static_cast<int>(c)) = A.col(cols[c]);
    Eigen::VectorXd xs = sub.colPivHouseholderQr().solve(y);
    int worst = -1;
    double worst_v = 0;
    for (size_t c = 0; c < cols.size(); ++c)
      if (xs(static_cast<int>(c)) < worst_v) worst_v = xs(static_cast<int>(c)), worst = cols[c];
    x.setZero();
    for (size_t c = 0; c < cols.size(); ++c) x(cols[c]) = xs(static_cast<int>(c));
    if (worst < 0) return x;
    active[worst] = false;
  }
  return x.cwiseMax(0.0);
}

}  // namespace

std::map<std::string, double> physicalFloors(const Hardware& hw) {
  std::map<std::string, double> f = {{"tensor", 1.0}};
  if (hw.sol_dram_gbps > 0) f["dram"] = hw.dram_gbps / hw.sol_dram_gbps;
  if (hw.sol_l2_gbps > 0) f["l2"] = hw.l2_gbps / hw.sol_l2_gbps;
  return f;
}

Fit calibrate(const std::vector<Sample>& samples, const Coefficients& start,
              const std::map<std::string, double>& floors) {
  Fit fit;
  fit.k = start;
  std::vector<const Sample*> use;
  for (const Sample& s : samples)
    if (s.measured_ms > 0 && std::isfinite(s.measured_ms)) use.push_back(&s);
  fit.samples = static_cast<int>(use.size());
  if (use.empty()) return fit;
  const auto& names = termNames();
  const int m = static_cast<int>(names.size());
  // Relative squared error of a coefficient set over the samples.
  auto objective = [&](const Coefficients& k) {
    double sse = 0;
    for (const Sample* s : use) sse += std::pow(combine(s->raw, k) / s->measured_ms - 1, 2);
    return sse;
  };
  // The winner assignment can cycle (a coefficient change flips a sample's
  // winner and back): keep the best coefficients seen.
  Coefficients best = fit.k;
  double best_obj = objective(fit.k);
  std::vector<std::string> winners(use.size());
  for (int it = 0; it < 50; ++it) {
    fit.iterations = it + 1;
    std::vector<std::string> now(use.size());
    for (size_t i = 0; i < use.size(); ++i) combine(use[i]->raw, fit.k, &now[i]);
    if (it > 0 && now == winners) break;
    winners = now;
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<int>(use.size()), m);
    Eigen::VectorXd y = Eigen::VectorXd::Ones(static_cast<int>(use.size()));
    for (size_t i = 0; i < use.size(); ++i) {
      const Sample& s = *use[i];
      const double L = s.raw.count("launches") ? s.raw.at("launches") : 1.0;
      for (int j = 0; j < m; ++j) {
        const std::string& n = names[j];
        if (isMain(n) && n != winners[i]) continue;
        if ((n == "core" || n == "overlap") && coreInMain(winners[i])) continue;  // the ring's term holds it
        const double v = n == "overlap" ? -std::min(rawOf(s, n), rawOf(s, "core")) : rawOf(s, n);
        A(static_cast<int>(i), j) = L * v / s.measured_ms;
      }
    }
    std::vector<bool> active(m);
    for (int j = 0; j < m; ++j) active[j] = A.col(j).cwiseAbs().maxCoeff() > 0;
    // c = floor + x, x >= 0: the floors' share of each prediction moves to the target
    Eigen::VectorXd lo = Eigen::VectorXd::Zero(m);
    for (int j = 0; j < m; ++j)
      if (auto f = floors.find(names[j]); f != floors.end()) lo(j) = f->second;
    Eigen::VectorXd x = nnls(A, y - A * lo, active);
    for (int j = 0; j < m; ++j)
      if (active[j]) fit.k.c[names[j]] = lo(j) + x(j);
    // no more than all of the overlappable work can hide (combine() clamps there too)
    fit.k.c["overlap"] = std::min(fit.k.c["overlap"], fit.k.c["core"]);
    const double obj = objective(fit.k);
    if (obj < best_obj) best_obj = obj, best = fit.k;
  }
  fit.k = best;
  // A main term fitted to 0 would never win again; keep it able to (the
  // samples did not exercise it, so its nominal value stands).
  for (const std::string& n : mainTerms())
    if (fit.k.c[n] <= 0) fit.k.c[n] = start.get(n);
  for (const auto& [n, f] : floors)
    if (fit.k.c.count(n)) fit.k.c[n] = std::max(fit.k.c[n], f);
  std::vector<double> meas;
  for (const Sample* s : use) {
    fit.predicted_ms.push_back(combine(s->raw, fit.k));
    meas.push_back(s->measured_ms);
  }
  fit.median_abs_rel = medianAbsRelError(fit.predicted_ms, meas);
  fit.k.source = "fit of " + std::to_string(fit.samples) + " samples";
  return fit;
}

double medianAbsRelError(const std::vector<double>& pred, const std::vector<double>& meas) {
  std::vector<double> e;
  for (size_t i = 0; i < pred.size() && i < meas.size(); ++i)
    if (meas[i] > 0) e.push_back(std::fabs(pred[i] / meas[i] - 1));
  if (e.empty()) return NAN;
  std::sort(e.begin(), e.end());
  const size_t n = e.size();
  return n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
}

namespace {
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (size_t t = i; t <= j; ++t) r[idx[t]] = 0.5 * (i + j) + 1;
    i = j + 1;
  }
  return r;
}
}  // namespace

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = std::min(a.size(), b.size());
  if (n < 2) return NAN;
  auto ra = ranks({a.begin(), a.begin() + n}), rb = ranks({b.begin(), b.begin() + n});
  Eigen::Map<Eigen::VectorXd> x(ra.data(), static_cast<int>(n)), y(rb.data(), static_cast<int>(n));
  Eigen::VectorXd xc = x.array() - x.mean(), yc = y.array() - y.mean();
  const double d = std::sqrt(xc.squaredNorm() * yc.squaredNorm());
  return d > 0 ? xc.dot(yc) / d : NAN;
}

}  // namespace cake::costmodel
