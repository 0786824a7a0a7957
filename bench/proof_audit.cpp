// The adversarial differential audit of the proofs for every trip count
// (gate/proof_audit.h, docs/z3.md "Soundness audit"): the known-good corpus
// files and their mutants, each checked as `cake check` checks it; a proved
// one explored again at larger values, a broken one handed to the proof.
//
//   cake_bench_proof_audit [ROOT=corpus] [--every=N] [--per-file=N] [--seed=S] [--shard=I/N]
//                          [--proof-s=S] [--deep-bindings=N] [--deep-states=N] [--deep-growth=N] [--deep-work-s=S]
//                          [--match=REGEX] [--no-originals] [--budget-s=S] [--verbose]
//
// --every=N samples every N-th mutant (by a hash of its path and the seed),
// --per-file=N at most N mutants of each original, --shard=I/N the I-th of
// N interleaved parts of what is left (run N at once: bench/proof_audit.sh),
// --match keeps the originals whose text has a match of REGEX (e.g.
// 'lm.grid_dim|cluster' for the persistent and cluster proofs), --proof-s
// is the proof's work budget (`cake check --proof-timeout`, default 3),
// --budget-s stops starting files after S seconds of wall clock (those not
// reached are counted as such). Prints one line per schedule with
// --verbose, every DISCREPANCY line always, then the totals. Exit status 1
// on a discrepancy.
#include <chrono>
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_util.h"
#include "gate/proof_audit.h"

using namespace cake;

namespace {

int run(int argc, char** argv) {
  std::string root = "corpus", match;
  int every = 1, per_file = 0, shard = 0, shards = 1;
  uint64_t seed = 1;
  double budget = 0;
  bool verbose = false, originals = true;
  checks::audit::AuditOptions opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* name) -> std::string {
      std::string p = std::string(name) + "=";
      return a.rfind(p, 0) == 0 ? a.substr(p.size()) : std::string();
    };
    if (a == "--verbose") verbose = true;
    else if (a == "--no-originals") originals = false;
    else if (auto v = val("--match"); !v.empty()) match = v;
    else if (auto v = val("--every"); !v.empty()) every = bench::parseNumber<int>(v, "--every");
    else if (auto v = val("--per-file"); !v.empty()) per_file = bench::parseNumber<int>(v, "--per-file");
    else if (auto v = val("--seed"); !v.empty()) seed = bench::parseNumber<uint64_t>(v, "--seed");
    else if (auto v = val("--budget-s"); !v.empty()) budget = bench::parseNumber<double>(v, "--budget-s");
    else if (auto v = val("--proof-s"); !v.empty())
      opts.proof_timeout_ms = static_cast<unsigned>(1000 * bench::parseNumber<double>(v, "--proof-s"));
    else if (auto v = val("--deep-bindings"); !v.empty()) opts.deep_bindings = bench::parseNumber<int>(v, "--deep-bindings");
    else if (auto v = val("--deep-states"); !v.empty()) opts.deep_states = bench::parseNumber<uint64_t>(v, "--deep-states");
    else if (auto v = val("--deep-work-s"); !v.empty()) opts.deep_work_s = bench::parseNumber<double>(v, "--deep-work-s");
    else if (auto v = val("--deep-growth"); !v.empty()) opts.deep_growth = bench::parseNumber<int>(v, "--deep-growth");
    else if (auto v = val("--shard"); !v.empty()) {
      auto slash = v.find('/');
      if (slash == std::string::npos) throw std::runtime_error("--shard=I/N");
      shard = bench::parseNumber<int>(v.substr(0, slash), "--shard");
      shards = bench::parseNumber<int>(v.substr(slash + 1), "--shard");
    } else {
      bench::rejectUnknownOption(a);
      root = a;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::vector<checks::mutate::Original> good = checks::audit::knownGoodOriginals(root);
  if (!match.empty()) {
    const std::regex re(match);
    std::erase_if(good, [&](const checks::mutate::Original& o) { return !std::regex_search(o.text, re); });
  }
  size_t enumerated = 0;
  std::vector<checks::mutate::Mutant> mutants = checks::audit::sampleMutants(good, every, per_file, seed, &enumerated);
  // the work list: the originals, then the sampled mutants
  struct Item {
    std::string path, text;
    bool mutant;
    std::string op;
  };
  std::vector<Item> items;
  if (originals)
    for (const auto& o : good) items.push_back({o.path, o.text, false, ""});
  for (const auto& m : mutants) items.push_back({"mutants:" + m.relativePath(), m.body, true, m.op});
  fmt::print("proof audit: {} known-good originals, {} mutants enumerated, {} sampled (every {}, per file {}, seed "
             "{}); shard {}/{}\n",
             good.size(), enumerated, mutants.size(), every, per_file, seed, shard, shards);
  std::fflush(stdout);
  std::map<std::string, int> verdicts, mutant_verdicts;
  int files = 0, not_reached = 0, discrepancies = 0, deep_schedules = 0, deep_bindings = 0, deep_cut = 0;
  int bad_proofs = 0;
  std::map<std::string, int> bad_proof_outcomes;
  for (size_t i = 0; i < items.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(shards)) != shard) continue;
    if (budget > 0 && elapsed() > budget) {
      ++not_reached;
      continue;
    }
    ++files;
    for (const auto& a : checks::audit::auditText(items[i].path, items[i].text, opts)) {
      ++verdicts[a.verdict];
      if (items[i].mutant) ++mutant_verdicts[a.verdict];
      if (a.verdict == "proved") {
        ++deep_schedules;
        deep_bindings += a.deep_checked;
        deep_cut += a.deep_too_large;
      }
      if (a.bad_proof_run) {
        ++bad_proofs;
        ++bad_proof_outcomes[a.bad_proof];
      }
      if (!a.discrepancy.empty()) ++discrepancies;
      if (verbose || !a.discrepancy.empty()) {
        fmt::print("{}{}\n", a.discrepancy.empty() ? "" : "DISCREPANCY ", checks::audit::auditLine(a));
        std::fflush(stdout);
      }
    }
  }
  std::string vs, ms, bs;
  for (auto& [k, n] : verdicts) vs += fmt::format(" {} {}", n, k);
  for (auto& [k, n] : mutant_verdicts) ms += fmt::format(" {} {}", n, k);
  for (auto& [k, n] : bad_proof_outcomes) bs += fmt::format(" {} {}", n, k);
  fmt::print("audited {} files ({} not reached) in {:.0f} s; schedules:{}; of them mutants:{}\n", files, not_reached,
             elapsed(), vs, ms);
  fmt::print("deep check: {} proved schedules, {} larger bindings explored in full, {} cut at {} states or {} s of work\n",
             deep_schedules, deep_bindings, deep_cut, opts.deep_states, opts.deep_work_s);
  fmt::print("proof on broken schedules: {} run:{}\n", bad_proofs, bs);
  fmt::print("discrepancies: {}\n", discrepancies);
  return discrepancies ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  return cake::bench::guardedMain(argv[0], [&] { return run(argc, argv); });
}
