// The graph-replayed training step against the same step launched kernel by kernel, shared by the
// CPU-executor test (cpu_mnist_graph_test.cpp) and the GPU test (models_gpu_mnist_tests.cpp).
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

/// Two models from the same initialisation, one stepping through the replayed graph, one kernel
/// by kernel, on the same fresh batch each step, `sizes[i]` images at step i (<= maxBatch).
/// After every step: the losses and every parameter agree within `tolerance` (relative error),
/// and the graph has been captured once per run of equal sizes, i.e. again exactly when the
/// batch size changes — a stale graph replayed for another size would train on the wrong
/// number of images and miss the ungraphed step.
inline void checkGraphedStepMatchesUngraphed(kernels::Launcher &base, int64_t maxBatch, const std::vector<int64_t> &sizes,
                                             double tolerance = 1e-5) {
  StepGraph graphG(base), directG(base);
  MnistCnn graphed(graphG, maxBatch), direct(directG, maxBatch);
  graphed.init(11);
  direct.init(11);
  TrainStep graphStep(graphed, graphG, /*graphed=*/true), directStep(direct, directG, /*graphed=*/false);
  ASSERT_TRUE(graphStep.graphed());
  ASSERT_FALSE(directStep.graphed());

  const float lr = 0.05f;
  int expectedCaptures = 0;
  std::vector<float> img;
  std::vector<int32_t> lab;
  for (size_t s = 0; s < sizes.size(); ++s) {
    const int64_t n = sizes[s];
    SCOPED_TRACE("step " + std::to_string(s) + ", batch " + std::to_string(n));
    if (s == 0 || sizes[s - 1] != n) ++expectedCaptures;
    syntheticBatch(500 + s, n, img, lab);
    for (TrainStep *t : {&graphStep, &directStep}) {
      std::copy(img.begin(), img.end(), t->images().begin());
      std::copy(lab.begin(), lab.end(), t->labels().begin());
    }
    const float lossGraph = graphStep.run(n, lr);
    const float lossDirect = directStep.run(n, lr);
    ASSERT_TRUE(std::isfinite(lossDirect)) << lossDirect;
    EXPECT_LE(std::fabs(double(lossGraph) - lossDirect), tolerance * std::fabs(double(lossDirect)))
        << "graphed " << lossGraph << " vs ungraphed " << lossDirect;
    EXPECT_EQ(graphG.captures(), expectedCaptures);
    EXPECT_EQ(directG.captures(), 0) << "the ungraphed step never captures";

    std::vector<NamedTensor> pg = graphed.parameters(), pd = direct.parameters();
    ASSERT_EQ(pg.size(), pd.size());
    for (size_t i = 0; i < pg.size(); ++i) {
      Vec ref(pd[i].data.begin(), pd[i].data.end());
      const double err = relError(pg[i].data, ref);
      EXPECT_LE(err, tolerance) << pg[i].name;
    }
  }
  std::printf("graphed step: %zu steps, %d captures, %zu nodes, last capture %s\n", sizes.size(), graphG.captures(),
              graphG.nodes(), graphG.lastCapture().c_str());
}

}  // namespace tile::models::testing
