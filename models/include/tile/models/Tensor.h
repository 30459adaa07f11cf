// Tensors of the model on either executor, and the static memory plan that holds them.
//
// An Arena is planned first (add() for every tensor: activations, gradients, parameters,
// workspaces), then allocated once as one block: host memory for the CPU executor (whose
// pointer arguments are host addresses) or device memory (tile::rt::DeviceBuffer) for the GPU.
// Tensors are views into it: shape + element type + address. No LLVM/MLIR here: a runtime-only
// executable links this (the GPU machine has no LLVM/MLIR).
#pragma once

#include "tile/runtime/Memory.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tile::models {

enum class ElemType : uint8_t { F32, I32, I8 };
size_t elemSize(ElemType t);
const char *elemTypeName(ElemType t);

/// Where an arena's block lives: host memory (the CPU executor) or GPU memory.
enum class MemoryKind : uint8_t { Host, Device };

class Arena;

/// A view of `numel()` elements of one type in an allocated Arena (or empty). Cheap to copy.
/// ptr() is the address kernels take (a host pointer or a CUdeviceptr), so a Tensor binds a
/// kernel launcher's Address argument directly.
class Tensor {
public:
  Tensor() = default;
  const std::string &name() const;
  const std::vector<int64_t> &shape() const;
  ElemType type() const;
  int64_t numel() const;
  size_t bytes() const { return size_t(numel()) * elemSize(type()); }
  bool empty() const { return arena_ == nullptr; }

  /// The address of element 0 (valid once the arena is allocated).
  uint64_t ptr() const;
  /// Host pointer (host arenas only; throws std::logic_error otherwise).
  template <class T> T *host() const { return static_cast<T *>(hostPtr()); }

  /// Copies `bytes()` bytes from/to host memory (synchronous on the GPU).
  void upload(const void *src) const;
  void download(void *dst) const;
  template <class T> std::vector<T> toVector() const {
    checkType(sizeof(T));
    std::vector<T> v(static_cast<size_t>(numel()));
    download(v.data());
    return v;
  }
  template <class T> void fromVector(const std::vector<T> &v) const {
    checkType(sizeof(T));
    checkCount(int64_t(v.size()));
    upload(v.data());
  }
  /// Copies the first `bytes` bytes only (a partly used batch buffer).
  void uploadPrefix(const void *src, size_t bytes) const;
  void downloadPrefix(void *dst, size_t bytes) const;

private:
  friend class Arena;
  Tensor(const Arena *a, size_t index) : arena_(a), index_(index) {}
  void *hostPtr() const;
  void checkType(size_t size) const;
  void checkCount(int64_t n) const;
  const Arena *arena_ = nullptr;
  size_t index_ = 0;
};

/// The static memory plan: every tensor added, then one allocation (aligned to 64 bytes each,
/// in order of addition, the whole block zero-filled). Not copyable or movable (tensors point
/// at it).
class Arena {
public:
  explicit Arena(MemoryKind kind);
  ~Arena();
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  static constexpr size_t kAlign = 64;

  /// Plans a tensor (before allocate()).
  Tensor add(std::string name, std::vector<int64_t> shape, ElemType type = ElemType::F32);
  /// As add(), but on the GPU in an allocation of its own, so that host copies go straight to
  /// or from it (the runtime copies whole buffers from their start): for what crosses to the
  /// host every step (the input batch, the loss). In host memory the same as add().
  Tensor addTransfer(std::string name, std::vector<int64_t> shape, ElemType type = ElemType::F32);
  /// A flat F32 view over the tensors first..last (inclusive, added consecutively, all F32),
  /// padding between them included (zero unless written): e.g. all parameters for one SGD launch.
  Tensor span(std::string name, const Tensor &first, const Tensor &last);
  /// Allocates the block (once).
  void allocate();

  MemoryKind kind() const { return kind_; }
  bool allocated() const { return base_ != 0; }
  size_t bytes() const { return total_; }
  size_t tensorCount() const { return entries_.size(); }
  /// One line per tensor (name, shape, type, offset, bytes) and the total.
  std::string describe() const;

private:
  friend class Tensor;
  struct Entry {
    std::string name;
    std::vector<int64_t> shape;
    ElemType type;
    int64_t numel;
    size_t offset;
    int own = -1; // index into owned_ (addTransfer on the GPU), else -1: in the block
  };
  MemoryKind kind_;
  std::vector<Entry> entries_;
  size_t total_ = 0;
  uint64_t base_ = 0;
  std::unique_ptr<std::byte, void (*)(std::byte *)> host_{nullptr, nullptr};
  rt::DeviceBuffer device_;
  std::vector<rt::DeviceBuffer> owned_;
};

std::string shapeText(const std::vector<int64_t> &shape);

} // namespace tile::models
