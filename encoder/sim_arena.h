// Internal to the explicit-state engines (sim_graph.h): one chunk of the
// visited set's arena, allocated so that a large one can live in
// transparent huge pages.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <new>

namespace cake::encoder::sim {

inline constexpr size_t kHugePage = size_t{2} << 20;

// `bytes` of storage (freed with std::free), aligned to 2 MiB and advised
// MADV_HUGEPAGE when it is at least that large; nullptr when out of memory.
inline void* hugeAlloc(size_t bytes) {
  if (bytes < kHugePage) return std::malloc(bytes);
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
#ifdef MADV_HUGEPAGE
  if (p) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

// int32 storage of a fixed size that never moves. Chunks of 2 MiB and
// more are aligned to 2 MiB and advised MADV_HUGEPAGE (the kernel's
// `madvise` mode of transparent huge pages; elsewhere the advice is only a
// hint): a visited set of a few hundred MiB otherwise takes a page fault
// per 4 KiB, which in a virtual machine cost as much as the hashing.
class ArenaChunk {
 public:
  explicit ArenaChunk(size_t ints) : data_(static_cast<int32_t*>(hugeAlloc(ints * sizeof(int32_t)))), size_(ints) {
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
  int32_t* data_ = nullptr;
  size_t size_ = 0;
};

// The visited set's open-addressing table: `n` zeroed 64-bit entries, in
// huge pages once 2 MiB or more. Each probe of a large table is a random
// access: with 4 KiB pages nearly every one also missed the TLB (the
// table's probe was 70 % of Graph::insert's samples in a cluster proof).
class HugeTable {
 public:
  explicit HugeTable(size_t n) : data_(static_cast<uint64_t*>(hugeAlloc(n * sizeof(uint64_t)))), size_(n) {
    if (!data_) throw std::bad_alloc();
    std::memset(data_, 0, n * sizeof(uint64_t));
  }
  HugeTable(HugeTable&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr; o.size_ = 0; }
  HugeTable& operator=(HugeTable&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  HugeTable(const HugeTable&) = delete;
  HugeTable& operator=(const HugeTable&) = delete;
  ~HugeTable() { std::free(data_); }

  uint64_t& operator[](size_t i) { return data_[i]; }
  uint64_t operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }

 private:
  uint64_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cake::encoder::sim
