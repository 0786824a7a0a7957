#include "workload/workload.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "workload/walk.h"

namespace cake::workload {

namespace {

// One tensor of a contract: its sizes by name, outermost first; the first
// `batch` of them are batch dimensions (a schedule of lower rank is launched
// once per batch element). `exact[d]`: a box reaching past the edge of
// dimension d changes the answer (zero-filled centroids or keys win).
struct TensorContract {
  std::string name;
  ir::DType dtype;
  bool output;
  std::vector<std::string> dims;
  std::vector<bool> exact;
};

struct Contract {
  Kind kind;
  std::string_view name;
  std::vector<std::string> sizes;                 // required sizes
  std::map<std::string, int64_t> defaults;        // optional sizes
  int batch = 0;                                  // leading batch dimensions of every tensor
  std::vector<TensorContract> tensors;            // in the schedule's parameter order
  std::map<std::string, std::string> i32_names;   // schedule parameter name -> size
  bool internal = false;                          // not a --workload (a half of a two-kernel problem)
};

const std::vector<Contract>& contracts() {
  using D = ir::DType;
  static const std::vector<Contract> all = {
      {Kind::Gemm, "gemm", {"M", "N", "K"}, {}, 0,
       {{"A", D::BF16, false, {"M", "K"}, {false, false}},
        {"B", D::BF16, false, {"N", "K"}, {false, false}},
        {"C", D::BF16, true, {"M", "N"}, {false, false}}},
       {{"M", "M"}, {"N", "N"}, {"K", "K"}}},
      {Kind::KmeansAssign, "kmeans-assign", {"N", "K", "D"}, {{"B", 1}}, 1,
       {{"X", D::BF16, false, {"B", "N", "D"}, {false, false, false}},
        {"C", D::BF16, false, {"B", "K", "D"}, {false, true, false}},
        {"CN", D::F32, false, {"B", "1", "K"}, {false, false, true}},
        {"LAB", D::I32, true, {"B", "N", "1"}, {false, false, false}}},
       {{"N", "N"}, {"K", "K"}, {"D", "D"}, {"B", "B"}}},
      {Kind::AttentionFwd, "attention-fwd", {"S", "D"}, {{"B", 1}, {"H", 1}, {"causal", 0}}, 2,
       {{"Q", D::BF16, false, {"B", "H", "S", "D"}, {false, false, false, false}},
        {"K", D::BF16, false, {"B", "H", "S", "D"}, {false, false, true, false}},
        {"V", D::BF16, false, {"B", "H", "S", "D"}, {false, false, true, false}},
        {"O", D::BF16, true, {"B", "H", "S", "D"}, {false, false, false, false}}},
       {{"seqlen_q", "S"}, {"seqlen_k", "S"}, {"seqlen", "S"}, {"S", "S"}, {"D", "D"}, {"head_dim", "D"},
        {"H", "H"}, {"B", "B"}, {"heads", "BH"}, {"causal", "causal"}}},
      {Kind::RowSum, "row-sum", {"M", "N"}, {}, 0,
       {{"X", D::BF16, false, {"M", "N"}, {false, false}}, {"Y", D::F32, true, {"M", "1"}, {false, false}}},
       {{"M", "M"}, {"rows", "M"}, {"N", "N"}, {"D", "N"}, {"cols", "N"}}},
      {Kind::RowMax, "row-max", {"M", "N"}, {}, 0,
       {{"X", D::BF16, false, {"M", "N"}, {false, true}}, {"Y", D::F32, true, {"M", "1"}, {false, false}}},
       {{"M", "M"}, {"rows", "M"}, {"N", "N"}, {"D", "N"}, {"cols", "N"}}},
      // split-K GEMM: W[S, M, N] f32 is the workspace between the two kernels
      {Kind::SplitKPartial, "gemm-splitk-partial", {"M", "N", "K", "S"}, {}, 0,
       {{"A", D::BF16, false, {"M", "K"}, {false, false}},
        {"B", D::BF16, false, {"N", "K"}, {false, false}},
        {"W", D::F32, true, {"S", "M", "N"}, {false, false, false}}},
       {{"M", "M"}, {"N", "N"}, {"K", "K"}, {"S", "S"}, {"splits", "S"}},
       true},
      {Kind::SplitKReduce, "gemm-splitk-reduce", {"M", "N", "S"}, {}, 0,
       {{"W", D::F32, false, {"S", "M", "N"}, {false, false, false}},
        {"C", D::BF16, true, {"M", "N"}, {false, false}}},
       {{"M", "M"}, {"N", "N"}, {"S", "S"}, {"splits", "S"}},
       true},
  };
  return all;
}

const Contract& contractOf(Kind k) {
  for (const Contract& c : contracts())
    if (c.kind == k) return c;
  return contracts().front();
}

// V stored transposed ([.., D, S]) when the schedule names it so (FA3's Vt).
bool transposedName(const std::string& name) {
  std::string l;
  for (char c : name) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "vt" || l == "v_t" || l == "vtrans" || l == "v_trans";
}

BindResult refuse(const std::string& result, const std::string& detail) {
  BindResult r;
  r.result = result;
  r.detail = detail;
  return r;
}

int64_t sizeOf(const Shape& sh, const std::string& name) { return name == "1" ? 1 : sh.at(name); }

// The most coordinates any op places a tile of LM.gmem parameter `p` with.
size_t gmemCoords(const ir::Schedule& s, int p) {
  size_t n = 0;
  for (const auto& body : s.bodies)
    ir::forEachOp(body.body, [&](const ir::Stmt& st) {
      const ir::Op& op = st.op;
      for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
        if (r->kind == ir::BufferRef::Kind::Param && r->index == p) n = std::max(n, op.coords.size());
    });
  return n;
}

}  // namespace

std::optional<Kind> parseKind(std::string_view name) {
  for (const Contract& c : contracts())
    if (c.name == name && !c.internal) return c.kind;
  if (name == "row-reduce") return Kind::RowSum;
  return std::nullopt;
}

std::string_view kindName(Kind k) { return contractOf(k).name; }

std::string kindList() {
  std::string out;
  for (const Contract& c : contracts())
    if (!c.internal) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

std::string Shape::text() const {
  std::string out;
  for (const std::string& k : contractOf(kind).sizes) out += fmt::format("{}{}={}", out.empty() ? "" : ",", k, at(k));
  for (const auto& [k, v] : contractOf(kind).defaults) out += fmt::format(",{}={}", k, at(k));
  return out;
}

std::optional<Shape> parseShape(Kind kind, std::string_view text, std::string* error) {
  const Contract& c = contractOf(kind);
  Shape s;
  s.kind = kind;
  s.dims = c.defaults;
  auto fail = [&](const std::string& m) -> std::optional<Shape> {
    if (error) *error = m;
    return std::nullopt;
  };
  std::string t(text);
  if (t.find('=') == std::string::npos) {
    if (kind != Kind::Gemm) return fail(fmt::format("expected NAME=VALUE items for {}", c.name));
    for (char& ch : t)
      if (ch == 'x' || ch == 'X') ch = ' ';
    std::istringstream in(t);
    int64_t m = 0, n = 0, k = 0;
    if (!(in >> m >> n >> k)) return fail("expected M=..,N=..,K=.. or MxNxK");
    s.dims = {{"M", m}, {"N", n}, {"K", k}};
  } else {
    for (char& ch : t)
      if (ch == ',' || ch == ';') ch = ' ';
    std::istringstream in(t);
    std::string item;
    while (in >> item) {
      auto eq = item.find('=');
      if (eq == std::string::npos) return fail("bad shape item '" + item + "'");
      std::string k = item.substr(0, eq);
      if (kind == Kind::Gemm && k.size() == 1) k[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(k[0])));
      char* end = nullptr;
      long long v = strtoll(item.c_str() + eq + 1, &end, 0);
      if (!end || *end || eq + 1 == item.size()) return fail("bad value in '" + item + "'");
      const bool known = std::count(c.sizes.begin(), c.sizes.end(), k) || c.defaults.count(k);
      if (!known) {
        std::string names;
        for (const auto& n : c.sizes) names += (names.empty() ? "" : ", ") + n;
        for (const auto& [n, d] : c.defaults) names += ", " + n;
        return fail(fmt::format("unknown size '{}' for {} (expected {})", k, c.name, names));
      }
      s.dims[k] = v;
    }
  }
  for (const std::string& k : c.sizes)
    if (s.at(k) <= 0) return fail(fmt::format("{} must be given and positive", k));
  for (const auto& [k, v] : s.dims) {
    if (v < 0 || v > (int64_t{1} << 30)) return fail(fmt::format("{}={} out of range", k, v));
    if (k == "causal" && v > 1) return fail("causal is 0 or 1");
    if (k != "causal" && v == 0) return fail(fmt::format("{} must be positive", k));
  }
  return s;
}

ir::EvalEnv Binding::env() const {
  ir::EvalEnv e;
  e.params = i32;
  for (int d = 0; d < 3; ++d) e.grid_dim[d] = persistent && d == 0 ? num_sms : grid[d];
  return e;
}

namespace {

// The schedule's parameters against the contract's tensors and sizes.
BindResult bindParams(const ir::Schedule& s, const Contract& c, const Shape& shape,
                      const std::map<std::string, int64_t>& sets, Binding& b) {
  const size_t np = s.params.size();
  b.tensor_name.assign(np, "");
  b.tensor_dims.assign(np, {});
  b.tensor_dtype.assign(np, ir::DType::BF16);
  size_t next = 0;
  int64_t launches = 0;  // 0: not decided yet
  for (size_t p = 0; p < np; ++p) {
    const ir::Param& par = s.params[p];
    if (par.type == ir::ParamType::F32)
      return refuse("no_oracle", fmt::format("f32 parameter '{}' is not part of the {} contract", par.name, c.name));
    if (par.type == ir::ParamType::I32) {
      if (auto it = sets.find(par.name); it != sets.end()) {
        b.i32[static_cast<int>(p)] = it->second;
      } else if (auto nm = c.i32_names.find(par.name); nm != c.i32_names.end()) {
        b.i32[static_cast<int>(p)] =
            nm->second == "BH" ? std::max<int64_t>(shape.at("B"), 1) * std::max<int64_t>(shape.at("H"), 1)
                               : shape.at(nm->second);
      } else {
        return refuse("no_oracle", fmt::format("i32 parameter '{}' is not a size of the {} contract; give its value "
                                               "with --set {}=VALUE",
                                               par.name, c.name, par.name));
      }
      continue;
    }
    if (next >= c.tensors.size())
      return refuse("no_oracle", fmt::format("tensor parameter '{}' is one more than the {} contract's {} tensors",
                                             par.name, c.name, c.tensors.size()));
    TensorContract tc = c.tensors[next++];
    if (tc.name == "V" && transposedName(par.name)) {
      tc.name = "VT";
      std::swap(tc.dims[2], tc.dims[3]);
      tc.exact = {false, false, false, true};
    }
    std::vector<int64_t> full;
    for (const auto& d : tc.dims) full.push_back(sizeOf(shape, d));
    const int core = static_cast<int>(full.size()) - c.batch;
    // LM.gmem: the rank is the number of coordinates its ops place tiles
    // with (at least the core rank); a TMA tensor's is in its type. Either
    // way a rank between the core and the contract's folds the leading
    // dimensions into one (FA2's Vt at (head, d, s): [B*H, D, S]).
    const int rank = par.type == ir::ParamType::Gmem
                         ? std::max(static_cast<int>(gmemCoords(s, static_cast<int>(p))), core)
                         : ir::tmaRank(par.type);
    std::vector<int64_t> dims = full;
    int64_t l = 1;
    if (rank > 0 && rank < static_cast<int>(full.size())) {
      if (rank >= core + 1 || rank < core) {
        // fold the leading dimensions into one
        if (rank < core)
          return refuse("no_oracle", fmt::format("tensor '{}' has rank {}; the {} contract's {} needs at least {}",
                                                 par.name, rank, c.name, tc.name, core));
        const size_t fold = full.size() - rank + 1;
        dims.assign(full.begin() + fold, full.end());
        int64_t lead = 1;
        for (size_t i = 0; i < fold; ++i) lead *= full[i];
        dims.insert(dims.begin(), lead);
      } else {
        dims.assign(full.begin() + c.batch, full.end());
        for (int i = 0; i < c.batch; ++i) l *= full[i];
      }
    }
    if (launches != 0 && launches != l && c.batch > 0)
      return refuse("no_oracle", fmt::format("tensor '{}' is batched differently from the others", par.name));
    launches = l;
    b.tensor_name[p] = tc.name;
    b.tensor_dims[p] = dims;
    b.tensor_dtype[p] = tc.dtype;
  }
  if (next != c.tensors.size())
    return refuse("no_oracle", fmt::format("the schedule has {} tensor parameters; the {} contract has {} ({})", next,
                                           c.name, c.tensors.size(), [&] {
                                             std::string n;
                                             for (const auto& t : c.tensors) n += (n.empty() ? "" : ", ") + t.name;
                                             return n;
                                           }()));
  b.launches = std::max<int64_t>(launches, 1);
  // every lm.assume the bound sizes decide must hold for them
  ir::EvalEnv env;
  env.params = b.i32;
  for (const ir::Assume& a : s.assumes) {
    auto holds = ir::evaluate(*a.cond, env);
    if (holds && !*holds)
      return refuse("unsupported_shape", fmt::format("the schedule assumes {} (line {}), which {} does not satisfy",
                                                     ir::exprToString(*a.cond, s), a.range.line, shape.text()));
  }
  if (shape.at("causal") && !std::any_of(s.params.begin(), s.params.end(),
                                         [](const ir::Param& p) { return p.name == "causal"; }))
    return refuse("unsupported_shape", "causal attention requested, but the schedule has no `causal` parameter: it "
                                       "computes non-causal attention only");
  return {};
}

// The policy (exact edge or not) of a bound tensor's dimension.
bool exactDim(const Contract& c, const Binding& b, int param, size_t d) {
  for (TensorContract tc : c.tensors) {
    if (tc.name == "V" && b.tensor_name[param] == "VT") tc.exact = {false, false, false, true};
    else if (tc.name != b.tensor_name[param]) continue;
    const size_t rank = b.tensor_dims[param].size();
    // folded or dropped leading dimensions are batch dimensions, never exact
    const size_t off = tc.exact.size() > rank ? tc.exact.size() - rank : 0;
    return d + off < tc.exact.size() && tc.exact[d + off];
  }
  return false;
}

bool isOutput(const Contract& c, const std::string& name) {
  for (const TensorContract& tc : c.tensors)
    if (tc.name == name || (tc.name == "V" && name == "VT")) return tc.output;
  return false;
}

}  // namespace

BindResult bind(const ir::Schedule& s, const Shape& shape, const std::map<std::string, int64_t>& sets, int num_sms,
                bool coverage) {
  const Contract& c = contractOf(shape.kind);
  Binding b;
  b.shape = shape;
  b.num_sms = num_sms;
  if (BindResult r = bindParams(s, c, shape, sets, b); r.result != "ok") return r;

  // --- grid: the first store to a tensor, moved by lm.block_idx(d)
  std::set<int> read;
  ir::EvalEnv env = b.env();
  for (int d = 0; d < 3; ++d) env.block_idx[d] = 0, env.grid_dim[d] = d == 0 ? num_sms : 1;
  env.params_read = &read;
  std::optional<std::pair<const ir::Op*, ir::EvalEnv>> first_write;
  std::map<int, ir::DType> seen_dtype;
  std::string why;
  int64_t budget = 2'000'000;
  bool walked = walkCta(s, env, [&](const OpVisit& v) {
    auto box = tensorBox(s, v.op, v.env);
    if (!box) return;
    seen_dtype.emplace(box->param, box->dtype);
    if (box->write && !first_write) first_write.emplace(&v.op, v.env);
  }, budget, &why);
  if (!walked) return refuse("no_oracle", "cannot bind the schedule: " + why);
  // lm.grid_dim(0) is the persistent stride: one CTA per SM along x. A
  // lm.grid_dim(1) / (2) only reads the launched grid (a split count, a per-CTA
  // rotation of the K walk): those dimensions come from the output store, as
  // the lowering derives them (lowering/plan_build.cpp deriveGrid). Before,
  // any of them made the binding persistent: a split-K partial kernel was
  // bound to (#SMs, 1, 1) and its coverage walk refused every shape.
  b.persistent = read.count(-4) > 0;
  for (const auto& [p, dt] : seen_dtype)
    if (!b.tensor_name[p].empty() && dt != b.tensor_dtype[p])
      return refuse("no_oracle", fmt::format("tensor '{}' is {} in the schedule; the {} contract's {} is {}",
                                             s.params[p].name, ir::dtypeName(dt), c.name, b.tensor_name[p],
                                             ir::dtypeName(b.tensor_dtype[p])));
  for (size_t p = 0; p < s.params.size(); ++p)
    if (!b.tensor_name[p].empty() && !seen_dtype.count(static_cast<int>(p)))
      return refuse("no_oracle", fmt::format("the schedule never reads or writes tensor '{}'", s.params[p].name));
  if (!first_write) return refuse("no_oracle", "the schedule writes no tensor");
  {
    const auto& [op, wenv] = *first_write;
    auto base = tensorBox(s, *op, wenv);
    for (int d = b.persistent ? 1 : 0; d < 3; ++d) {
      ir::EvalEnv e1 = wenv;
      e1.params_read = nullptr;
      e1.block_idx[d] = 1;
      auto moved = tensorBox(s, *op, e1);
      if (!base || !moved) continue;
      for (size_t i = 0; i < base->lo.size(); ++i) {
        const int64_t step = moved->lo[i] - base->lo[i];
        if (step > 0) {
          const int64_t dim = b.tensor_dims[op->dst.index].at(i);
          b.grid[d] = (dim + step - 1) / step;
          break;
        }
      }
    }
    for (int d = 0; d < 3; ++d)
      b.grid[d] = (b.grid[d] + s.cluster[d] - 1) / s.cluster[d] * s.cluster[d];
    if (b.persistent) b.grid[0] = num_sms / s.cluster[0] * s.cluster[0];
  }

  // --- the sizes the problem does and must move
  const double B = shape.at("B") ? shape.at("B") : 1;
  switch (shape.kind) {
    case Kind::Gemm:
    case Kind::SplitKPartial: b.flops = 2.0 * shape.at("M") * shape.at("N") * shape.at("K"); break;
    case Kind::KmeansAssign: b.flops = 2.0 * B * shape.at("N") * shape.at("K") * shape.at("D"); break;
    case Kind::AttentionFwd:
      b.flops = 4.0 * B * shape.at("H") * shape.at("S") * shape.at("S") * shape.at("D") * (shape.at("causal") ? 0.5 : 1);
      break;
    default: b.flops = 1.0 * shape.at("M") * shape.at("N"); break;
  }
  for (size_t p = 0; p < s.params.size(); ++p) {
    if (b.tensor_name[p].empty()) continue;
    double n = ir::dtypeBytes(b.tensor_dtype[p]) * static_cast<double>(b.launches);
    for (int64_t d : b.tensor_dims[p]) n *= static_cast<double>(d);
    b.min_bytes += n;
  }

  if (!coverage) {
    BindResult r;
    r.binding = b;
    return r;
  }
  // --- coverage: every CTA's boxes, projected on each tensor dimension
  std::map<std::pair<int, size_t>, std::set<std::pair<int64_t, int64_t>>> spans;
  std::string overrun;
  budget = 6'000'000;
  why.clear();
  ir::EvalEnv all = b.env();
  bool complete = true;
  for (int64_t z = 0; z < b.grid[2] && complete; ++z)
    for (int64_t y = 0; y < b.grid[1] && complete; ++y)
      for (int64_t x = 0; x < b.grid[0] && complete; ++x) {
        all.block_idx[0] = x, all.block_idx[1] = y, all.block_idx[2] = z;
        complete = walkCta(s, all, [&](const OpVisit& v) {
          auto box = tensorBox(s, v.op, v.env);
          if (!box || b.tensor_name[box->param].empty()) return;
          const auto& dims = b.tensor_dims[box->param];
          for (size_t d = 0; d < box->lo.size() && d < dims.size(); ++d) {
            spans[{box->param, d}].insert({box->lo[d], box->ext[d]});
            const bool past = box->lo[d] < 0 || box->lo[d] + box->ext[d] > dims[d];
            if (past && overrun.empty() && box->lo[d] < dims[d] && exactDim(c, b, box->param, d))
              overrun = fmt::format("tensor '{}' ({}): a box [{}, {}) of dimension {} reaches past its size {}, and the "
                                    "{} contract does not allow padding there (it would change the answer)",
                                    s.params[box->param].name, b.tensor_name[box->param], box->lo[d],
                                    box->lo[d] + box->ext[d], d, dims[d], c.name);
          }
        }, budget, &why);
      }
  if (!complete) {
    BindResult r;
    r.binding = b;
    r.detail = "coverage not decided statically (" + why + "); the oracle decides";
    return r;
  }
  if (!overrun.empty()) return refuse("unsupported_shape", overrun);
  for (size_t p = 0; p < s.params.size(); ++p) {
    if (b.tensor_name[p].empty()) continue;
    const auto& dims = b.tensor_dims[p];
    for (size_t d = 0; d < dims.size(); ++d) {
      int64_t reach = 0;  // [0, reach) covered so far
      for (const auto& [lo, ext] : spans[{static_cast<int>(p), d}]) {
        if (lo > reach) break;
        reach = std::max(reach, lo + ext);
      }
      if (reach < dims[d])
        return refuse("unsupported_shape",
                      fmt::format("tensor '{}' ({}): the schedule {} only [0, {}) of dimension {} (size {}) for {}",
                                  s.params[p].name, b.tensor_name[p], isOutput(c, b.tensor_name[p]) ? "writes" : "reads",
                                  reach, d, dims[d], shape.text()));
    }
  }
  BindResult r;
  r.binding = b;
  return r;
}

}  // namespace cake::workload
