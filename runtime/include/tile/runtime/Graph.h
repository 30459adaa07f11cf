// CUDA graphs: the work enqueued on a stream captured once (StreamCapture -> Graph), instantiated
// (GraphExec) and replayed with one launch; a re-capture of the same topology (other arguments, other
// grid sizes) updates the instantiated graph in place instead of building it again.
//
//   rt::Stream s;
//   rt::StreamCapture capture(s.handle());
//   ... launches and async copies on s ...       // recorded, not run
//   rt::GraphExec exec(capture.end());
//   exec.launch(s.handle());                     // runs all of it; again every step
//
// GPU only (the CPU executor's launches are synchronous calls: tile::models::StepGraph records and
// replays those itself). Without a usable GPU every call throws Error("tile: no usable GPU: ...").
#pragma once

#include "tile/runtime/DriverHandle.h"

#include <cuda.h>

#include <cstddef>

namespace tile::rt {

// What other calls may do while a stream is being captured (cuStreamBeginCapture's mode).
// ThreadLocal (the default here): this thread may not make calls that are unsafe during a capture
// (synchronous copies, synchronisations, allocations), so a step that would secretly synchronise
// fails at capture instead of replaying wrong; other threads are not restricted. Global also
// restricts other threads; Relaxed restricts nobody.
enum class CaptureMode { Global, ThreadLocal, Relaxed };

// A captured graph (CUgraph): what GraphExec instantiates. Move-only; destroyed with the object.
class Graph {
public:
  Graph() = default;
  explicit Graph(CUgraph g) : g_(g) {} // takes ownership

  CUgraph handle() const { return g_.get(); }
  bool empty() const { return !g_; }
  // Nodes in the graph (kernel launches, copies, ...): cuGraphGetNodes.
  size_t nodeCount() const;

private:
  GraphHandle g_;
};

// Captures `stream` from construction until end(). The stream must be one of ours (rt::Stream):
// the legacy default stream (nullptr) cannot be captured. Destroyed while still capturing (an
// exception left the captured region), it ends the capture and drops what was recorded, so the
// stream is usable again.
class StreamCapture {
public:
  explicit StreamCapture(CUstream stream, CaptureMode mode = CaptureMode::ThreadLocal);
  ~StreamCapture();
  StreamCapture(const StreamCapture &) = delete;
  StreamCapture &operator=(const StreamCapture &) = delete;

  // Stops capturing and returns the graph. Throws Error when the capture was invalidated (a call
  // in the captured region that cannot be captured, such as a synchronous copy).
  Graph end();

private:
  CUstream stream_;
  bool active_ = false;
};

// True while `stream` is being captured (cuStreamIsCapturing).
bool isCapturing(CUstream stream);

// An instantiated graph (CUgraphExec): launched as one unit on any stream of its context.
class GraphExec {
public:
  GraphExec() = default;
  explicit GraphExec(const Graph &g); // cuGraphInstantiateWithFlags, with the nodes' priorities

  CUgraphExec handle() const { return e_.get(); }
  bool empty() const { return !e_; }

  // Enqueues the whole graph on `stream` (cuGraphLaunch); asynchronous like a kernel launch.
  void launch(CUstream stream);

  enum class Update { InPlace, Reinstantiated };
  // Makes this run `g` instead: cuGraphExecUpdate when the driver accepts it (same topology,
  // other parameters), else a fresh instantiation of g. An empty GraphExec is instantiated.
  Update update(const Graph &g);

private:
  GraphExecHandle e_;
};

} // namespace tile::rt
