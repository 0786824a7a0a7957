#include "ir/global_box.h"

#include <algorithm>
#include <cstddef>

namespace cake::ir {

std::vector<int64_t> tmaBoxShape(std::vector<int64_t> shape, int rank) {
  while (static_cast<int>(shape.size()) > rank && shape.size() > 1) {
    shape[1] *= shape[0];
    shape.erase(shape.begin());
  }
  while (static_cast<int>(shape.size()) < rank) shape.insert(shape.begin(), 1);
  return shape;
}

std::vector<int64_t> copyBoxShape(const std::vector<int64_t>& shape, int rank) {
  if (rank < 1) return {};
  int64_t rows = 1;
  for (std::size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
  const int64_t cols = shape.empty() ? 1 : shape.back();
  if (rank == 1) return rows == 1 ? std::vector<int64_t>{cols} : std::vector<int64_t>{};
  std::vector<int64_t> box(static_cast<std::size_t>(rank), 1);
  box[rank - 2] = rows;
  box[rank - 1] = cols;
  return box;
}

int64_t slicedExtent(int64_t extent, std::optional<int64_t> lo, std::optional<int64_t> hi) {
  const int64_t from = lo ? std::clamp<int64_t>(*lo, 0, extent) : 0;
  const int64_t to = hi ? std::clamp<int64_t>(*hi, 0, extent) : extent;
  return std::max<int64_t>(to - from, 0);
}

std::vector<int64_t> opBoxShape(const std::vector<int64_t>& tile, int rank, bool tma) {
  std::vector<int64_t> box = tma ? tmaBoxShape(tile, rank) : copyBoxShape(tile, rank);
  if (static_cast<int>(box.size()) != rank) return {};
  return box;
}

}  // namespace cake::ir
