// Internal to the explicit-state engines (sim_graph.h): one chunk of the
// visited set's arena, allocated so that a large one can live in
// transparent huge pages.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace cake::encoder::sim {

inline constexpr size_t kHugePage = size_t{2} << 20;

// Large blocks this thread freed, kept (up to kMaxBytes) for its next
// visited set: a freed block of 2 MiB or more goes back to the kernel, and
// the next search's first touch of each page of a fresh one made the kernel
// zero it again (a tenth of a race search that explores two parameter
// values of 144,087 states each, docs/benchmarks.md "Session 35 (helper
// perf35)"). The chunks and tables of one search are the same sizes as the
// last one's (doubling from fixed starts), so a block is taken again only
// at its exact size. The blocks' contents are not zero: ArenaChunk writes
// a state before it reads it, HugeTable clears its entries.
class BlockCache {
 public:
  static constexpr size_t kMaxBytes = size_t{256} << 20;
  BlockCache() = default;
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;
  ~BlockCache() {
    for (const auto& [p, n] : blocks_) std::free(p);
  }
  void* take(size_t bytes) {
    for (size_t i = 0; i < blocks_.size(); ++i)
      if (blocks_[i].second == bytes) {
        void* p = blocks_[i].first;
        blocks_[i] = blocks_.back();
        blocks_.pop_back();
        held_ -= bytes;
        return p;
      }
    return nullptr;
  }
  // Keeps p (false: the cache is full, the caller frees it).
  bool keep(void* p, size_t bytes) {
    if (held_ + bytes > kMaxBytes) return false;
    blocks_.emplace_back(p, bytes);
    held_ += bytes;
    return true;
  }
  static BlockCache& ofThread() {
    thread_local BlockCache cache;
    return cache;
  }

 private:
  std::vector<std::pair<void*, size_t>> blocks_;
  size_t held_ = 0;
};

inline size_t hugeRounded(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

// `bytes` of storage (freed with hugeFree(p, bytes)), aligned to 2 MiB and
// advised MADV_HUGEPAGE when it is at least that large; nullptr when out
// of memory.
inline void* hugeAlloc(size_t bytes) {
  if (bytes < kHugePage) return std::malloc(bytes);
  const size_t rounded = hugeRounded(bytes);
  if (void* kept = BlockCache::ofThread().take(rounded)) return kept;
  void* p = std::aligned_alloc(kHugePage, rounded);
#ifdef MADV_HUGEPAGE
  if (p) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

inline void hugeFree(void* p, size_t bytes) {
  if (p && bytes >= kHugePage && BlockCache::ofThread().keep(p, hugeRounded(bytes))) return;
  std::free(p);
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
  ~ArenaChunk() { hugeFree(data_, size_ * sizeof(int32_t)); }

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
  ~HugeTable() { hugeFree(data_, size_ * sizeof(uint64_t)); }

  uint64_t& operator[](size_t i) { return data_[i]; }
  uint64_t operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }

 private:
  uint64_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cake::encoder::sim
