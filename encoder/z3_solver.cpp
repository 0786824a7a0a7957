#include "encoder/z3_solver.h"

#include "encoder/integer_solver.h"  // (rlimitCount)

#include <algorithm>
#include <condition_variable>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>

#include "cli/heap.h"  // header-only, no CLI code: the heap settings of every program that asks Z3

namespace cake::encoder::z3w {

// Every z3::context allocates and frees some 20 MB, and the first one in a
// process faults in Z3's two 8.5 MB tables. With glibc's default malloc
// policy the next context faults the same pages in again. The `cake` command
// keeps freed memory in the heap from main() on (cli/heap.h); every other
// program that makes contexts (the test executables, which ctest starts once
// per test, and the fuzz targets) gets the same settings here, before main.
// SmemLayout.CheckerOffsetsAreTheEmittedOffsetsOnTheCorpus (517 schedules, a
// BvProver each): 2.7 million page faults and 39-46 CPU s without them, 9,200
// and 4.7 CPU s with them, peak memory 46 -> 54 MB; a short test that makes
// one context 71 -> 25 ms of CPU per process (docs/ci.md, session 28). Every
// Z3 query goes through check() below, so this file is linked into every
// program that asks one. Under ASan mallopt does nothing.
namespace {
[[maybe_unused]] const bool kZ3SolverHeapKept = [] {
  cli::keepFreedMemoryInTheHeap();
  return true;
}();
}  // namespace

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
  if (lim.rlimit > 0) {
    const uint64_t r = std::max<uint64_t>(1, lim.rlimit / std::max<uint64_t>(1, lim.rlimit_weight));
    p.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(r, 0xffffffffu)));
  }
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

namespace {

// The deadline queue behind every Watchdog: budgeted queries in flight, each
// with the next time its context is to be interrupted. Interrupts happen
// under the lock, so an unregistered context is never touched again.
class WatchdogService {
 public:
  static WatchdogService& get() {
    // Never destroyed: the thread may still wait on it while statics are
    // torn down at exit.
    static WatchdogService* s = new WatchdogService();
    return *s;
  }

  uint64_t add(z3::context& c, unsigned timeout_ms) {
    std::lock_guard<std::mutex> lock(m_);
    uint64_t id = ++last_id_;
    entries_.emplace(id, Entry{&c, Clock::now() + std::chrono::milliseconds(timeout_ms)});
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    cv_.notify_one();
    return id;
  }

  void remove(uint64_t id) {
    std::lock_guard<std::mutex> lock(m_);
    entries_.erase(id);
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    z3::context* ctx;
    Clock::time_point next;  // the budget, then every 20 ms after it
  };

  WatchdogService() = default;

  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      if (entries_.empty()) {
        cv_.wait(lock);
        continue;
      }
      auto next = Clock::time_point::max();
      for (const auto& [id, e] : entries_) next = std::min(next, e.next);
      auto now = Clock::now();
      if (now < next) {
        cv_.wait_until(lock, next);
        continue;
      }
      // Interrupt until the query returns: an interrupt that lands before
      // the search has started can be cleared when it starts.
      for (auto& [id, e] : entries_)
        if (e.next <= now) {
          e.ctx->interrupt();
          e.next = now + std::chrono::milliseconds(20);
        }
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::map<uint64_t, Entry> entries_;
  uint64_t last_id_ = 0;
  std::thread thread_;
};

}  // namespace

Watchdog::Watchdog(z3::context& c, unsigned timeout_ms) {
  if (timeout_ms > 0) id_ = WatchdogService::get().add(c, timeout_ms);
}

Watchdog::~Watchdog() {
  if (id_ != 0) WatchdogService::get().remove(id_);
}

// (encoder/integer_solver.h)
uint64_t rlimitCount(z3::solver& s) {
  z3::stats st = s.statistics();
  for (unsigned i = 0; i < st.size(); ++i)
    if (st.key(i) == "rlimit count") return st.is_uint(i) ? st.uint_value(i) : static_cast<uint64_t>(st.double_value(i));
  return 0;
}

namespace {

thread_local QueryWork query_work;

// Adds a query's resource units to this thread's count when it ends.
struct CountQuery {
  CountQuery(z3::solver& s, bool again, uint64_t weight) : s_(s), again_(again), weight_(weight) {
    try {
      before_ = rlimitCount(s);
    } catch (const z3::exception&) {
    }
  }
  ~CountQuery() {
    if (!again_) ++query_work.queries;
    try {
      const uint64_t after = rlimitCount(s_);
      if (after > before_) query_work.rlimit += (after - before_) * weight_;
    } catch (const z3::exception&) {
    }
  }
  z3::solver& s_;
  bool again_;
  uint64_t weight_;  // Limits::rlimit_weight (of a query with a resource limit)
  uint64_t before_ = 0;
};

// A query's answer (unsat: the goal holds), with Z3's reason when it is
// unknown (`reason`, asked only then), and its time since t0.
template <class Reason>
void answerOf(QueryResult& out, z3::check_result r, Reason&& reason, const Limits& lim,
              std::chrono::steady_clock::time_point t0) {
  out.seconds = since(t0);
  switch (r) {
    case z3::unsat: out.answer = Answer::Correct; break;
    case z3::sat: out.answer = Answer::Incorrect; break;
    case z3::unknown:
      out.answer = Answer::FailedToProve;
      out.reason = normalizeReason(reason(), lim, out.seconds);
      break;
  }
}
// A query Z3 stopped with an exception: a failure to prove when its message
// names one of `limits` (a cap met), else an error.
void failureOf(QueryResult& out, const z3::exception& e, const Limits& lim, std::chrono::steady_clock::time_point t0,
               std::initializer_list<std::string_view> limits) {
  out.seconds = since(t0);
  const std::string msg = e.msg();
  if (std::any_of(limits.begin(), limits.end(), [&](std::string_view l) { return msg.find(l) != std::string::npos; })) {
    out.answer = Answer::FailedToProve;
    out.reason = normalizeReason(msg, lim, out.seconds);
  } else {
    out.answer = Answer::Error;
    out.reason = "z3: " + msg;
  }
}

}  // namespace

QueryWork threadQueryWork() { return query_work; }

void addThreadQueryWork(const QueryWork& w) {
  query_work.queries += w.queries;
  query_work.rlimit += w.rlimit;
}

void takeThreadQueryWork(const QueryWork& w) {
  query_work.queries -= std::min(query_work.queries, w.queries);
  query_work.rlimit -= std::min(query_work.rlimit, w.rlimit);
}

QueryResult checkWith(z3::solver& meter, const Limits& lim, bool again,
                      const std::function<z3::check_result(std::string& reason)>& solve) {
  QueryResult out;
  auto t0 = std::chrono::steady_clock::now();
  try {
    CountQuery counted(meter, again, lim.rlimit > 0 ? std::max<uint64_t>(1, lim.rlimit_weight) : 1);
    applyGlobalLimits(lim);
    Watchdog watchdog(meter.ctx(), lim.timeout_ms);
    std::string reason;
    const z3::check_result r = solve(reason);
    answerOf(out, r, [&] { return reason; }, lim, t0);
  } catch (const z3::exception& e) {
    failureOf(out, e, lim, t0, {"memory"});
  }
  return out;
}

QueryResult check(z3::solver& s, const Limits& lim, const std::vector<z3::expr>& assumptions, bool again) {
  return checkWith(s, lim, again, [&](std::string& reason) {
    s.set(solverParams(s.ctx(), lim));
    z3::check_result r;
    if (assumptions.empty()) {
      r = s.check();
    } else {
      z3::expr_vector as(s.ctx());
      for (const auto& a : assumptions) as.push_back(a);
      r = s.check(as);
    }
    if (r == z3::unknown) reason = s.reason_unknown();
    return r;
  });
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
    answerOf(out, r, [&] { return fp.reason_unknown(); }, lim, t0);
  } catch (const z3::exception& e) {
    failureOf(out, e, lim, t0, {"memory", "canceled", "timeout"});
  }
  return out;
}

QueryResult check(z3::optimize& o, const Limits& lim) {
  QueryResult out;
  auto t0 = std::chrono::steady_clock::now();
  try {
    applyGlobalLimits(lim);
    o.set(solverParams(o.ctx(), lim));
    Watchdog watchdog(o.ctx(), lim.timeout_ms);
    const z3::check_result r = o.check();
    answerOf(out, r, [&] { return std::string(Z3_optimize_get_reason_unknown(o.ctx(), o)); }, lim, t0);
  } catch (const z3::exception& e) {
    failureOf(out, e, lim, t0, {"memory"});
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
