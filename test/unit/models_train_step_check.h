// The graph-replayed training step against the same step launched kernel by kernel, shared by the
// CPU-executor test (cpu_mnist_graph_tests.cpp) and the GPU test (models_gpu_mnist_tests.cpp).
#pragma once

#include "models_mnist_reference.h"

#include "tile/kernels/Launcher.h"
#include "tile/models/StepGraph.h"
#include "tile/models/TrainStep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace tile::models::testing {

/// Passes launches on and asks every launcher in front of it to run them in order, one after
/// the other (no branches): the reference order of a step.
class SerialLauncher : public kernels::Launcher {
public:
  explicit SerialLauncher(kernels::Launcher &inner) : inner_(inner) {}
  void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
              CUstream stream) override {
    inner_.launch(kernelName, spec, grid, params, stream);
  }
  bool hostMemory() const override { return inner_.hostMemory(); }
  bool serializesLaunches() const override { return true; }

private:
  kernels::Launcher &inner_;
};

/// Three models from the same initialisation on the same fresh batch each step, `sizes[i]`
/// images at step i (<= maxBatch): one stepping through the replayed graph, one kernel by kernel
/// with the step's branches (overlapping on the GPU), one kernel by kernel in order (no
/// branches: the reference). After every step: the losses and every parameter of the first two
/// agree with the reference's within `tolerance` (relative error) — a branch missing a
/// dependency would read what is not yet written — and the graph has been captured once per run
/// of equal sizes, i.e. again exactly when the batch size changes: a stale graph replayed for
/// another size would train on the wrong number of images and miss the ungraphed step.
inline void checkGraphedStepMatchesUngraphed(kernels::Launcher &base, int64_t maxBatch,
                                             const std::vector<int64_t> &sizes, double tolerance = 1e-5) {
  SerialLauncher serial(base);
  StepGraph graphG(base), branchedG(base), directG(serial);
  MnistCnn graphed(graphG, maxBatch), branched(branchedG, maxBatch), direct(directG, maxBatch);
  for (MnistCnn *m : {&graphed, &branched, &direct}) m->init(11);
  TrainStep graphStep(graphed, graphG, /*graphed=*/true), branchedStep(branched, branchedG, /*graphed=*/false),
      directStep(direct, directG, /*graphed=*/false);
  ASSERT_TRUE(graphStep.graphed());
  ASSERT_FALSE(directStep.graphed());
  EXPECT_EQ(directG.fork(), nullptr) << "a StepGraph in front of a serializing launcher has no branches";

  const float lr = 0.05f;
  int expectedCaptures = 0;
  std::vector<float> img;
  std::vector<int32_t> lab;
  for (size_t s = 0; s < sizes.size(); ++s) {
    const int64_t n = sizes[s];
    SCOPED_TRACE("step " + std::to_string(s) + ", batch " + std::to_string(n));
    if (s == 0 || sizes[s - 1] != n) ++expectedCaptures;
    syntheticBatch(500 + s, n, img, lab);
    for (TrainStep *t : {&graphStep, &branchedStep, &directStep}) {
      std::copy(img.begin(), img.end(), t->images().begin());
      std::copy(lab.begin(), lab.end(), t->labels().begin());
    }
    const float lossGraph = graphStep.run(n, lr);
    const float lossBranched = branchedStep.run(n, lr);
    const float lossDirect = directStep.run(n, lr);
    ASSERT_TRUE(std::isfinite(lossDirect)) << lossDirect;
    EXPECT_LE(std::fabs(double(lossGraph) - lossDirect), tolerance * std::fabs(double(lossDirect)))
        << "graphed " << lossGraph << " vs ungraphed in order " << lossDirect;
    EXPECT_LE(std::fabs(double(lossBranched) - lossDirect), tolerance * std::fabs(double(lossDirect)))
        << "ungraphed with branches " << lossBranched << " vs in order " << lossDirect;
    EXPECT_EQ(graphG.captures(), expectedCaptures);
    EXPECT_EQ(directG.captures(), 0) << "the ungraphed step never captures";

    std::vector<NamedTensor> pd = direct.parameters();
    for (MnistCnn *m : {&graphed, &branched}) {
      std::vector<NamedTensor> p = m->parameters();
      ASSERT_EQ(p.size(), pd.size());
      for (size_t i = 0; i < p.size(); ++i) {
        Vec ref(pd[i].data.begin(), pd[i].data.end());
        const double err = relError(p[i].data, ref);
        EXPECT_LE(err, tolerance) << p[i].name << (m == &graphed ? " (graphed)" : " (ungraphed with branches)");
      }
    }
  }
  std::printf("graphed step: %zu steps, %d captures, %zu nodes, last capture %s\n", sizes.size(), graphG.captures(),
              graphG.nodes(), graphG.lastCapture().c_str());
}

} // namespace tile::models::testing
