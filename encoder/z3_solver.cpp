#include "encoder/z3_solver.h"

#include <algorithm>

namespace cake::encoder::z3w {

std::string_view answerName(Answer a) {
  switch (a) {
    case Answer::Correct: return "correct";
    case Answer::Incorrect: return "incorrect";
    case Answer::FailedToProve: return "failed-to-prove";
    case Answer::Error: return "error";
  }
  return "error";
}

void applyGlobalLimits(const Limits& lim) {
  if (lim.memory_mb > 0) z3::set_param("memory_max_size", static_cast<int>(lim.memory_mb));
}

z3::params solverParams(z3::context& c, const Limits& lim) {
  z3::params p(c);
  if (lim.rlimit > 0) p.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(lim.rlimit, 0xffffffffu)));
  return p;
}

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// Z3 reports a timeout as "timeout" or "canceled" depending on where it was
// interrupted; name it uniformly so callers can print "timeout after N s".
std::string normalizeReason(std::string r, const Limits& lim, double secs) {
  if (r.empty()) r = "unknown";
  if (r == "interrupted") r = "canceled";  // z3::optimize says interrupted
  if (r == "canceled" && lim.timeout_ms > 0 && secs * 1000 >= 0.9 * lim.timeout_ms) r = "timeout";
  if (r == "canceled" && lim.rlimit > 0) r = "resource limit";
  if (r.find("memory") != std::string::npos) r = "memory limit (" + std::to_string(lim.memory_mb) + " MB)";
  if (r == "timeout") {
    char buf[64];
    std::snprintf(buf, sizeof buf, "timeout after %.1f s", lim.timeout_ms / 1000.0);
    r = buf;
  }
  return r;
}

Watchdog::Watchdog(z3::context& c, unsigned timeout_ms) {
  if (timeout_ms == 0) return;
  thread_ = std::thread([this, &c, timeout_ms] {
    std::unique_lock<std::mutex> lock(m_);
    auto wake = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    if (cv_.wait_until(lock, wake, [this] { return done_; })) return;
    // Interrupt until the query returns: an interrupt that lands before
    // the search has started can be cleared when it starts.
    while (!done_) {
      c.interrupt();
      cv_.wait_for(lock, std::chrono::milliseconds(20), [this] { return done_; });
    }
  });
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

QueryResult check(z3::solver& s, const Limits& lim, const std::vector<z3::expr>& assumptions) {
  QueryResult out;
  auto t0 = std::chrono::steady_clock::now();
  try {
    applyGlobalLimits(lim);
    s.set(solverParams(s.ctx(), lim));
    z3::check_result r;
    Watchdog watchdog(s.ctx(), lim.timeout_ms);
    if (assumptions.empty()) {
      r = s.check();
    } else {
      z3::expr_vector as(s.ctx());
      for (const auto& a : assumptions) as.push_back(a);
      r = s.check(as);
    }
    out.seconds = since(t0);
    switch (r) {
      case z3::unsat: out.answer = Answer::Correct; break;
      case z3::sat: out.answer = Answer::Incorrect; break;
      case z3::unknown:
        out.answer = Answer::FailedToProve;
        out.reason = normalizeReason(s.reason_unknown(), lim, out.seconds);
        break;
    }
  } catch (const z3::exception& e) {
    out.seconds = since(t0);
    std::string msg = e.msg();
    if (msg.find("memory") != std::string::npos) {
      out.answer = Answer::FailedToProve;
      out.reason = normalizeReason(msg, lim, out.seconds);
    } else {
      out.answer = Answer::Error;
      out.reason = "z3: " + msg;
    }
  }
  return out;
}

QueryResult query(z3::fixedpoint& fp, z3::expr q, const Limits& lim) {
  QueryResult out;
  auto t0 = std::chrono::steady_clock::now();
  try {
    applyGlobalLimits(lim);
    z3::params p(fp.ctx());
    fp.set(p);
    Watchdog watchdog(fp.ctx(), lim.timeout_ms);
    z3::check_result r = fp.query(q);
    out.seconds = since(t0);
    switch (r) {
      case z3::unsat: out.answer = Answer::Correct; break;
      case z3::sat: out.answer = Answer::Incorrect; break;
      case z3::unknown:
        out.answer = Answer::FailedToProve;
        out.reason = normalizeReason(fp.reason_unknown(), lim, out.seconds);
        break;
    }
  } catch (const z3::exception& e) {
    out.seconds = since(t0);
    std::string msg = e.msg();
    if (msg.find("memory") != std::string::npos || msg.find("canceled") != std::string::npos ||
        msg.find("timeout") != std::string::npos) {
      out.answer = Answer::FailedToProve;
      out.reason = normalizeReason(msg, lim, out.seconds);
    } else {
      out.answer = Answer::Error;
      out.reason = "z3: " + msg;
    }
  }
  return out;
}

Deadline::Deadline(unsigned total_ms) : start_(std::chrono::steady_clock::now()), total_ms_(total_ms) {}

unsigned Deadline::remainingMs() const {
  double el = elapsedSeconds() * 1000.0;
  if (el >= total_ms_) return 0;
  return static_cast<unsigned>(total_ms_ - el);
}

double Deadline::elapsedSeconds() const { return since(start_); }

}  // namespace cake::encoder::z3w
