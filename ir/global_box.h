// The box of elements a tile occupies in a global tensor, in the tensor's
// dimensions (outermost first), as lowering emits the op: the model
// checker's global-memory accesses (encoder/system.cpp, docs/semantics.md
// "Global memory") and lowering's tensor maps (lowering/plan.cpp tmaBox)
// read a tile's extents through these.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace cake::ir {

// A TMA box: the view slot's shape fitted to the tensor's rank, its leading
// dimensions merged into the next one while it has more, padded with
// leading 1s while it has fewer (the tensor map's box).
std::vector<int64_t> tmaBoxShape(std::vector<int64_t> shape, int rank);

// A generic copy (lm.copy, cp.async) with a tensor side: the tile
// flattened to R x C (R the product of its leading dimensions, C its last),
// rows in the tensor's next-to-last dimension and columns in its last, one
// index of every outer dimension (lowering/emit_compute.cpp tensorIdx).
// Empty where lowering refuses the shape: a rank-1 tensor with R != 1, or
// no coordinates.
std::vector<int64_t> copyBoxShape(const std::vector<int64_t>& shape, int rank);

// The extent of a dimension of `extent` elements cut to the slice [lo, hi)
// (nullopt: from 0, to the end), both clamped to [0, extent].
int64_t slicedExtent(int64_t extent, std::optional<int64_t> lo, std::optional<int64_t> hi);

// The box of an op that moves a tile of extents `tile` to or from a tensor
// of `rank` coordinates: tmaBoxShape for a TMA load or store, else
// copyBoxShape. Empty where the box does not have `rank` dimensions.
std::vector<int64_t> opBoxShape(const std::vector<int64_t>& tile, int rank, bool tma);

}  // namespace cake::ir
