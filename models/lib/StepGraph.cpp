// A step captured once and replayed (see StepGraph.h).
#include "tile/models/StepGraph.h"

#include "tile/TensorDescAbi.h"
#include "tile/runtime/Memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tile::models {

namespace {
// Bytes of a non-Const argument's value in the launch ABI's parameter array (tile/Spec.h; the
// sizes of tile::detail::ParamTraits<P>::Storage in dsl/include/tile/Kernel.h).
size_t argBytes(ArgKind k) {
  switch (k) {
  case ArgKind::Ptr:
  case ArgKind::I64: return 8;
  case ArgKind::I32:
  case ArgKind::F32: return 4;
  case ArgKind::F16:
  case ArgKind::BF16: return 2;
  case ArgKind::I1: return 1;
  case ArgKind::Const: return 0;
  case ArgKind::Desc: return sizeof(TensorDescParam);
  }
  return 0;
}
// Each recorded argument in a slot of its own, large enough for any kind (a descriptor is the
// largest). Slots are only read back on the CPU executor, which needs no alignment beyond 8.
constexpr size_t kSlot = sizeof(TensorDescParam);

void checkCopy(const Tensor &t, size_t bytes, const char *what) {
  if (t.empty()) throw std::logic_error(std::string("StepGraph::") + what + ": an empty tensor");
  if (bytes > t.bytes())
    throw std::logic_error(std::string("StepGraph::") + what + " of " + std::to_string(bytes) +
                           " bytes exceeds tensor " + t.name() + " (" + std::to_string(t.bytes()) + " bytes)");
}
} // namespace

StepGraph::StepGraph(kernels::Launcher &inner) : inner_(inner), host_(inner.hostMemory()) {
  // CU_STREAM_DEFAULT: ordered with the legacy default stream. The step's line at the highest
  // priority, its branches (fork) at the lowest: off the critical path, their blocks take the
  // room the line leaves.
  if (!host_) stream_.emplace(CU_STREAM_DEFAULT, rt::streamPriorities().highest);
}

CUstream StepGraph::stream() const { return stream_ ? stream_->handle() : nullptr; }

void StepGraph::launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
                       CUstream stream) {
  if (!recording_) {
    inner_.launch(kernelName, spec, grid, params, stream ? stream : this->stream());
    return;
  }
  Recorded r;
  r.kernel = kernelName;
  r.spec = spec;
  r.grid = grid;
  size_t k = 0; // params holds the non-Const arguments only
  for (const ArgSpec &a : spec.args) {
    if (a.kind == ArgKind::Const) continue;
    r.args.resize((k + 1) * kSlot);
    std::memcpy(r.args.data() + k * kSlot, params[k], argBytes(a.kind));
    ++k;
  }
  recorded_.push_back(std::move(r));
}

CUstream StepGraph::fork() {
  if (host_ || inner_.serializesLaunches()) return nullptr;
  if (!forkJoin_) forkJoin_.emplace(CU_EVENT_DISABLE_TIMING);
  auto freeBranch = std::find_if(branches_.begin(), branches_.end(), [](const Branch &b) { return !b.open; });
  if (freeBranch == branches_.end())
    freeBranch =
        branches_.insert(branches_.end(), Branch{rt::Stream(CU_STREAM_DEFAULT, rt::streamPriorities().lowest)});
  forkJoin_->record(stream());
  freeBranch->stream.waitFor(*forkJoin_);
  freeBranch->open = true;
  return freeBranch->stream.handle();
}

void StepGraph::join(CUstream branch) {
  if (!branch) return;
  auto b = std::find_if(branches_.begin(), branches_.end(),
                        [&](const Branch &x) { return x.open && x.stream.handle() == branch; });
  if (b == branches_.end()) throw std::logic_error("StepGraph::join: not an open branch of this step");
  forkJoin_->record(branch);
  stream_->waitFor(*forkJoin_);
  b->open = false;
}

void StepGraph::requireJoined(const char *when) const {
  for (const Branch &b : branches_)
    if (b.open)
      throw std::logic_error(std::string("StepGraph: a branch forked in the step is not joined ") + when +
                             " (every fork() needs its join())");
}

void StepGraph::copyIn(const Tensor &dst, const void *src, size_t bytes) {
  checkCopy(dst, bytes, "copyIn");
  if (!host_) {
    rt::copyHostToDeviceAsync(dst.ptr(), src, bytes, stream());
    return;
  }
  void *to = reinterpret_cast<void *>(dst.ptr());
  if (recording_) recorded_.push_back({"", {}, {}, {}, to, src, bytes});
  else if (bytes) std::memcpy(to, src, bytes);
}

void StepGraph::copyOut(void *dst, const Tensor &src, size_t bytes, CUstream on) {
  checkCopy(src, bytes, "copyOut");
  if (!host_) {
    rt::copyDeviceToHostAsync(dst, src.ptr(), bytes, on ? on : stream());
    return;
  }
  const void *from = reinterpret_cast<const void *>(src.ptr());
  if (recording_) recorded_.push_back({"", {}, {}, {}, dst, from, bytes});
  else if (bytes) std::memcpy(dst, from, bytes);
}

bool StepGraph::run(uint64_t shape, const std::function<void()> &body) {
  for (Branch &b : branches_) b.open = false; // a step that threw may have left some open
  if (shape_ && *shape_ == shape) {
    replay();
    return false;
  }
  // A new shape: this step runs directly (loading every kernel it needs: a module load has no
  // place inside a capture), then is captured for the following steps. Until the capture
  // succeeds, nothing stale may be replayed.
  shape_.reset();
  body();
  requireJoined("at its end");
  try {
    capture(body);
  } catch (...) {
    reset();
    throw;
  }
  shape_ = shape;
  ++captures_;
  return true;
}

void StepGraph::capture(const std::function<void()> &body) {
  if (host_) {
    recorded_.clear();
    recording_ = true;
    try {
      body();
    } catch (...) {
      recording_ = false;
      throw;
    }
    recording_ = false;
    nodes_ = recorded_.size();
    lastCapture_ = "recorded";
    return;
  }
  rt::Graph g;
  {
    rt::StreamCapture capture(stream());
    body();
    requireJoined("at the end of its capture");
    g = capture.end();
  }
  nodes_ = g.nodeCount();
  if (exec_.empty()) {
    exec_ = rt::GraphExec(g);
    lastCapture_ = "instantiated";
  } else {
    lastCapture_ = exec_.update(g) == rt::GraphExec::Update::InPlace ? "updated in place" : "re-instantiated";
  }
}

void StepGraph::replay() {
  if (host_) replayRecorded();
  else exec_.launch(stream());
}

void StepGraph::replayRecorded() {
  std::vector<void *> ptrs;
  for (Recorded &r : recorded_) {
    if (r.kernel.empty()) {
      if (r.bytes) std::memcpy(r.dst, r.src, r.bytes);
      continue;
    }
    ptrs.resize(r.args.size() / kSlot);
    for (size_t k = 0; k < ptrs.size(); ++k) ptrs[k] = r.args.data() + k * kSlot;
    inner_.launch(r.kernel.c_str(), r.spec, r.grid, ptrs.data(), nullptr);
  }
}

void StepGraph::synchronize() {
  if (stream_) stream_->synchronize();
}

void StepGraph::reset() {
  exec_ = rt::GraphExec();
  recorded_.clear();
  recording_ = false;
  for (Branch &b : branches_) b.open = false;
  shape_.reset();
  nodes_ = 0;
}

} // namespace tile::models
