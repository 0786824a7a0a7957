// The mutation engine (`cake mutate`): injects into known-good schedules
// the synchronization and layout bugs that kernel engineers make (a dropped
// wait, a release before the async reader retires, an iteration off by one,
// a constant phase, init_count off by one, ...), and labels every mutant
// with an oracle that is independent of the Z3 engine under test:
//   * sync/data/proxy mutants: the explicit-state simulator
//     (encoder/simulator.h), exhaustive over a stated set of parameter values;
//   * layout mutants (aliased views, misaligned swizzled views): a direct
//     computation of byte ranges and alignments from the declarations.
// A mutant with no reachable violation is labelled benign (`# expect: pass`).
//
// Mutations are edits of the source text at locations taken from the
// syntax tree (ir/ast.h), so a mutant keeps the original's layout and
// comments and differs from it only at the mutation site. Each mutant is a
// `.cake` file with a header naming the operator, the original, the line and
// the label, and an expectation the corpus gate reads (docs/corpus-gate.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake::checks::mutate {

struct Original {
  std::string path;   // e.g. "corpus/gemm/sm90_ws_4stage.cake"
  std::string text;
};

struct OperatorInfo {
  std::string_view id;        // e.g. "drop-wait"
  std::string_view summary;   // one line
};
// Every operator, in the order `cake mutate --list` prints them.
std::span<const OperatorInfo> operators();

struct Mutant {
  std::string op;             // operator id
  std::string original;       // path of the original
  int line = 0;               // 1-based line of the mutation site in the original
  int site = 0;               // 0, 1, ... for several sites of one operator on one line
  std::string line_text;      // the original line, trimmed
  std::string change;         // one line: what was changed
  std::string body;           // mutated text, the original's expectations removed
  std::string original_text;  // the original file (for the oracle's comparisons)

  // "<original without a leading corpus/ and .cake>/<op>-L<line>[-<site>].cake",
  // the path below the mutants folder (corpus/mutants/).
  std::string relativePath() const;
  // Path used for mutants generated in memory (`cake corpus --mutants N`).
  std::string virtualPath() const { return "mutants:" + relativePath(); }
};

// Is the original eligible (it expects `pass`)? Mutants of a known-bad file
// would have no clear label.
bool isEligible(const Original& o);

// Every mutant of one file, deterministic order (by line, operator, site).
// Mutants whose text equals the original's are left out. Returns an empty
// list (and sets `error`) when the file does not parse.
std::vector<Mutant> enumerate(const Original& o, std::string* error = nullptr);

// n mutants over the eligible originals, chosen deterministically from the
// seed: operators take turns so every operator is represented, sites within
// an operator in a seeded order. n <= 0: all of them. Duplicates (the same
// mutated text) are removed. The result is sorted by relativePath().
std::vector<Mutant> generate(const std::vector<Original>& originals, int n, uint64_t seed);

// ------------------------------------------------------------------ labels

struct Label {
  enum class Kind { Bad, Benign, Undetermined };
  Kind kind = Kind::Undetermined;
  std::vector<std::string> rules;   // Bad: the rules the oracle saw violated, most direct first
  std::string method;               // "explicit-state simulator" / "layout computation"
  std::string bounds;               // what was explored, e.g. "K in {64, 128, 256, 320, 576}; 1234 states"
  std::string detail;               // the first violation, or why it is undetermined
  // The `# label:` line (without "# label: ").
  std::string text() const;
};

struct LabelOptions {
  int max_values_per_param = 6;       // scalar parameter values tried (see docs/corpus-gate.md)
  int max_bindings = 64;              // parameter combinations explored per schedule
  long long max_states = 2'000'000;   // per parameter assignment
  unsigned timeout_ms = 20000;        // per parameter assignment
};

// Labels a mutant with the independent oracle for its operator (see above).
Label labelMutant(const Mutant& m, const LabelOptions& opts);

// The mutant file: a header (`# mutant:`, `# original:`, `# line:`,
// `# change:`, `# label:`), the expectation (`# expect: pass`, or
// `# expect-any: <rules>` for a bad mutant), then the body. Without a label,
// the header has no label and no expectation.
std::string renderMutant(const Mutant& m, const Label* label);

// ----------------------------------------------------------------- command

struct MutateOptions {
  std::vector<std::string> inputs;    // .cake files or directories (every eligible file under them)
  int n = 20;                         // mutants in all; <= 0: every site
  uint64_t seed = 1;
  std::optional<std::string> out_dir; // write files here (relativePath() below it); else list them
  bool label = true;                  // run the oracle (unlabelled mutants are not written)
  bool keep_undetermined = false;     // write mutants the oracle could not label (no expectation)
  bool list_operators = false;
  int jobs = 1;
  // The inputs are mutant files (`# mutant:` headers): run the oracle again
  // on each (after a change of the semantics) and rewrite the label and the
  // expectation of those whose label changed; the body is kept.
  bool relabel = false;
};

// A mutant file read back (renderMutant's output), or nullopt with `error`.
std::optional<Mutant> parseMutantFile(const std::string& path, const std::string& text, std::string* error);
// `cake mutate FILE... [-n N] [--seed S] [-o DIR]`. 0 on success, 2 on a usage or I/O error.
int runMutateCommand(const MutateOptions& opts);

}  // namespace cake::checks::mutate
