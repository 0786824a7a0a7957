// The op table: every op of CAKE IR and every element-wise function, with
// what the stages need to know about it, from one X-macro (ir/ops.def).
//
// The front end resolves an op's name to its OpKind once (findOp); every
// later stage switches on the enum or asks the table (opInfo(k).flags), so
// no stage compares op names. Adding an op: docs/architecture.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace cake::ir {

enum class OpKind : uint8_t {
#define CAKE_OP(kind, name, receiver, category, flags, positional, signature) kind,
#include "ir/ops.def"
#undef CAKE_OP
};

// How an op is called: lm.NAME(...) or VIEW.NAME(...).
enum class OpReceiver : uint8_t { Builder, View };

// The hardware mechanism an op belongs to.
enum class OpCategory : uint8_t { Tma, CpAsync, Mbarrier, NamedBarrier, Cluster, Fence, Mma, Compute, Tmem, GridDep };

// Synchronization facts (ir/ops.def explains each).
namespace OpFlag {
enum : uint8_t {
  Arrives = 1u << 0,
  Releases = 1u << 1,
  Blocks = 1u << 2,
  Commits = 1u << 3,
  AwaitsGroup = 1u << 4,
};
}

struct OpArg {
  std::string_view name;   // the keyword, e.g. "barrier"
  bool required = false;
};

struct OpInfo {
  OpKind kind;
  std::string_view name;   // "tma_load"
  OpReceiver receiver;
  OpCategory category;
  uint8_t flags;
  int positional;          // arguments that may be given by position
  std::span<const OpArg> args;  // keyword arguments in positional order

  bool has(uint8_t flag) const { return (flags & flag) != 0; }
  // The position of keyword `arg` if it may be given positionally, else -1.
  int positionOf(std::string_view arg) const;
};

std::span<const OpInfo> allOps();
const OpInfo& opInfo(OpKind k);
std::string_view opName(OpKind k);   // "tma_load", "wait", ...
// An op's kind by name and receiver; nullopt when no such op exists.
std::optional<OpKind> findOp(std::string_view name, OpReceiver receiver);
// The op that waits for the groups `commit` closes (tma_store_commit ->
// tma_store_wait): the AwaitsGroup op of its category; nullopt when `commit`
// does not commit.
std::optional<OpKind> groupWaitOf(OpKind commit);

// ------------------------------------------------ element-wise functions

enum class ElemFn : uint8_t {
  None,   // the op has no op= (not unary, binary or reduce)
#define CAKE_ELEM_FN(fn, name, ops, flags) fn,
#include "ir/ops.def"
#undef CAKE_ELEM_FN
};

namespace ElemFnOps {
enum : uint8_t { Unary = 1u << 0, Binary = 1u << 1, Reduce = 1u << 2 };
}
namespace ElemFnFlag {
enum : uint8_t { FloatOnly = 1u << 0, Sfu = 1u << 1 };
}

struct ElemFnInfo {
  ElemFn fn;
  std::string_view name;   // "exp2"
  uint8_t ops;             // ElemFnOps bits
  uint8_t flags;           // ElemFnFlag bits
  bool has(uint8_t flag) const { return (flags & flag) != 0; }
};

std::span<const ElemFnInfo> allElemFns();   // without None
const ElemFnInfo& elemFnInfo(ElemFn f);    // ElemFn::None: name ""
std::string_view elemFnName(ElemFn f);
// The ElemFnOps bit of an op (Unary, Binary, Reduce), 0 for the others.
uint8_t elemFnOpsOf(OpKind k);
// A function by name among those `op` accepts; nullopt otherwise.
std::optional<ElemFn> findElemFn(std::string_view name, OpKind op);

}  // namespace cake::ir
