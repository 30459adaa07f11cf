//===- Cublas.cpp - cuBLAS / cuBLASLt entry points resolved by dlsym ----===//
#include "Cublas.h"

#include "Loader.h"

#include "tile/runtime/Memory.h"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <stdexcept>

namespace tile::bench {

namespace {

#define TILE_CUBLASLT_SYMBOLS(X)                                                                                       \
  X(create, cublasLtCreate)                                                                                            \
  X(getVersion, cublasLtGetVersion)                                                                                    \
  X(descCreate, cublasLtMatmulDescCreate)                                                                              \
  X(descDestroy, cublasLtMatmulDescDestroy)                                                                            \
  X(descSet, cublasLtMatmulDescSetAttribute)                                                                           \
  X(layoutCreate, cublasLtMatrixLayoutCreate)                                                                          \
  X(layoutDestroy, cublasLtMatrixLayoutDestroy)                                                                        \
  X(prefCreate, cublasLtMatmulPreferenceCreate)                                                                        \
  X(prefDestroy, cublasLtMatmulPreferenceDestroy)                                                                      \
  X(prefSet, cublasLtMatmulPreferenceSetAttribute)                                                                     \
  X(heuristic, cublasLtMatmulAlgoGetHeuristic)                                                                         \
  X(matmul, cublasLtMatmul)

struct CublasLtApi {
  TILE_CUBLASLT_SYMBOLS(TILE_BENCH_MEMBER)
};
// cuBLAS's entry points (test/common/cudnn_api.h), set once the library loads; cuBLASLt's here.
const reference::CublasApi *gBlas = nullptr;
CublasLtApi gLt;

std::string fillLt(void *lib, CublasLtApi &api) {
  TILE_CUBLASLT_SYMBOLS(TILE_BENCH_RESOLVE)
  return "";
}

using reference::check;

cudaDataType inputType(GemmType t) {
  return t == GemmType::F16 ? CUDA_R_16F : t == GemmType::BF16 ? CUDA_R_16BF : CUDA_R_32F;
}
cublasComputeType_t computeType(GemmType t) {
  return t == GemmType::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

// A row-major X [r, c] with row stride ld is, read column-major, Xᵀ (c x r, ld). So row-major C = A·B is the
// column-major Cᵀ = Bᵀ·Aᵀ: cuBLAS's first operand is B's storage (n x k, ld n, as is; bᵀ [n, k] is stored
// k x n, ld k, and transposed), its second A's storage (k x m, ld k, as is), C's storage n x m (ld n).
struct ColumnMajor {
  cublasOperation_t opFirst;
  int64_t ldFirst, ldSecond, ldC;
};
ColumnMajor columnMajor(const GemmProblem &p) {
  return {p.bTransposed ? CUBLAS_OP_T : CUBLAS_OP_N, p.bTransposed ? p.k : p.n, p.k, p.n};
}

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

} // namespace

Cublas *Cublas::get(std::string *why) {
  struct Loaded {
    Cublas *blas = nullptr;
    std::string why;
  };
  static const Loaded once = [] {
    Loaded l;
    gBlas = reference::cublasApi(&l.why);
    void *ltLib = gBlas ? openLibrary({"libcublasLt.so.13", "libcublasLt.so.12"}, &l.why) : nullptr;
    if (!ltLib) return l;
    if (std::string missing = fillLt(ltLib, gLt); !missing.empty()) {
      l.why = "libcublasLt lacks " + missing;
      return l;
    }
    auto *c = new Cublas; // never freed: handles and workspace live until exit
    cublasHandle_t h = nullptr;
    cublasLtHandle_t lt = nullptr;
    try {
      check(gBlas->create(&h), "cublasCreate");
      check(gLt.create(&lt), "cublasLtCreate");
      c->workspace_ = (new rt::DeviceBuffer(kWorkspaceBytes))->ptr();
      c->workspaceBytes_ = kWorkspaceBytes;
      check(gBlas->setWorkspace(h, reinterpret_cast<void *>(c->workspace_), kWorkspaceBytes), "cublasSetWorkspace");
    } catch (const std::exception &e) {
      l.why = e.what();
      return l;
    }
    c->handle_ = h, c->ltHandle_ = lt;
    l.blas = c;
    return l;
  }();
  if (!once.blas && why) *why = once.why;
  return once.blas;
}

std::string Cublas::versions() const {
  int v = 0;
  gBlas->getVersion(static_cast<cublasHandle_t>(handle_), &v);
  return "cuBLAS " + std::to_string(v) + ", cuBLASLt " + std::to_string(gLt.getVersion());
}

void Cublas::gemm(const GemmProblem &p) {
  const ColumnMajor cm = columnMajor(p);
  const float one = 1.0f, zero = 0.0f;
  const cudaDataType in = inputType(p.type);
  check(gBlas->gemmEx(static_cast<cublasHandle_t>(handle_), cm.opFirst, CUBLAS_OP_N, int(p.n), int(p.m), int(p.k), &one,
                      reinterpret_cast<const void *>(p.b), in, int(cm.ldFirst), reinterpret_cast<const void *>(p.a), in,
                      int(cm.ldSecond), &zero, reinterpret_cast<void *>(p.c), in, int(cm.ldC), computeType(p.type),
                      CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

class Cublas::LtPlan {
public:
  ~LtPlan() {
    for (cublasLtMatrixLayout_t l : {first, second, out})
      if (l) gLt.layoutDestroy(l);
    if (desc) gLt.descDestroy(desc);
  }
  GemmProblem problem{};
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, out = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> algorithms;
};

std::shared_ptr<Cublas::LtPlan> Cublas::ltPlan(const GemmProblem &p, int max) {
  auto plan = std::make_shared<LtPlan>();
  plan->problem = p;
  const ColumnMajor cm = columnMajor(p);
  const cudaDataType in = inputType(p.type);
  check(gLt.descCreate(&plan->desc, computeType(p.type), CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t opSecond = CUBLAS_OP_N;
  check(gLt.descSet(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &cm.opFirst, sizeof cm.opFirst), "TRANSA");
  check(gLt.descSet(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opSecond, sizeof opSecond), "TRANSB");
  // Stored shapes (rows x cols, column-major): the first operand n x k (or k x n when transposed), the second k x m.
  check(gLt.layoutCreate(&plan->first, in, p.bTransposed ? p.k : p.n, p.bTransposed ? p.n : p.k, cm.ldFirst),
        "cublasLtMatrixLayoutCreate");
  check(gLt.layoutCreate(&plan->second, in, p.k, p.m, cm.ldSecond), "cublasLtMatrixLayoutCreate");
  check(gLt.layoutCreate(&plan->out, in, p.n, p.m, cm.ldC), "cublasLtMatrixLayoutCreate");
  cublasLtMatmulPreference_t pref = nullptr;
  check(gLt.prefCreate(&pref), "cublasLtMatmulPreferenceCreate");
  const uint64_t limit = workspaceBytes_;
  gLt.prefSet(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit, sizeof limit);
  plan->algorithms.resize(size_t(max));
  int found = 0;
  const cublasStatus_t s =
      gLt.heuristic(static_cast<cublasLtHandle_t>(ltHandle_), plan->desc, plan->first, plan->second, plan->out,
                    plan->out, pref, max, plan->algorithms.data(), &found);
  gLt.prefDestroy(pref);
  check(s, "cublasLtMatmulAlgoGetHeuristic");
  plan->algorithms.resize(size_t(found));
  return plan;
}

std::vector<LtAlgorithm> Cublas::ltAlgorithms(const LtPlan &plan) const {
  std::vector<LtAlgorithm> v;
  for (size_t i = 0; i < plan.algorithms.size(); ++i)
    if (plan.algorithms[i].state == CUBLAS_STATUS_SUCCESS) v.push_back({int(i), plan.algorithms[i].workspaceSize});
  return v;
}

void Cublas::lt(const LtPlan &plan, int rank) {
  const GemmProblem &p = plan.problem;
  const cublasLtMatmulHeuristicResult_t &h = plan.algorithms.at(size_t(rank));
  const float one = 1.0f, zero = 0.0f;
  check(gLt.matmul(static_cast<cublasLtHandle_t>(ltHandle_), plan.desc, &one, reinterpret_cast<const void *>(p.b),
                   plan.first, reinterpret_cast<const void *>(p.a), plan.second, &zero, reinterpret_cast<void *>(p.c),
                   plan.out, reinterpret_cast<void *>(p.c), plan.out, &h.algo, reinterpret_cast<void *>(workspace_),
                   workspaceBytes_, nullptr),
        "cublasLtMatmul");
}

} // namespace tile::bench
