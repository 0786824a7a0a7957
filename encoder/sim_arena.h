// Internal to the explicit-state engines (sim_graph.h): one chunk of the
// visited set's arena, allocated so that a large one can live in
// transparent huge pages.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace cake::encoder::sim {

// int32 storage of a fixed size that never moves. Chunks of 2 MiB and
// more are aligned to 2 MiB and advised MADV_HUGEPAGE (the kernel's
// `madvise` mode of transparent huge pages; elsewhere the advice is only a
// hint): a visited set of a few hundred MiB otherwise takes a page fault
// per 4 KiB, which in a virtual machine cost as much as the hashing.
class ArenaChunk {
 public:
  explicit ArenaChunk(size_t ints) : size_(ints) {
    const size_t bytes = (ints * sizeof(int32_t) + kHuge - 1) / kHuge * kHuge;
    if (ints * sizeof(int32_t) >= kHuge) {
      data_ = static_cast<int32_t*>(std::aligned_alloc(kHuge, bytes));
#ifdef MADV_HUGEPAGE
      if (data_) madvise(data_, bytes, MADV_HUGEPAGE);
#endif
    } else {
      data_ = static_cast<int32_t*>(std::malloc(ints * sizeof(int32_t)));
    }
    if (!data_) throw std::bad_alloc();
  }
  ArenaChunk(ArenaChunk&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr; }
  ArenaChunk(const ArenaChunk&) = delete;
  ArenaChunk& operator=(const ArenaChunk&) = delete;
  ArenaChunk& operator=(ArenaChunk&&) = delete;
  ~ArenaChunk() { std::free(data_); }

  int32_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kHuge = size_t{2} << 20;
  int32_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cake::encoder::sim
