#include "ir/ops.h"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace cake::ir {

namespace {

struct OpRow {
  OpKind kind;
  std::string_view name;
  OpReceiver receiver;
  OpCategory category;
  uint8_t flags;
  int positional;
  std::string_view signature;
};

constexpr OpRow kOpRows[] = {
#define CAKE_OP(kind, name, receiver, category, flags, positional, signature)                                        \
  {OpKind::kind, name, OpReceiver::receiver, OpCategory::category, [] {                                              \
     using namespace OpFlag;                                                                                         \
     return static_cast<uint8_t>(flags);                                                                            \
   }(),                                                                                                              \
   positional, signature},
#include "ir/ops.def"
#undef CAKE_OP
};

// "tensor! coords! stage" -> {tensor, required}, {coords, required}, {stage}
std::vector<OpArg> parseSignature(std::string_view sig) {
  std::vector<OpArg> out;
  size_t i = 0;
  while (i < sig.size()) {
    while (i < sig.size() && sig[i] == ' ') ++i;
    size_t j = i;
    while (j < sig.size() && sig[j] != ' ') ++j;
    if (j > i) {
      std::string_view w = sig.substr(i, j - i);
      bool required = w.back() == '!';
      out.push_back({required ? w.substr(0, w.size() - 1) : w, required});
    }
    i = j;
  }
  return out;
}

struct OpTable {
  std::array<std::vector<OpArg>, std::size(kOpRows)> args;
  std::array<OpInfo, std::size(kOpRows)> info;
  OpTable() {
    for (size_t i = 0; i < std::size(kOpRows); ++i) {
      const OpRow& r = kOpRows[i];
      if (static_cast<size_t>(r.kind) != i) throw std::logic_error("ir/ops.def: ops out of order");
      args[i] = parseSignature(r.signature);
      if (r.positional > static_cast<int>(args[i].size()))
        throw std::logic_error("ir/ops.def: more positional arguments than keywords for " + std::string(r.name));
      info[i] = OpInfo{r.kind, r.name, r.receiver, r.category, r.flags, r.positional, args[i]};
    }
  }
};

const OpTable& opTable() {
  static const OpTable t;
  return t;
}

constexpr ElemFnInfo kElemFns[] = {
    {ElemFn::None, "", 0, 0},
#define CAKE_ELEM_FN(fn, name, ops, flags)                                                                           \
  {ElemFn::fn, name,                                                                                                \
   [] {                                                                                                             \
     using namespace ElemFnOps;                                                                                     \
     return static_cast<uint8_t>(ops);                                                                              \
   }(),                                                                                                             \
   [] {                                                                                                             \
     using namespace ElemFnFlag;                                                                                    \
     return static_cast<uint8_t>(flags);                                                                            \
   }()},
#include "ir/ops.def"
#undef CAKE_ELEM_FN
};

}  // namespace

int OpInfo::positionOf(std::string_view arg) const {
  for (int i = 0; i < positional; ++i)
    if (args[static_cast<size_t>(i)].name == arg) return i;
  return -1;
}

std::span<const OpInfo> allOps() { return opTable().info; }

const OpInfo& opInfo(OpKind k) { return opTable().info.at(static_cast<size_t>(k)); }

std::string_view opName(OpKind k) { return opInfo(k).name; }

std::optional<OpKind> findOp(std::string_view name, OpReceiver receiver) {
  for (const OpInfo& o : allOps())
    if (o.name == name && o.receiver == receiver) return o.kind;
  return std::nullopt;
}

std::optional<OpKind> groupWaitOf(OpKind commit) {
  const OpInfo& c = opInfo(commit);
  if (!c.has(OpFlag::Commits)) return std::nullopt;
  for (const OpInfo& o : allOps())
    if (o.category == c.category && o.has(OpFlag::AwaitsGroup)) return o.kind;
  return std::nullopt;
}

std::span<const ElemFnInfo> allElemFns() { return std::span<const ElemFnInfo>(kElemFns).subspan(1); }

const ElemFnInfo& elemFnInfo(ElemFn f) {
  static_assert(static_cast<size_t>(ElemFn::None) == 0);
  return kElemFns[static_cast<size_t>(f)];
}

std::string_view elemFnName(ElemFn f) { return elemFnInfo(f).name; }

uint8_t elemFnOpsOf(OpKind k) {
  switch (k) {
    case OpKind::Unary: return ElemFnOps::Unary;
    case OpKind::Binary: return ElemFnOps::Binary;
    case OpKind::Reduce: return ElemFnOps::Reduce;
    default: return 0;
  }
}

std::optional<ElemFn> findElemFn(std::string_view name, OpKind op) {
  const uint8_t bit = elemFnOpsOf(op);
  for (const ElemFnInfo& f : allElemFns())
    if (f.name == name && (f.ops & bit) != 0) return f.fn;
  return std::nullopt;
}

}  // namespace cake::ir
