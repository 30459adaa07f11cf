// CUDA graphs: stream capture, instantiation, launch and in-place update (see Graph.h).
#include "DriverApi.h"

#include "tile/runtime/Error.h"
#include "tile/runtime/Graph.h"

#include <string>
#include <utility>

namespace tile::rt {

using detail::api;
using detail::check;

namespace {
CUstreamCaptureMode driverMode(CaptureMode m) {
  switch (m) {
  case CaptureMode::Global: return CU_STREAM_CAPTURE_MODE_GLOBAL;
  case CaptureMode::ThreadLocal: return CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
  case CaptureMode::Relaxed: return CU_STREAM_CAPTURE_MODE_RELAXED;
  }
  return CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
}
} // namespace

// ---------------------------------------------------------------------------------------
// Graph

size_t Graph::nodeCount() const {
  if (!g_) return 0;
  size_t n = 0;
  check(api().graphGetNodes(g_.get(), nullptr, &n), "cuGraphGetNodes");
  return n;
}

// ---------------------------------------------------------------------------------------
// StreamCapture

StreamCapture::StreamCapture(CUstream stream, CaptureMode mode) : stream_(stream) {
  // Checked before the driver is asked: the mistake is the caller's, GPU or not.
  if (!stream)
    throw Error("tile: cannot capture the legacy default stream (nullptr); capture a stream of its own (rt::Stream)");
  check(api().streamBeginCapture(stream, driverMode(mode)), "cuStreamBeginCapture");
  active_ = true;
}

StreamCapture::~StreamCapture() {
  if (!active_) return;
  GraphHandle dropped;
  (void)api().streamEndCapture(stream_, dropped.out()); // leaves the stream usable; what was recorded is dropped
}

Graph StreamCapture::end() {
  if (!active_) throw Error("tile: StreamCapture::end called twice");
  active_ = false;
  GraphHandle g; // released if the capture failed
  CUresult r = api().streamEndCapture(stream_, g.out());
  if (r != CUDA_SUCCESS) {
    check(r, "cuStreamEndCapture",
          r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
              ? "a call in the captured region cannot be captured (a synchronous copy, a synchronisation, an "
                "allocation, or work on the legacy default stream)"
              : "");
  }
  if (!g) throw Error("tile: cuStreamEndCapture returned no graph");
  return Graph(g.release());
}

bool isCapturing(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  check(api().streamIsCapturing(stream, &status), "cuStreamIsCapturing");
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// ---------------------------------------------------------------------------------------
// GraphExec

GraphExec::GraphExec(const Graph &g) {
  if (g.empty()) throw Error("tile: GraphExec: nothing to instantiate (an empty Graph: was anything captured?)");
  // Node priorities: each kernel keeps the priority of the stream it was captured from (a step's
  // critical line before its side branches), not that of the stream the graph is launched into.
  check(api().graphInstantiate(e_.out(), g.handle(), CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY),
        "cuGraphInstantiateWithFlags", std::to_string(g.nodeCount()) + " nodes");
}

void GraphExec::launch(CUstream stream) {
  if (!e_) throw Error("tile: GraphExec::launch: nothing instantiated (an empty GraphExec)");
  check(api().graphLaunch(e_.get(), stream), "cuGraphLaunch");
}

GraphExec::Update GraphExec::update(const Graph &g) {
  if (g.empty()) throw Error("tile: GraphExec::update: an empty Graph (was anything captured?)");
  if (e_) {
    CUgraphExecUpdateResultInfo info{};
    CUresult r = api().graphExecUpdate(e_.get(), g.handle(), &info);
    if (r == CUDA_SUCCESS) return Update::InPlace;
    // Refused (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: another topology, a parameter that cannot
    // change in place, ...): not an error, build anew. Whatever else went wrong, the fresh
    // instantiation below reports it.
  }
  *this = GraphExec(g);
  return Update::Reinstantiated;
}

} // namespace tile::rt
