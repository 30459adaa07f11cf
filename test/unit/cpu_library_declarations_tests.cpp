// Library kernel declarations (tile/kernels/Declare.h) against their launchers, without
// running anything: every (constants, warps, stages) a launcher asks for is among its
// declaration's variants(), i.e. compiled into the AOT bundle; the specialisation a launch
// runs keeps the facts its descriptors hold; names are unique and the registry finds them.
#include "cpu_test_util.h"

#include "tile/kernels/BatchedMatmul.h"
#include "tile/kernels/Registry.h"

#include "AotDeclared.h"

#include <set>
#include <string>
#include <vector>

using namespace tile;
namespace tk = tile::kernels;

namespace {

// Every (constants, warps, stages) the launchers ask for is a declared variant (so the AOT
// bundle has it), over the shapes of the model and ragged ones.

class Recorder : public tk::Launcher {
public:
  void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **, CUstream) override {
    calls.push_back({kernelName, spec, grid});
  }
  bool hostMemory() const override { return true; }
  struct Call {
    std::string kernel;
    Specialization spec;
    rt::Dim3 grid;
  };
  std::vector<Call> calls;
};

template <class D> bool declared(const Specialization &spec) {
  std::vector<int64_t> consts;
  for (const ArgSpec &a : spec.args)
    if (a.kind == ArgKind::Const) consts.push_back(a.constValue);
  for (const tk::Variant &v : D::variants())
    if (v.consts == consts && v.numWarps == spec.numWarps && v.numStages == spec.numStages) return true;
  return false;
}

TEST(CpuLibraryDeclarations, LaunchersAskOnlyForDeclaredVariants) {
  Recorder r;
  const tk::Address p = uint64_t(1024);
  std::vector<int64_t> sizes = {1, 2, 3, 7, 10, 28, 100, 1000, 1023, 1024, 1025, 3136, 16384};
  for (int64_t s : sizes) {
    tk::VectorAdd::launch(r, p, p, p, s);
    tk::Softmax::launch(r, p, p, 3, s, s, s);
    tk::LayerNormForward::launch(r, p, p, p, p, p, p, 3, s, s, 1e-5f);
    tk::ReluForward::launch(r, p, p, s);
    tk::ReluBackward::launch(r, p, p, p, s);
    tk::SgdUpdate::launch(r, p, p, 0.01f, s);
    tk::Fill::zero(r, p, s);
    tk::ColumnSum::launch(r, p, p, s, 10, 10);
    tk::SumPartials::launch(r, p, p, s, 3);
    tk::SumPartials::launch(r, p, p, s, 883);
    if (s <= 64) tk::CrossEntropy::launch(r, p, p, p, p, p, 64, s);
    for (int64_t classes : {1, 10, 16, 17, 32})
      tk::LinearCrossEntropy::launch(r, p, p, p, p, p, p, p, p, p, p, p, s, 128, classes, true, p, int64_t(1) << 30);
    tk::ConvWeightTaps::launch(r, p, p, s, 64);
    for (int64_t d : {64, 128, 256})
      for (bool causal : {false, true}) {
        tk::AttentionProblem equal{p, p, p, p, p, 3, 8, 2, d, s};
        equal.causal = causal;
        tk::AttentionForwardF16::launch(r, equal);
        tk::AttentionForwardBf16::launch(r, equal);
        tk::AttentionProblem packed = equal;
        packed.cuSeqlens = p;
        packed.tokens = 3 * s - 1;
        tk::AttentionForwardF16::launch(r, packed);
        for (const auto &t : tk::AttentionForwardF16::kSweep)
          if (t.headDim == d) tk::AttentionForwardF16::launch(r, equal, nullptr, &t.config);
        if (d == 256) continue;                                            // the backward's head dims are 64 and 128
        for (tk::Address accum : {tk::Address(nullptr), tk::Address(p)}) { // deterministic, one pass
          tk::AttentionBackward<tile::f16>::launch(r, {equal, p, p, p, p, p, accum});
          tk::AttentionBackward<tile::bf16>::launch(r, {equal, p, p, p, p, p, accum});
          tk::AttentionBackward<tile::f16>::launch(r, {packed, p, p, p, p, p, accum});
          tk::AttentionBackward<tile::bf16>::launch(r, {packed, p, p, p, p, p, accum});
          for (const auto &t : tk::kAttentionBackwardSweep)
            if (t.headDim == d)
              tk::AttentionBackward<tile::f16>::launch(r, {equal, p, p, p, p, p, accum}, nullptr, &t.config);
        }
      }
    for (bool relu : {false, true}) {
      tk::ChannelStats st = tk::Conv2dForward::channelStats(p, 3, 1, s, 2, tk::ConvPrecision::Exact);
      tk::BatchNorm2dForward::launch(r, p, p, p, p, p, p, 3, 5, s, 2, 1e-5f, relu);
      tk::BatchNorm2dForward::launch(r, p, p, p, p, p, p, 3, 5, s, 2, 1e-5f, relu, &st);
      tk::BatchNorm2dBackward::launch(r, p, p, p, p, p, p, p, p, p, 3, 5, s, 2, relu);
      tk::BatchNorm2dBackward::launch(r, p, p, p, p, p, p, p, p, p, 3, 5, s, 2, relu, p);
      if (s >= 2) {
        tk::BatchNorm2dForward::launchPooled(r, p, p, p, p, p, p, p, 3, 5, s, 2, 1e-5f, relu);
        tk::BatchNorm2dForward::launchPooled(r, p, p, p, p, p, p, p, 3, 5, s, 2, 1e-5f, relu, &st);
        tk::BatchNorm2dBackward::launchPooled(r, p, p, p, p, p, p, p, p, p, p, 3, 5, s, 2, relu);
        tk::BatchNorm2dBackward::launchPooled(r, p, p, p, p, p, p, p, p, p, p, 3, 5, s, 2, relu, p);
      }
    }
    tk::Transpose::launch(r, p, p, s, 3);
    tk::MaxPool2dForward::launch(r, p, p, p, 3, 5, s, 28);
    tk::MaxPool2dBackward::launch(r, p, p, p, 3, 5, s, 28);
    if (s <= 1024) {
      for (auto prec : {tk::ConvPrecision::Exact, tk::ConvPrecision::Tf32})
        for (tk::Address taps : {tk::Address(nullptr), p}) {
          tk::Conv2dForward::launch(
              r, p, p, p, p, {.n = 3, .cin = 32, .h = s, .w = 14, .cout = 64, .precision = prec, .weightTaps = taps});
          tk::Conv2dForward::launchWithStats(
              r, p, p, p, p, p,
              {.n = 3, .cin = 32, .h = s, .w = 14, .cout = 64, .precision = prec, .weightTaps = taps});
          tk::Conv2dBackwardData::launch(
              r, p, p, p, {.n = 3, .cin = 32, .h = s, .w = 14, .cout = 64, .precision = prec, .weightTaps = taps});
        }
      tk::Conv2dBackwardWeight::launch(r, p, p, p, p, int64_t(1) << 30,
                                       {.n = 3, .cin = 32, .h = s, .w = 14, .cout = 64});
      tk::ChannelSum::launch(r, p, p, 3, 64, s, 14);
    }
    for (auto ep : {tk::MatmulEpilogue::None, tk::MatmulEpilogue::Bias, tk::MatmulEpilogue::BiasRelu}) {
      tk::MatmulF32::launch(r, {.a = p,
                                .b = p,
                                .c = p,
                                .bias = p,
                                .m = s,
                                .n = 64,
                                .k = 30,
                                .strideAm = 30,
                                .strideAk = 1,
                                .strideBk = 64,
                                .strideBn = 1,
                                .strideCm = 64,
                                .strideCn = 1,
                                .epilogue = ep});
      tk::MatmulF32::launch(r, {.a = p,
                                .b = p,
                                .c = p,
                                .bias = p,
                                .m = s,
                                .n = 64,
                                .k = 30,
                                .strideAm = 30,
                                .strideAk = 1,
                                .strideBk = 64,
                                .strideBn = 1,
                                .strideCm = 64,
                                .strideCn = 1,
                                .epilogue = ep,
                                .tf32 = true});
      tk::MatmulF16::launch(r, {.a = p,
                                .b = p,
                                .c = p,
                                .bias = p,
                                .m = s,
                                .n = 64,
                                .k = 30,
                                .strideAm = 30,
                                .strideAk = 1,
                                .strideBk = 64,
                                .strideBn = 1,
                                .strideCm = 64,
                                .strideCn = 1,
                                .epilogue = ep});
      tk::MatmulBF16::launch(r, {.a = p,
                                 .b = p,
                                 .c = p,
                                 .bias = p,
                                 .m = s,
                                 .n = 64,
                                 .k = 30,
                                 .strideAm = 30,
                                 .strideAk = 1,
                                 .strideBk = 64,
                                 .strideBn = 1,
                                 .strideCm = 64,
                                 .strideCn = 1,
                                 .epilogue = ep});
      // Row-major operands a tensor descriptor describes: MatmulTma (f32 C through Matmul, and C
      // in the inputs' type), on small and large grids.
      for (int64_t n : {64, 4096}) {
        tk::MatmulF16::launch(r, {.a = p,
                                  .b = p,
                                  .c = p,
                                  .bias = p,
                                  .m = s,
                                  .n = n,
                                  .k = 32,
                                  .strideAm = 32,
                                  .strideAk = 1,
                                  .strideBk = n,
                                  .strideBn = 1,
                                  .strideCm = n,
                                  .strideCn = 1,
                                  .epilogue = ep});
        tk::MatmulBF16::launch(r, {.a = p,
                                   .b = p,
                                   .c = p,
                                   .bias = p,
                                   .m = s,
                                   .n = n,
                                   .k = 32,
                                   .strideAm = 32,
                                   .strideAk = 1,
                                   .strideBk = n,
                                   .strideBn = 1,
                                   .strideCm = n,
                                   .strideCn = 1,
                                   .epilogue = ep});
        tk::MatmulTmaF16::launch(r, {.a = p,
                                     .b = p,
                                     .c = p,
                                     .bias = p,
                                     .m = s,
                                     .n = n,
                                     .k = 32,
                                     .lda = 32,
                                     .ldb = n,
                                     .ldc = n,
                                     .epilogue = ep});
        tk::MatmulTmaBF16::launch(r, {.a = p,
                                      .b = p,
                                      .c = p,
                                      .bias = p,
                                      .m = s,
                                      .n = n,
                                      .k = 32,
                                      .lda = 32,
                                      .ldb = n,
                                      .ldc = n,
                                      .epilogue = ep});
        tk::MatmulTmaF16OutF16::launch(r, {.a = p,
                                           .b = p,
                                           .c = p,
                                           .bias = p,
                                           .m = s,
                                           .n = n,
                                           .k = 32,
                                           .lda = 32,
                                           .ldb = n,
                                           .ldc = n,
                                           .epilogue = ep});
        tk::MatmulTmaBF16OutBF16::launch(r, {.a = p,
                                             .b = p,
                                             .c = p,
                                             .bias = p,
                                             .m = s,
                                             .n = n,
                                             .k = 32,
                                             .lda = 32,
                                             .ldb = n,
                                             .ldc = n,
                                             .epilogue = ep});
        // bᵀ operands (TF32 on wgmma; f16/bf16 x·Wᵀ), through Matmul<float> too, and the persistent grid.
        tk::MatmulTmaTf32Bt::launch(r, {.a = p,
                                        .b = p,
                                        .c = p,
                                        .bias = p,
                                        .m = s,
                                        .n = n,
                                        .k = 32,
                                        .lda = 32,
                                        .ldb = 32,
                                        .ldc = n,
                                        .epilogue = ep});
        tk::MatmulF32::launch(r, {.a = p,
                                  .b = p,
                                  .c = p,
                                  .bias = p,
                                  .m = s,
                                  .n = n,
                                  .k = 32,
                                  .strideAm = 32,
                                  .strideAk = 1,
                                  .strideBk = 1,
                                  .strideBn = 32,
                                  .strideCm = n,
                                  .strideCn = 1,
                                  .epilogue = ep,
                                  .tf32 = true});
        tk::MatmulTmaTf32Bt::launchTransposingB(
            r,
            {.a = p, .b = p, .c = p, .bias = p, .m = s, .n = n, .k = 32, .lda = 32, .ldb = n, .ldc = n, .epilogue = ep},
            p, 32 * n);
        tk::MatmulTmaF16BtOutF16::launch(r, {.a = p,
                                             .b = p,
                                             .c = p,
                                             .bias = p,
                                             .m = s,
                                             .n = n,
                                             .k = 32,
                                             .lda = 32,
                                             .ldb = 32,
                                             .ldc = n,
                                             .epilogue = ep});
        tk::MatmulTmaBF16BtOutBF16::launch(r, {.a = p,
                                               .b = p,
                                               .c = p,
                                               .bias = p,
                                               .m = s,
                                               .n = n,
                                               .k = 32,
                                               .lda = 32,
                                               .ldb = 32,
                                               .ldc = n,
                                               .epilogue = ep});
        tk::MatmulTmaPersistentF16OutF16::launch(
            r,
            {.a = p, .b = p, .c = p, .bias = p, .m = s, .n = n, .k = 32, .lda = 32, .ldb = n, .ldc = n, .epilogue = ep},
            nullptr, 132);
        tk::MatmulTmaPersistentBF16OutBF16::launch(
            r,
            {.a = p, .b = p, .c = p, .bias = p, .m = s, .n = n, .k = 32, .lda = 32, .ldb = n, .ldc = n, .epilogue = ep},
            nullptr, 132);
        tk::MatmulTmaPersistentTf32Bt::launch(r,
                                              {.a = p,
                                               .b = p,
                                               .c = p,
                                               .bias = p,
                                               .m = s,
                                               .n = n,
                                               .k = 32,
                                               .lda = 32,
                                               .ldb = 32,
                                               .ldc = n,
                                               .epilogue = ep},
                                              nullptr, 132);
      }
      for (int64_t batch : {3, 64}) { // below and above a wave of 128 x 128 tiles
        tk::BatchedMatmulF32::launch(r, {.matrix = {.a = p,
                                                    .b = p,
                                                    .c = p,
                                                    .bias = p,
                                                    .m = s,
                                                    .n = 64,
                                                    .k = 30,
                                                    .strideAm = 30,
                                                    .strideAk = 1,
                                                    .strideBk = 64,
                                                    .strideBn = 1,
                                                    .strideCm = 64,
                                                    .strideCn = 1,
                                                    .epilogue = ep},
                                         .batch = batch,
                                         .strideAb = s * 30,
                                         .strideBb = 0,
                                         .strideCb = s * 64,
                                         .strideBiasb = 64});
        tk::BatchedMatmulF32::launch(r, {.matrix = {.a = p,
                                                    .b = p,
                                                    .c = p,
                                                    .bias = p,
                                                    .m = s,
                                                    .n = 64,
                                                    .k = 30,
                                                    .strideAm = 30,
                                                    .strideAk = 1,
                                                    .strideBk = 64,
                                                    .strideBn = 1,
                                                    .strideCm = 64,
                                                    .strideCn = 1,
                                                    .epilogue = ep,
                                                    .tf32 = true},
                                         .batch = batch,
                                         .strideAb = s * 30,
                                         .strideBb = 0,
                                         .strideCb = s * 64,
                                         .strideBiasb = 64});
        tk::BatchedMatmulF16::launch(r, {.matrix = {.a = p,
                                                    .b = p,
                                                    .c = p,
                                                    .bias = p,
                                                    .m = s,
                                                    .n = 64,
                                                    .k = 32,
                                                    .strideAm = 32,
                                                    .strideAk = 1,
                                                    .strideBk = 64,
                                                    .strideBn = 1,
                                                    .strideCm = 64,
                                                    .strideCn = 1,
                                                    .epilogue = ep},
                                         .batch = batch,
                                         .strideAb = s * 32,
                                         .strideBb = 0,
                                         .strideCb = s * 64,
                                         .strideBiasb = 0});
        tk::BatchedMatmulBF16::launch(r, {.matrix = {.a = p,
                                                     .b = p,
                                                     .c = p,
                                                     .bias = p,
                                                     .m = s,
                                                     .n = 64,
                                                     .k = 30,
                                                     .strideAm = 1,
                                                     .strideAk = s,
                                                     .strideBk = 64,
                                                     .strideBn = 1,
                                                     .strideCm = 64,
                                                     .strideCn = 1,
                                                     .epilogue = ep},
                                          .batch = batch,
                                          .strideAb = s * 30,
                                          .strideBb = 30,
                                          .strideCb = s * 64,
                                          .strideBiasb = 0});
      }
    }
    tk::Linear::forward(r, p, p, p, p, 64, s, 128, true);
    tk::Linear::backwardData(r, p, p, p, 64, s, 128);
    tk::Linear::backwardWeight(r, p, p, p, 64, s, 128);
    tk::Linear::backwardBias(r, p, p, 64, s);
    tk::Linear::forward(r, p, p, p, p, 64, s, 128, true, p, int64_t(1) << 30); // split-K where s is long
    tk::Linear::forward(r, p, p, p, p, s, 3136, 10, false, p, int64_t(1) << 30);
    for (bool pool : {false, true}) { // channels split over programs (BatchNormSplit.h)
      if (pool && s < 2) continue;
      tk::ChannelStats st = tk::Conv2dForward::channelStats(p, 64, 1, s, 28, tk::ConvPrecision::Exact);
      tk::BatchNorm2dForwardSplit::launch(r, p, p, p, p, p, p, p, st, p, int64_t(1) << 30, 64, 5, s, 28, 1e-5f, true,
                                          pool);
      tk::BatchNorm2dForwardSplit::launch(r, p, p, p, p, p, p, p, st, p, int64_t(1) << 30, 64, 5, s, 28, 1e-5f, false,
                                          pool);
      for (bool relu : {false, true})
        for (tk::Address dxSum : {tk::Address(nullptr), p})
          tk::BatchNorm2dBackwardSplit::launch(r, p, p, p, p, p, p, p, p, p, p, dxSum, p, int64_t(1) << 30, 64, 5, s,
                                               28, relu, pool);
    }
  }
  std::set<std::string> seen;
  for (const Recorder::Call &c : r.calls) {
    bool ok = false, known = false;
    tk::AllKernels::forEach([&]<class D>() {
      if (c.kernel == D::name) known = true, ok = declared<D>(c.spec);
    });
    EXPECT_TRUE(known) << c.kernel << " is not in AllKernels";
    EXPECT_TRUE(ok) << c.kernel << " launched as [" << c.spec.str() << "], not among its variants()";
    seen.insert(c.kernel);
  }
  // Every library kernel was exercised.
  tk::AllKernels::forEach([&]<class D>() { EXPECT_TRUE(seen.count(D::name)) << D::name << " never launched"; });
}

// A launch runs the compiled specialisation with the most facts its arguments hold
// (rt::selectAotVariant: isSafeFor, then divisibilityFacts). The attention kernels assume
// nothing of their head count and group size (factFreeParams): a group size of 1 or 12 heads
// once held every launch to the pointers-only specialisation, whose descriptors lack the
// 16-element extents TMA stores and reduce-adds need (the one-pass backward added dQ by
// per-element atomics). Here the facts a launch's descriptors hold reach the specialisation
// it runs.
TEST(CpuLibraryDeclarations, AttentionDescriptorsKeepTheirFactsWhateverTheHeads) {
  const tk::Address p = uint64_t(1024);
  for (auto [heads, kvHeads] : {std::pair{16, 16}, std::pair{12, 12}, std::pair{16, 2}})
    for (tk::Address accum : {tk::Address(nullptr), tk::Address(p)}) {
      Recorder r;
      tk::AttentionProblem problem{p, p, p, p, p, 4, heads, kvHeads, 128, 4096};
      tk::AttentionForwardF16::launch(r, problem);
      tk::AttentionBackward<tile::f16>::launch(r, {problem, p, p, p, p, p, accum});
      for (const Recorder::Call &call : r.calls) {
        std::vector<Specialization> compiled;
        tk::AllKernels::forEach([&]<class D>() {
          if (call.kernel == D::name) compiled = aot::declaredVariants<D>();
        });
        const Specialization *best = nullptr;
        for (const Specialization &v : compiled)
          if (isSafeFor(v, call.spec) && (!best || divisibilityFacts(v) > divisibilityFacts(*best))) best = &v;
        ASSERT_NE(best, nullptr) << call.kernel << " [" << call.spec.str() << "]";
        for (size_t i = 0; i < call.spec.args.size(); ++i) {
          if (call.spec.args[i].kind != ArgKind::Desc) continue;
          EXPECT_EQ(best->args[i].div16, call.spec.args[i].div16)
              << call.kernel << " with " << heads << "/" << kvHeads << " heads runs [" << best->str() << "] for ["
              << call.spec.str() << "]";
        }
      }
    }
}

TEST(CpuLibraryDeclarations, AllKernelsHaveUniqueNamesAndTheRegistryFindsThem) {
  std::set<std::string> names;
  tk::AllKernels::forEach([&]<class D>() {
    EXPECT_TRUE(names.insert(D::name).second) << "duplicate name " << D::name;
    const KernelBase *k = tk::findKernel(D::name);
    ASSERT_NE(k, nullptr) << D::name;
    EXPECT_EQ(k->name(), D::name);
    EXPECT_EQ(k->params().size(), D::params.size());
    size_t consts = 0;
    for (const ParamDesc &p : k->params()) consts += p.kind == ArgKind::Const;
    EXPECT_FALSE(D::variants().empty()) << D::name;
    for (const tk::Variant &v : D::variants()) EXPECT_EQ(v.consts.size(), consts) << D::name;
  });
  EXPECT_EQ(names.size(), tk::libraryKernels().size());
  EXPECT_EQ(tk::findKernel("no_such_kernel"), nullptr);
  for (const char *n : {"vector_add", "softmax", "layernorm_fwd", "matmul_f32", "matmul_f16", "matmul_bf16"})
    EXPECT_TRUE(names.count(n)) << n << " (a stable AOT name) is missing";
}

} // namespace
