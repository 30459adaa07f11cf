// Tensors and the static memory plan (see Tensor.h).
#include "tile/models/Tensor.h"

#include "tile/runtime/Context.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace tile::models {

size_t elemSize(ElemType t) {
  switch (t) {
  case ElemType::F32: return 4;
  case ElemType::I32: return 4;
  case ElemType::I8: return 1;
  }
  return 0;
}

const char *elemTypeName(ElemType t) {
  switch (t) {
  case ElemType::F32: return "f32";
  case ElemType::I32: return "i32";
  case ElemType::I8: return "i8";
  }
  return "?";
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// ---------------------------------------------------------------------------------------
// Tensor

const std::string &Tensor::name() const { return arena_->entries_.at(index_).name; }
const std::vector<int64_t> &Tensor::shape() const { return arena_->entries_.at(index_).shape; }
ElemType Tensor::type() const { return arena_ ? arena_->entries_.at(index_).type : ElemType::F32; }
int64_t Tensor::numel() const { return arena_ ? arena_->entries_.at(index_).numel : 0; }

uint64_t Tensor::ptr() const {
  if (!arena_) return 0;
  if (!arena_->allocated()) throw std::logic_error("tensor " + name() + ": its arena is not allocated yet");
  const Arena::Entry &e = arena_->entries_[index_];
  return e.own >= 0 ? arena_->owned_[size_t(e.own)].ptr() : arena_->base_ + e.offset;
}

void *Tensor::hostPtr() const {
  if (!arena_ || arena_->kind_ != MemoryKind::Host)
    throw std::logic_error("tensor " + (arena_ ? name() : std::string("(empty)")) + " is not in host memory");
  return reinterpret_cast<void *>(ptr());
}

void Tensor::checkType(size_t size) const {
  if (size != elemSize(type()))
    throw std::logic_error("tensor " + name() + " holds " + elemTypeName(type()) + ", not elements of " +
                           std::to_string(size) + " bytes");
}

void Tensor::checkCount(int64_t n) const {
  if (n != numel())
    throw std::logic_error("tensor " + name() + " " + shapeText(shape()) + " holds " + std::to_string(numel()) +
                           " elements, not " + std::to_string(n));
}

void Tensor::upload(const void *src) const { uploadPrefix(src, bytes()); }
void Tensor::download(void *dst) const { downloadPrefix(dst, bytes()); }

void Tensor::uploadPrefix(const void *src, size_t n) const {
  if (n > bytes())
    throw std::logic_error("tensor " + name() + ": upload of " + std::to_string(n) + " bytes exceeds it");
  if (n == 0) return;
  if (arena_->kind_ == MemoryKind::Host) {
    std::memcpy(hostPtr(), src, n);
    return;
  }
  if (int own = arena_->entries_[index_].own; own >= 0) {
    const_cast<rt::DeviceBuffer &>(arena_->owned_[size_t(own)]).copyFromHost(src, n);
    return;
  }
  // The runtime copies whole buffers from their start: stage through a temporary, then a
  // device-to-device copy to the offset (legacy stream: ordered with the launches).
  rt::DeviceBuffer tmp(n);
  tmp.copyFromHost(src, n);
  rt::copyDeviceToDevice(ptr(), tmp.ptr(), n);
  rt::Context::get().synchronize(); // before tmp is freed
}

void Tensor::downloadPrefix(void *dst, size_t n) const {
  if (n > bytes())
    throw std::logic_error("tensor " + name() + ": download of " + std::to_string(n) + " bytes exceeds it");
  if (n == 0) return;
  if (arena_->kind_ == MemoryKind::Host) {
    std::memcpy(dst, hostPtr(), n);
    return;
  }
  if (int own = arena_->entries_[index_].own; own >= 0) {
    arena_->owned_[size_t(own)].copyToHost(dst, n); // synchronous: after every launch before it
    return;
  }
  rt::DeviceBuffer tmp(n);
  rt::copyDeviceToDevice(tmp.ptr(), ptr(), n);
  tmp.copyToHost(dst, n); // synchronous: after the copy above and every launch before it
}

// ---------------------------------------------------------------------------------------
// Arena

Arena::Arena(MemoryKind kind) : kind_(kind) {}
Arena::~Arena() = default;

Tensor Arena::add(std::string name, std::vector<int64_t> shape, ElemType type) {
  if (allocated()) throw std::logic_error("arena: tensor " + name + " added after allocation");
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::logic_error("arena: tensor " + name + " has a negative extent " + shapeText(shape));
    n *= d;
  }
  size_t offset = (total_ + kAlign - 1) / kAlign * kAlign;
  entries_.push_back({std::move(name), std::move(shape), type, n, offset});
  total_ = offset + size_t(n) * elemSize(type);
  return Tensor(this, entries_.size() - 1);
}

Tensor Arena::addTransfer(std::string name, std::vector<int64_t> shape, ElemType type) {
  if (kind_ == MemoryKind::Host) return add(std::move(name), std::move(shape), type);
  if (allocated()) throw std::logic_error("arena: tensor " + name + " added after allocation");
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::logic_error("arena: tensor " + name + " has a negative extent " + shapeText(shape));
    n *= d;
  }
  entries_.push_back({std::move(name), std::move(shape), type, n, 0, int(owned_.size())});
  owned_.emplace_back();
  return Tensor(this, entries_.size() - 1);
}

Tensor Arena::span(std::string name, const Tensor &first, const Tensor &last) {
  if (first.arena_ != this || last.arena_ != this || first.index_ > last.index_)
    throw std::logic_error("arena: span " + name + " of tensors not in order in this arena");
  for (size_t i = first.index_; i <= last.index_; ++i) {
    if (entries_[i].type != ElemType::F32) throw std::logic_error("arena: span " + name + " over a non-f32 tensor");
    if (entries_[i].own >= 0) throw std::logic_error("arena: span " + name + " over a separately allocated tensor");
  }
  const Entry &a = entries_[first.index_], &b = entries_[last.index_];
  size_t end = b.offset + size_t(b.numel) * 4;
  int64_t n = int64_t((end - a.offset) / 4);
  entries_.push_back({std::move(name), {n}, ElemType::F32, n, a.offset});
  return Tensor(this, entries_.size() - 1);
}

void Arena::allocate() {
  if (allocated()) throw std::logic_error("arena: allocated twice");
  size_t bytes = (std::max<size_t>(total_, 1) + kAlign - 1) / kAlign * kAlign;
  if (kind_ == MemoryKind::Host) {
    auto *p = static_cast<std::byte *>(std::aligned_alloc(kAlign, bytes));
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, bytes);
    host_ = std::unique_ptr<std::byte, void (*)(std::byte *)>(p, [](std::byte *q) { std::free(q); });
    base_ = reinterpret_cast<uint64_t>(p);
  } else {
    device_ = rt::DeviceBuffer(bytes);
    device_.fillBytes(0);
    base_ = device_.ptr();
    for (const Entry &e : entries_)
      if (e.own >= 0) {
        size_t b = std::max<size_t>(size_t(e.numel) * elemSize(e.type), 1);
        owned_[size_t(e.own)] = rt::DeviceBuffer((b + kAlign - 1) / kAlign * kAlign);
        owned_[size_t(e.own)].fillBytes(0);
      }
  }
}

std::string Arena::describe() const {
  std::ostringstream s;
  for (const Entry &e : entries_)
    s << "  " << e.name << " " << shapeText(e.shape) << " " << elemTypeName(e.type) << " @"
      << (e.own >= 0 ? std::string("own allocation") : std::to_string(e.offset)) << " ("
      << size_t(e.numel) * elemSize(e.type) << " bytes)\n";
  s << "  total " << total_ << " bytes in " << (kind_ == MemoryKind::Host ? "host" : "device") << " memory\n";
  return s.str();
}

} // namespace tile::models
