// The front end's rule table (syntax.*, type.*). Every id has a page
// docs/rules/<id>.md.
#include "ir/diagnostic.h"

namespace cake::ir {

namespace {

constexpr RuleInfo kRules[] = {
    {"syntax.error", Severity::Error, Category::Syntax, "the text is not valid CAKE IR syntax",
     "The file does not parse as the Python subset that CAKE IR is written in: a missing ':' or ')', "
     "a bad indentation, an unterminated string, a malformed number, or a token where none fits. "
     "The location is the first token that cannot be read; fix the text there."},
    {"syntax.unsupported", Severity::Error, Category::Syntax, "valid Python that is not part of CAKE IR",
     "CAKE IR is a restricted subset of Python. Constructs outside it (while loops, lambda, classes, "
     "'/', '**', augmented assignment, f-strings, comprehensions, tuple assignment, return, ...) are "
     "rejected at their location. Rewrite with the subset: 'for v in lm.range(...)', '//' for integer "
     "division, one plain assignment per name."},
    {"syntax.invalid-input", Severity::Error, Category::Syntax, "the file is not UTF-8 text",
     "The file holds a NUL byte, a control character, a lone carriage return or bytes that are not "
     "valid UTF-8 - usually a binary file given by mistake, or a broken encoding. The location is the "
     "first offending byte."},
    {"syntax.too-deep", Severity::Error, Category::Syntax, "blocks or expressions nested too deeply",
     "Blocks and expressions may nest at most 200 levels (parentheses, unary operators, calls, "
     "subscripts, operator chains; and, after local names are substituted, expressions stay below "
     "200 levels and 100000 nodes). Deeper nesting is reported instead of exhausting the stack. "
     "Flatten the expression with named integer assignments or split the block."},
    {"type.undefined-name", Severity::Error, Category::Type, "a name is used before it is defined",
     "Every name must be a parameter, a declaration or an integer assignment above its use, or a loop "
     "variable of an enclosing 'for'. Names assigned inside a block are visible only inside that block. "
     "Check the spelling, or move the declaration up."},
    {"type.unknown-op", Severity::Error, Category::Type, "an unknown op, function or method",
     "The called function is not part of the CAKE IR vocabulary: not an 'lm.' builtin (declarations "
     "and ops of docs/ir-reference.md), not a method of the object it is called on (a pool has .view, "
     "a view has .tma_load/.tma_store/.cp_async), and not min/max. An unknown op= string of "
     "lm.unary/binary/reduce is reported the same way."},
    {"type.unknown-argument", Severity::Error, Category::Type, "an argument the callee does not take",
     "A keyword argument that the op or declaration does not accept, or more positional arguments "
     "than it takes. docs/ir-reference.md lists every argument of every call."},
    {"type.missing-argument", Severity::Error, Category::Type, "a required argument is missing",
     "A required argument of an op or declaration is not given (for example 'barrier=' of tma_load, "
     "'shape=' of a view, or the slot selector 'iter='/'stage=' on a resource with more than one slot)."},
    {"type.mismatch", Severity::Error, Category::Type, "an argument or operand has the wrong type",
     "A value of the wrong kind: a view where a barrier is expected, a float or string where an integer "
     "is expected, a non-role in 'with', an unknown dtype, swizzle or target, an integer out of its "
     "allowed range (stages < 1, a negative warp), or an operand of the wrong storage class."},
    {"type.duplicate", Severity::Error, Category::Type, "a name or argument is defined twice",
     "Names in a schedule are single-assignment: a declaration, parameter, loop variable or integer "
     "name may not be bound again in its scope (an inner block may not rebind an outer name either), "
     "two schedules may not share a name, and an argument may not be given twice (e.g. both 'stage=' "
     "and 'stages=', or both 'iter=' and 'stage=')."},
    {"type.int-overflow", Severity::Error, Category::Type, "an integer does not fit in 64 bits",
     "An integer literal or a constant-folded integer expression is outside the signed 64-bit range. "
     "Schedule integers are int64; use smaller values."},
    {"type.target-mismatch", Severity::Error, Category::Type, "decorator target differs from --target",
     "The schedule names a target in '@cake.schedule(target=...)' and the command line asks for a "
     "different one. cake never lowers a schedule to another GPU generation silently: write a schedule "
     "for that target, or drop --target."},
    {"type.non-constant", Severity::Error, Category::Type, "a value that must be constant is symbolic",
     "Some values fix the shape of the machine and must be integer constants after folding: view and "
     "pipeline stages, barrier count and init_count, role warps/group/regs, the decorator's warps and "
     "cluster, a loop step, reduce axis, block_idx/grid_dim dimension. They may not depend on parameters, "
     "loop variables or lm.instance()."},
    {"type.division-by-zero", Severity::Error, Category::Type, "a constant division or modulo by zero",
     "An integer '//', '%' or lm.cdiv whose divisor folds to the constant 0."},
    {"type.misplaced", Severity::Error, Category::Type, "a statement in the wrong place",
     "Declarations and lm.assume belong at the top level of the schedule, before use; ops, 'for' and "
     "'if' belong inside a 'with ROLE:' block; 'with' blocks sit at the top level of the schedule and "
     "do not nest; a file holds only imports, a docstring and @cake.schedule functions - and at least "
     "one of those (an empty file has no schedule)."},
};

}  // namespace

std::span<const RuleInfo> frontendRules() { return kRules; }

}  // namespace cake::ir
