// The library's BatchedMatmul (kernels/include/tile/kernels/BatchedMatmul.h) on the CPU
// executor, launched by its shape-level launcher through DslLauncher, against float64
// references (test/common/BatchedMatmulCheck.h): f32 (exact FMA), TF32, f16 and bf16 on
// ragged shapes, transposed, permuted and broadcast (batch stride 0) operands, every
// epilogue; outputs poisoned first, NaN never passes, C's padding never written. Bounds:
// within 1e-6 of float64 of the factors the kernel multiplies (f32 accumulation of exact
// products), and within inputTolerance() of float64 of the unrounded inputs, relative to
// Σ|a·b| + |bias| (f32 1e-6, tf32 and f16 1.1e-3, bf16 8e-3). Also checking mode (argument errors: cpu_library_launch_tests.cpp).
#include "cpu_test_util.h"

#include "../common/BatchedMatmulCheck.h"

#include "tile/kernels/BatchedMatmul.h"
#include "tile/kernels/DslLauncher.h"

#include <memory>

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;

namespace {

constexpr double kFactorTolerance = 1e-6;

class CpuBatchedMatmul : public Seeded {
protected:
  /// Runs one problem through BatchedMatmul<T>::launch; with `check`, in checking mode
  /// over buffers registered for exactly the problem's storage (C registered unwritten).
  void run(MatmulInput input, const BatchedMatmulCase &cs, bool check = false) {
    SCOPED_TRACE(std::string(inputName(input)) + " " + cs.str());
    BatchedMatmulProblem p = makeBatchedMatmul(input, cs, gen_);
    std::vector<float> c = poisoned(size_t(p.c.size));
    tk::DslLauncher cpu(Executor::CPU, check);
    {
      std::vector<std::unique_ptr<cpu::ScopedBuffer>> buffers;
      if (check) {
        buffers.push_back(std::make_unique<cpu::ScopedBuffer>(p.aData(), p.aBytes()));
        buffers.push_back(std::make_unique<cpu::ScopedBuffer>(p.bData(), p.bBytes()));
        buffers.push_back(std::make_unique<cpu::ScopedBuffer>(c.data(), c.size() * sizeof(float), false));
        buffers.push_back(std::make_unique<cpu::ScopedBuffer>(p.bias.data(), p.bias.size() * sizeof(float)));
      }
      auto address = [](const void *ptr) { return uint64_t(reinterpret_cast<uintptr_t>(ptr)); };
      launchBatchedMatmul(cpu, p, address(p.aData()), address(p.bData()), address(c.data()), address(p.bias.data()));
    }
    EXPECT_TRUE(checkBatchedMatmul(p, c, kFactorTolerance));
  }
  void runAll(MatmulInput input) {
    for (const BatchedMatmulCase &cs : batchedMatmulCases()) run(input, cs);
  }
};

TEST_F(CpuBatchedMatmul, F32) { runAll(MatmulInput::F32); }
TEST_F(CpuBatchedMatmul, TF32) { runAll(MatmulInput::TF32); }
TEST_F(CpuBatchedMatmul, F16) { runAll(MatmulInput::F16); }
TEST_F(CpuBatchedMatmul, BF16) { runAll(MatmulInput::BF16); }

// The tiles the launcher picks for a full wave of problems (f16: 128 x 128 x 32) and a
// random ragged shape.
TEST_F(CpuBatchedMatmul, FullWaveAndRandomShapes) {
  run(MatmulInput::F16, {33, 256, 256, 64, Storage::RowMajor, Storage::RowMajor, Storage::RowMajor, 2, false, 0});
  for (MatmulInput input : {MatmulInput::F32, MatmulInput::BF16}) {
    BatchedMatmulCase cs{uniformInt(1, 6), uniformInt(1, 150), uniformInt(1, 150), uniformInt(1, 150)};
    cs.a = uniformInt(0, 1) ? Storage::RowMajor : Storage::ColMajor;
    cs.b = uniformInt(0, 1) ? Storage::Broadcast : Storage::ColMajor;
    cs.epilogue = int(uniformInt(0, 2));
    cs.pad = uniformInt(0, 5);
    run(input, cs);
  }
}

// Checking mode: every access of the masked edges, the broadcast operand and the
// permuted layouts falls inside the registered buffers and reads only written bytes.
TEST_F(CpuBatchedMatmul, CheckingMode) {
  using S = Storage;
  run(MatmulInput::F32, {3, 37, 50, 21, S::ColMajor, S::Broadcast, S::BatchInner, 2, true}, /*check=*/true);
  run(MatmulInput::F16, {2, 33, 17, 9, S::BatchInner, S::RowMajor, S::RowMajor, 1}, /*check=*/true);
}

} // namespace
