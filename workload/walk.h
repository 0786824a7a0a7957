// walk: execute a schedule's control flow concretely for one CTA (every
// role body, every instance, loops and guards evaluated with the bound
// parameters) and report each op it runs, with the environment it runs in.
// Used by the workload contracts (which tensor boxes a launch touches) and
// by the cost model (what one CTA moves and computes). No timing, no
// interleaving: program order per role instance.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/schedule.h"

namespace cake::workload {

struct OpVisit {
  const ir::Op& op;
  int role;      // index into schedule.roles
  int instance;  // instance of that role
  const ir::EvalEnv& env;
  int depth;     // loop nesting depth of the op
  bool after_loop;  // at depth 0 after a top-level loop of its role body (an epilogue)
};
using OpVisitor = std::function<void(const OpVisit&)>;

// Walks one CTA (env has params, block_idx and grid_dim set). `budget`
// counts visited ops down; false with `why` when an expression does not
// evaluate, a loop has a zero step, or the budget ran out.
bool walkCta(const ir::Schedule& s, const ir::EvalEnv& env, const OpVisitor& visit, int64_t& budget,
             std::string* why);

// Concrete shape of an operand (a view slot with its slices, a fragment, a
// TMEM region); empty if it has none or does not evaluate.
std::vector<int64_t> operandShape(const ir::Schedule& s, const ir::BufferRef& r, const ir::EvalEnv& env);

// The global-memory box an op reads or writes: the tensor parameter, the
// start coordinate and extent per tensor dimension (the operand's shape
// right-aligned, leading dimensions 1), and the element type it moves.
struct TensorBox {
  int param = -1;
  bool write = false;
  std::vector<int64_t> lo, ext;
  ir::DType dtype = ir::DType::BF16;
};
std::optional<TensorBox> tensorBox(const ir::Schedule& s, const ir::Op& op, const ir::EvalEnv& env);

}  // namespace cake::workload
