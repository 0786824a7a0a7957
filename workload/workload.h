// workload: the problem a schedule is run (`cake run --workload`) or costed
// (`cake cost`) against. A contract fixes the tensors (names, shapes, element
// types, their order in the schedule's parameter list), the names of the
// i32 parameters that receive the sizes, and per tensor dimension whether a
// box that reaches past the edge is harmless (zero fill of a reduced
// dimension, rows nobody reads) or changes the answer (a zero centroid, a
// zero key, a zero in a max).
//
// bind() decides statically, before any GPU work, whether the schedule
// computes the requested shape: it derives the grid, walks every CTA's ops
// with the parameters bound (walk.h) and checks that the boxes the schedule
// reads and writes cover each tensor (result "unsupported_shape" with the
// tensor, dimension and range otherwise). A schedule whose parameters do
// not fit the contract at all is "no_oracle".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/schedule.h"

namespace cake::workload {

// SplitKPartial / SplitKReduce: the two kernels of a split-K GEMM (`cake run
// --split-k S`): the partial kernel computes A[M, K-slice z] . B[N, K-slice z]^T
// into the f32 workspace W[S, M, N] (one K slice per lm.block_idx(2), the
// slice count is W's outer size), the reduce kernel sums W over S into C. They
// are internal: `--workload` does not name them (a GEMM oracle checks C).
enum class Kind { Gemm, KmeansAssign, AttentionFwd, RowSum, RowMax, SplitKPartial, SplitKReduce };
std::optional<Kind> parseKind(std::string_view name);  // gemm | kmeans-assign | attention-fwd | row-sum | row-max
std::string_view kindName(Kind k);
std::string kindList();                                  // "gemm, kmeans-assign, ..."

// Named problem sizes, e.g. {M, N, K} (gemm), {B, N, K, D} (kmeans-assign),
// {B, H, S, D, causal} (attention-fwd), {M, N} (row-sum / row-max).
struct Shape {
  Kind kind = Kind::Gemm;
  std::map<std::string, int64_t> dims;
  int64_t at(const std::string& k) const {
    auto it = dims.find(k);
    return it == dims.end() ? 0 : it->second;
  }
  std::string text() const;  // "M=4096,N=4096,K=4096"
};
// "M=4096,N=4096,K=4096" (',' ';' or ' ' separated; gemm also "4096x4096x4096").
// Missing optional sizes get their defaults (B=1, causal=0).
std::optional<Shape> parseShape(Kind kind, std::string_view text, std::string* error = nullptr);

// Abstract tensors of a contract.
struct TensorSpec {
  std::string name;          // "A", "X", "C", "CN", "LAB", "Q", "K", "V", "VT", "O", "Y"
  ir::DType dtype;
  bool output = false;
};

// How the schedule's parameters take the problem.
struct Binding {
  Shape shape;
  int num_sms = 132;
  // per schedule parameter (index into schedule.params)
  std::vector<std::string> tensor_name;          // contract tensor ("" for scalars)
  std::vector<std::vector<int64_t>> tensor_dims; // dims as the schedule sees them, outermost first
  std::vector<ir::DType> tensor_dtype;
  std::map<int, int64_t> i32;                    // param index -> value
  int64_t grid[3] = {1, 1, 1};
  bool persistent = false;
  int64_t launches = 1;                          // a 2-D schedule of a batched problem: one launch per batch
  double flops = 0;                              // useful work of the whole problem (for TFLOP/s)
  double min_bytes = 0;                          // compulsory DRAM traffic of the whole problem
  ir::EvalEnv env() const;                       // params bound, grid_dim set
};

struct BindResult {
  std::string result = "ok";  // ok | unsupported_shape | no_oracle
  std::string detail;
  std::optional<Binding> binding;
};

// `sets` give values to i32 parameters the contract does not name (tile
// sizes given as parameters, `--set BM=128`).
// `coverage` false skips the walk of every CTA (for shapes already known to
// bind, e.g. measured records): no unsupported_shape from coverage then.
BindResult bind(const ir::Schedule& s, const Shape& shape, const std::map<std::string, int64_t>& sets = {},
                int num_sms = 132, bool coverage = true);

}  // namespace cake::workload
