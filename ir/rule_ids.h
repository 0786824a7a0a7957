// The rule enumerators, one per line of ir/rules.def: code that reports a
// rule names it as ir::Rule::SyncDeadlock, so a misspelled rule does not
// compile. The registry's API is ir/rules.h.
#pragma once

#include "ir/rules.h"

namespace cake::ir {

enum class Rule : uint16_t {
#define CAKE_RULE(name, id, owner, severity, category, title, summary) name,
#include "ir/rules.def"
#undef CAKE_RULE
};

}  // namespace cake::ir
