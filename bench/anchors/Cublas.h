//===- Cublas.h - cuBLAS and cuBLASLt as the matmul anchor, loaded at run time ----===//
// The product ours computes, through the vendor library on the same device buffers: row-major
// C[m, n] = A[m, k] · B, B row-major [k, n] (or bᵀ [n, k]), f32 accumulation, C in the inputs' type
// (f16/bf16) or f32 (TF32). cuBLAS is column-major, so it is asked for Cᵀ = Bᵀ·Aᵀ (operands swapped,
// no transposes), which is how torch.matmul calls it for contiguous tensors: the same bytes read, the
// same bytes written. libcublas.so.13 (or .12) and libcublasLt are dlopen'ed: bench_anchors links
// neither.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tile::bench {

enum class GemmType { F16, BF16, Tf32 };

struct GemmProblem {
  GemmType type;
  int64_t m, n, k;
  bool bTransposed; ///< B given as bᵀ [n, k] (x·Wᵀ) instead of [k, n]
  CUdeviceptr a, b, c;
};

/// One cuBLASLt algorithm for a problem (cublasLtMatmulAlgoGetHeuristic's ranking).
struct LtAlgorithm {
  int rank; ///< its place in the heuristic's list (0: what the heuristic would run)
  size_t workspaceBytes;
};

class Cublas {
public:
  /// Loads the libraries and creates the handles once (the runtime's GPU must exist); nullptr with
  /// *why (one line) where a library or entry point is missing. Lives until the process exits.
  static Cublas *get(std::string *why);
  /// "cuBLAS 130100, cuBLASLt 130100".
  std::string versions() const;
  /// cublasGemmEx with the default algorithm and math mode (tensor cores allowed), on a 32 MiB workspace
  /// (PyTorch's size for Hopper), on the legacy default stream.
  void gemm(const GemmProblem &p);

  /// A prepared cuBLASLt matmul: its descriptors and the heuristic's algorithms (at most `max`).
  class LtPlan;
  std::shared_ptr<LtPlan> ltPlan(const GemmProblem &p, int max);
  std::vector<LtAlgorithm> ltAlgorithms(const LtPlan &plan) const;
  void lt(const LtPlan &plan, int rank);

private:
  Cublas() = default;
  void *handle_ = nullptr, *ltHandle_ = nullptr;
  CUdeviceptr workspace_ = 0;
  size_t workspaceBytes_ = 0;
};

} // namespace tile::bench
