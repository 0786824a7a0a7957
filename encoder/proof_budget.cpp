#include "encoder/proof_budget.h"

#include <time.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include <fmt/format.h>

#include "encoder/system.h"
#include "encoder/z3_solver.h"

namespace cake::encoder {

namespace {

double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

uint64_t ProofBudget::unitsFor(double seconds) {
  if (!(seconds > 0)) return 0;
  return static_cast<uint64_t>(std::ceil(seconds * static_cast<double>(kUnitsPerSecond)));
}

uint64_t ProofBudget::rlimitFor(double seconds) {
  if (!(seconds > 0)) return 1;
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(seconds * static_cast<double>(kRlimitPerSecond))));
}

ProofBudget::ProofBudget(uint64_t work, unsigned wall_ms)
    : work_(work), wall_ms_(wall_ms), start_(std::chrono::steady_clock::now()), cpu_start_(threadCpuSeconds()) {
  const z3w::QueryWork q = z3w::threadQueryWork();
  queries0_ = q.queries;
  rlimit0_ = q.rlimit;
}

ProofBudget::Tally ProofBudget::tally() const {
  Tally t = tally_;
  const z3w::QueryWork q = z3w::threadQueryWork();
  t.queries = q.queries - queries0_;
  t.rlimit = q.rlimit - rlimit0_;
  return t;
}

uint64_t ProofBudget::used() const {
  const Tally t = tally();
  return used_ + t.queries * kPerQuery + t.rlimit * kPerRlimit;
}

void ProofBudget::add(const Tally& t) {
  tally_.expanded += t.expanded;
  tally_.offered += t.offered;
  tally_.words += t.words;
  tally_.expanded_instrs += t.expanded_instrs;
  tally_.built += t.built;
  tally_.window_ops += t.window_ops;
  tally_.laid_out += t.laid_out;
  used_ += t.expanded * kPerExpanded + t.offered * kPerOffered + t.words * kPerWord +
           t.expanded_instrs * kPerExpandedInstr + t.built * kPerBuilt + t.window_ops * kPerWindowOp +
           t.laid_out * kPerLaidOut;
}

uint64_t ProofBudget::left() const {
  if (work_ == 0) return UINT64_MAX;
  const uint64_t u = used();
  return u >= work_ ? 0 : work_ - u;
}

double ProofBudget::wallSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double ProofBudget::cpuSeconds() const { return threadCpuSeconds() - cpu_start_; }

bool ProofBudget::wallOut() const { return wall_ms_ > 0 && wallSeconds() * 1000 >= wall_ms_; }

unsigned ProofBudget::wallLeftMs() const {
  if (wall_ms_ == 0) return UINT_MAX;
  const double left = wall_ms_ - wallSeconds() * 1000;
  return left < 1 ? 1u : static_cast<unsigned>(left);
}

std::string ProofBudget::exhausted() const {
  if (workOut())
    return fmt::format("work budget of {} units used up", work_);
  if (wallOut())
    return fmt::format("wall-clock safety limit of {:.1f} s reached after {} work units (of {}); the machine is "
                       "loaded or the obligation's --timeout is short",
                       wall_ms_ / 1000.0, used(), work_ == 0 ? std::string("no cap") : std::to_string(work_));
  return "";
}

void chargeBuild(ProofBudget& budget, const System& sys) {
  uint64_t n = 0;
  for (const Process& p : sys.procs) n += p.program.size();
  ProofBudget::Tally tally;
  tally.built = n;
  budget.add(tally);
}

}  // namespace cake::encoder
