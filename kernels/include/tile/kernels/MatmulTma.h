//===- MatmulTma.h - C = A·B through tensor descriptors (TMA on sm_90a) ----===//
// Matmul.h includes it (Matmul::launch runs it for operands descriptors describe).
#pragma once

#include "tile/kernels/MatmulProblem.h"
#include "tile/kernels/Transpose.h"
#include "tile/runtime/Context.h"

#include <span>

namespace tile::kernels {

namespace detail {
/// One BM x BN tile of C = A·B (+ bias) (relu) at (m0, n0) through descriptors: the K loop
/// reads blocks of a and b (bᵀ when `bt`), the epilogue writes C's block through its
/// descriptor (TMA on sm_90a; masked stores elsewhere), rounded once to C's type. The K loop
/// warp-specialised where asked (LoopOptions: on sm_90a a producer warp issues the copies).
inline void matmulTmaTile(Value a, Value b, Value c, Value bias, Value n, Value k, Value m0, Value n0, int BM, int BN,
                          int BK, int EPILOGUE, bool bt, bool tf32, bool warpSpecialize = false) {
  Value acc = for_range(
      0, k, BK, zeros({BM, BN}, DType::f32),
      [&](Value k0, Value acc) {
        Value tileB = bt ? trans(load(b, {n0, k0}, {BN, BK})) : load(b, {k0, n0}, {BK, BN});
        return dot(load(a, {m0, k0}, {BM, BK}), tileB, acc, tf32 ? Precision::TF32 : Precision::IEEE);
      },
      LoopOptions{.warpSpecialize = warpSpecialize});
  Value rn = n0 + arange(0, BN);
  if (EPILOGUE != int(MatmulEpilogue::None)) acc = acc + row(load(bias + rn, rn < n, 0.0f));
  if (EPILOGUE == int(MatmulEpilogue::BiasRelu)) acc = maximum(acc, 0.0f);
  store(c, {m0, n0}, acc);
}

/// MatmulTma's kernel names, by inputs, C and b's layout.
constexpr const char *matmulTmaName(bool tf32, bool f16, bool halfOut, bool bt) {
  if (tf32) return "matmul_tma_tf32_bt";
  if (bt)
    return f16 ? (halfOut ? "matmul_tma_f16_bt_out_f16" : "matmul_tma_f16_bt")
               : (halfOut ? "matmul_tma_bf16_bt_out_bf16" : "matmul_tma_bf16_bt");
  return f16 ? (halfOut ? "matmul_tma_f16_out_f16" : "matmul_tma_f16")
             : (halfOut ? "matmul_tma_bf16_out_bf16" : "matmul_tma_bf16");
}
/// MatmulTmaPersistent's names: MatmulTma's with "persistent_" after "matmul_tma_".
constexpr const char *matmulTmaPersistentName(std::string_view tile) {
  for (const char *n : {"matmul_tma_persistent_f16_out_f16", "matmul_tma_persistent_bf16_out_bf16",
                        "matmul_tma_persistent_tf32_bt", "matmul_tma_persistent_f16", "matmul_tma_persistent_bf16",
                        "matmul_tma_persistent_f16_bt", "matmul_tma_persistent_bf16_bt",
                        "matmul_tma_persistent_f16_bt_out_f16", "matmul_tma_persistent_bf16_bt_out_bf16"})
    if (std::string_view(n).substr(22) == tile.substr(11)) return n;
  return "";
}
} // namespace detail

/// C[M, N] = A[M, K] · B[K, N] (+ bias[N]) (then relu) for row-major A and B (or bᵀ = B
/// transposed, row-major [N, K]: `BL`) that tensor descriptors describe (16-byte aligned,
/// rows of a multiple of 16 bytes), f32 accumulation. Inputs f16/bf16, C f32 (C = float)
/// or the inputs' type (C = T: one rounding at the store, what torch.matmul and Triton's
/// tutorial write); or f32 inputs multiplied as TF32 (bᵀ only, C f32). Matmul's program
/// with its K loop reading both operands as TensorDesc blocks: on sm_90a they move by TMA
/// into the wgmma rings (cp.async.bulk.tensor on mbarriers: no thread computes an address);
/// elsewhere, and on the CPU executor, by masked loads like Matmul's.
///
/// TF32 on Hopper's wgmma: the tensor cores would ignore the 13 low bits of the f32 they read
/// (truncation), so the TMA copies round the operands on their way into shared memory (maps of
/// type TFLOAT32: to nearest, ties to even); mma.sync and the CPU executor round with cvt.rna
/// (to nearest, ties away from zero).
template <class T, class C = float, MatmulB BL = MatmulB::RowMajor> struct MatmulTma {
  static constexpr bool kTf32 = std::is_same_v<T, float>;
  static constexpr bool kHalfOut = !std::is_same_v<C, float>;
  static constexpr bool kBt = BL == MatmulB::Transposed;
  static_assert(std::is_same_v<T, f16> || std::is_same_v<T, bf16> || kTf32, "MatmulTma is for f16/bf16 or f32 inputs");
  static_assert(std::is_same_v<C, float> || std::is_same_v<C, T>, "C is f32 or the inputs' type");
  static_assert(!kTf32 || kBt, "wgmma reads tf32 operands K-major only: f32 inputs need bᵀ (MatmulB::Transposed)");
  static constexpr const char *name = detail::matmulTmaName(kTf32, std::is_same_v<T, f16>, kHalfOut, kBt);
  static constexpr int kElemBytes = int(sizeof(T));

  static constexpr auto body = [](TensorDesc<T, 2> a, TensorDesc<T, 2> b, TensorDesc<C, 2> c, Ptr<float> bias, I32 m,
                                  I32 n, I32 k, Const<int> BM, Const<int> BN, Const<int> BK, Const<int> GROUP_M,
                                  Const<int> EPILOGUE, Const<int> WARP_SPECIALIZE) {
    auto [pidM, pidN] = detail::groupedTile(program_id(0), m, n, BM, BN, GROUP_M);
    detail::matmulTmaTile(a, b, c, bias, n, k, pidM * BM, pidN * BN, BM, BN, BK, EPILOGUE, kBt, kTf32,
                          WARP_SPECIALIZE != 0);
  };
  static constexpr std::array params{"a",  "b",       "c",        "bias",           "m", "n", "k", "BM", "BN",
                                     "BK", "GROUP_M", "EPILOGUE", "WARP_SPECIALIZE"};

  /// bench/'s sweeps (epilogue None): f16 with f32 C beside the library's two wgmma tiles,
  /// and TF32's (its 32-element K steps are 128 bytes, as f16's 64).
  static constexpr MatmulConfig kSweep[] = {{128, 256, 32, 8, 6}, {128, 256, 64, 8, 3}, {128, 128, 64, 4, 4},
                                            {128, 128, 64, 8, 4}, {256, 128, 64, 8, 4}, {128, 256, 32, 8, 4},
                                            {128, 128, 64, 4, 3}, {64, 128, 64, 4, 4},  {64, 256, 64, 4, 4}};
  /// The last three of kTf32Sweep, and kHalfOutSweep (f16 with C in f16): deeper rings and other
  /// shapes for 1024^3, whose 16-32 K steps leave the copies' latency little to hide behind
  /// (tiles()' mediumDeep was the winner).
  static constexpr MatmulConfig kTf32Sweep[] = {{128, 256, 32, 8, 3}, {128, 128, 32, 8, 4}, {128, 128, 32, 4, 6},
                                                {256, 128, 32, 8, 4}, {128, 128, 64, 8, 3}, {128, 256, 16, 8, 6},
                                                {128, 128, 32, 4, 5}, {64, 128, 32, 4, 6},  {64, 256, 32, 4, 4}};
  static constexpr MatmulConfig kHalfOutSweep[] = {
      {128, 128, 64, 4, 5}, {128, 128, 64, 4, 6}, {64, 128, 64, 4, 6}, {64, 256, 64, 4, 4}};
  static constexpr bool kHasSweep = kTf32 || (!kBt && std::is_same_v<T, f16>);
  /// Warp-specialised tiles (every kind): 128 x 256 and 128 x 128 on two consumer warpgroups,
  /// beside the producer warpgroup; the first for every epilogue and ragged shapes too.
  static constexpr MatmulConfig kWarpSpecialized[] = {{128, 256, kTf32 ? 32 : 64, 8, 4, true},
                                                      {128, 128, kTf32 ? 32 : 64, 8, 4, true}};
  static constexpr std::span<const MatmulConfig> sweep() {
    if constexpr (kTf32) return kTf32Sweep;
    else if constexpr (kHasSweep && kHalfOut) return kHalfOutSweep;
    else if constexpr (kHasSweep) return kSweep;
    else return {};
  }

  /// The library's tiles by role (tileFor). TF32's take half the K step: the same bytes per stage.
  struct Tiles {
    MatmulConfig large;      ///< 128 x 256: Matmul's wgmma tile
    MatmulConfig square;     ///< 128 x 128, one warpgroup: Matmul's other tile
    MatmulConfig medium;     ///< 64 x 128, 4 deep
    MatmulConfig small;      ///< 64 x 64, the compiler's default stages: Matmul's small tile
    MatmulConfig smallDeep;  ///< 64 x 64, 8 deep: the long K loops of skinny products
    MatmulConfig narrowDeep; ///< 64 x 32, 8 deep: the skinniest
    MatmulConfig mediumDeep; ///< 64 x 128, 8 deep (192 KB: one program per SM): grids of at most one wave
  };
  static constexpr Tiles kTiles =
      kTf32 ? Tiles{{128, 256, 32, 8, 4}, {128, 128, 32, 4, 4}, {64, 128, 32, 4, 4}, {64, 64, 32, 4, 4},
                    {64, 64, 32, 4, 8},   {64, 32, 32, 4, 8},   {64, 128, 32, 4, 8}}
            : Tiles{kMatmulTensorCoreLarge, kMatmulTensorCore,  {64, 128, 64, 4, 4}, kMatmulTensorCoreSmall,
                    {64, 64, 64, 4, 8},     {64, 32, 64, 4, 8}, {64, 128, 64, 4, 8}};
  /// The order of variants() (the AOT PTX files number the variants: matmul_tma_f16_0 is the
  /// large tile, epilogue None).
  static std::vector<MatmulConfig> tiles() {
    const Tiles &t = kTiles;
    return {t.large, t.square, t.medium, t.small, t.smallDeep, t.narrowDeep, t.mediumDeep};
  }
  /// The first tile whose grid fills a wave (7/8 of the SMs; the 128 x 128 tile two waves, else
  /// its one warpgroup per SM idles half the tensor cores): large, square, medium, smallDeep, else
  /// narrowDeep. mediumDeep instead of medium where its grid is at most one wave: a program per SM
  /// either way, and the deeper ring hides the copies of a short K loop (1024^3 on an H100: f16
  /// 176-181 TFLOP/s against 155-157 four deep, TF32 135 against 97; bench/NOTES.md).
  static MatmulConfig tileFor(int64_t m, int64_t n) {
    const Tiles &t = kTiles;
    auto programs = [&](const MatmulConfig &c) { return ceilDiv(m, c.bm) * ceilDiv(n, c.bn); };
    if (programs(t.large) * 8 >= kMatmulWaveTiles * 7) return t.large;
    if (programs(t.square) * 8 >= kMatmulWaveTiles * 14) return t.square;
    if (programs(t.medium) * 8 >= kMatmulWaveTiles * 7)
      return programs(t.medium) <= kMatmulWaveTiles ? t.mediumDeep : t.medium;
    if (programs(t.smallDeep) * 8 >= kMatmulWaveTiles * 7) return t.smallDeep;
    return t.narrowDeep;
  }
  static bool hasTile(const MatmulConfig &c) {
    auto same = [&](const MatmulConfig &t) {
      return t.bm == c.bm && t.bn == c.bn && t.bk == c.bk && t.numWarps == c.numWarps && t.numStages == c.numStages &&
             t.warpSpecialize == c.warpSpecialize;
    };
    for (const MatmulConfig &t : tiles())
      if (same(t)) return true;
    for (const MatmulConfig &t : sweep())
      if (same(t)) return true;
    for (const MatmulConfig &t : kWarpSpecialized)
      if (same(t)) return true;
    return false;
  }

  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    // Every specialisation (ragged shapes too: the copies are TMA's whatever the facts).
    for (int epilogue = 0; epilogue < 3; ++epilogue)
      for (const MatmulConfig &t : tiles())
        v.push_back({{t.bm, t.bn, t.bk, kMatmulGroupM, epilogue, 0}, t.numWarps, /*unitOnly=*/false, t.numStages});
    for (const MatmulConfig &t : sweep())
      v.push_back({{t.bm, t.bn, t.bk, kMatmulGroupM, 0, 0}, t.numWarps, /*unitOnly=*/true, t.numStages});
    const MatmulConfig &w = kWarpSpecialized[0], &w1 = kWarpSpecialized[1];
    for (int epilogue = 0; epilogue < 3; ++epilogue)
      v.push_back({{w.bm, w.bn, w.bk, kMatmulGroupM, epilogue, 1}, w.numWarps, /*unitOnly=*/false, w.numStages});
    v.push_back({{w1.bm, w1.bn, w1.bk, kMatmulGroupM, 0, 1}, w1.numWarps, /*unitOnly=*/true, w1.numStages});
    return v;
  }

  /// C = A·B (+ bias) (relu) for row-major A [m, k] and B [k, n] (bᵀ [n, k] when BL is
  /// Transposed) with row strides lda and ldb, C with row stride ldc (elements). Refuses
  /// operands a descriptor cannot describe, naming the rule (Matmul<T>::launch takes any
  /// strides). The tile: tileFor's (`config`: one of tiles(), or of sweep()).
  static void launch(Launcher &l, const MatmulTmaProblem &p, CUstream stream = nullptr,
                     const MatmulConfig *config = nullptr) {
    detail::checkMatmulArgs(name, true, detail::stridedProblem(p));
    if (p.m == 0 || p.n == 0) return;
    if (std::string why = whyNotDescribable(p); !why.empty()) fail(name, why);
    if (config && !hasTile(*config)) fail(name, "no compiled variant has the requested tile");
    launchTile(l, config ? *config : tileFor(p.m, p.n), p, stream);
  }

  /// The three operands' descriptors: a [m, k], b [k, n] (bᵀ [n, k]) and c [m, n], rows of
  /// strides lda, ldb and ldc elements.
  struct Operands {
    TensorDescArg a, b, c;
  };
  static Operands operands(const MatmulTmaProblem &p) {
    return {TensorDescArg{p.a.ptr(), {p.m, p.k}, {p.lda, 1}},
            kBt ? TensorDescArg{p.b.ptr(), {p.n, p.k}, {p.ldb, 1}} : TensorDescArg{p.b.ptr(), {p.k, p.n}, {p.ldb, 1}},
            TensorDescArg{p.c.ptr(), {p.m, p.n}, {p.ldc, 1}}};
  }

  /// "" when descriptors describe the three operands (TMA's rules: 16-byte aligned bases and
  /// rows), else the first rule broken, naming the operand.
  static std::string whyNotDescribable(const MatmulTmaProblem &p) {
    const Operands o = operands(p);
    for (auto [desc, bytes, what] : {std::tuple{&o.a, kElemBytes, "operand a"},
                                     {&o.b, kElemBytes, kBt ? "operand bT" : "operand b"},
                                     {&o.c, int(sizeof(C)), "operand c"}})
      if (std::string why = checkTensorDesc(what, *desc, 2, bytes); !why.empty()) return why;
    return {};
  }

  /// TF32 C = A·B for a dense row-major B [k, n] (p.ldb = n): B is first transposed into
  /// `workspace` (k * n floats, Transpose), which wgmma then reads K-major. The transpose moves
  /// 8 k n bytes (at 4096^3 about 30 us against the product's 0.4 ms at cuBLAS's TF32 rate).
  static void launchTransposingB(Launcher &l, const MatmulTmaProblem &p, Address workspace, int64_t workspaceFloats,
                                 CUstream stream = nullptr, const MatmulConfig *config = nullptr)
    requires kTf32
  {
    if (p.ldb != p.n) fail(name, "launchTransposingB reads a dense b [k, n]: ldb = " + num(p.ldb) + ", not n");
    if (workspaceFloats < p.k * p.n)
      fail(name, "the workspace holds " + num(workspaceFloats) + " floats; bᵀ needs k * n = " + num(p.k * p.n));
    Transpose::launch(l, p.b, workspace, p.k, p.n, stream);
    MatmulTmaProblem transposed = p;
    transposed.b = workspace;
    transposed.ldb = p.k;
    launch(l, transposed, stream, config);
  }

  /// The launch for a checked problem and chosen tile (Matmul::launch's path too).
  static void launchTile(Launcher &l, const MatmulConfig &cfg, const MatmulTmaProblem &p, CUstream stream) {
    const Operands o = operands(p);
    launchKernel<MatmulTma>(l, {ceilDiv(p.m, cfg.bm) * ceilDiv(p.n, cfg.bn)}, {cfg.numWarps, cfg.numStages}, stream,
                            o.a, o.b, o.c, p.bias, int32_t(p.m), int32_t(p.n), int32_t(p.k), cfg.bm, cfg.bn, cfg.bk,
                            kMatmulGroupM, int(p.epilogue), int(cfg.warpSpecialize));
  }
};

/// MatmulTma's product on a persistent grid: one program per SM (at most one per tile) walks
/// the tiles t = program_id, program_id + programs, ... in MatmulTma's grouped order, each
/// tile's K loop then its epilogue (the C block through its descriptor: a TMA store on
/// sm_90a). On sm_90a tile-pipeline keeps the TMA copies running across tiles, the rings and
/// mbarriers set up once per program: with the K loop warp-specialised (the default tile), a
/// producer warp issues every copy and runs into the next tile's blocks while the consumers
/// store a tile; without, the last iterations of one tile's K loop load the next tile's first
/// blocks.
template <class T, class C = float, MatmulB BL = MatmulB::RowMajor> struct MatmulTmaPersistent {
  using Tile = MatmulTma<T, C, BL>;
  static constexpr const char *name = detail::matmulTmaPersistentName(Tile::name);
  static constexpr auto body = [](TensorDesc<T, 2> a, TensorDesc<T, 2> b, TensorDesc<C, 2> c, Ptr<float> bias, I32 m,
                                  I32 n, I32 k, Const<int> BM, Const<int> BN, Const<int> BK, Const<int> GROUP_M,
                                  Const<int> EPILOGUE, Const<int> WARP_SPECIALIZE) {
    Value tiles = ((m + (BM - 1)) / BM) * ((n + (BN - 1)) / BN);
    for_range(program_id(0), tiles, num_programs(0), [&](Value t) {
      auto [pidM, pidN] = detail::groupedTile(t, m, n, BM, BN, GROUP_M);
      detail::matmulTmaTile(a, b, c, bias, n, k, pidM * BM, pidN * BN, BM, BN, BK, EPILOGUE, Tile::kBt, Tile::kTf32,
                            WARP_SPECIALIZE != 0);
    });
  };
  static constexpr std::array params = Tile::params;

  /// The persistent tiles, the first the default: the rings live across tiles beside the
  /// epilogue's staging buffer of the C block (TMA store), so they cannot be as deep as
  /// MatmulTma's (227 KB per block on Hopper), and the epilogue's two paths (TMA store, or
  /// masked stores for a block starting outside C) leave no registers for 128 x 256 tiles
  /// (255 and spills, ptxas): 128 x 128 on two warpgroups. bench/'s sweep times the other.
  /// The default's K loop is warp-specialised: a producer warp keeps loading the next tile's
  /// blocks while the consumers finish and store a tile (f16 4096^3 on an H200: 636 TFLOP/s
  /// against 533 for the same tile without, bench/NOTES.md). Then the same tiles without. (128 x
  /// 256 warp-specialised, in a 3-deep ring beside its 64 KB C block, ran at 725, but ptxas
  /// spills 136 bytes of its consumers' 232 registers: not a library tile.)
  static std::vector<MatmulConfig> tiles() {
    if constexpr (Tile::kTf32) return {{128, 128, 32, 8, 4, true}, {128, 128, 32, 8, 4}, {128, 128, 32, 8, 5}};
    else return {{128, 128, 64, 8, 5, true}, {128, 128, 64, 8, 5}, {128, 128, 64, 8, 4}};
  }
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    const std::vector<MatmulConfig> t = tiles();
    for (int epilogue = 0; epilogue < 3; ++epilogue)
      v.push_back({{t[0].bm, t[0].bn, t[0].bk, kMatmulGroupM, epilogue, t[0].warpSpecialize},
                   t[0].numWarps,
                   false,
                   t[0].numStages});
    for (size_t i = 1; i < t.size(); ++i)
      v.push_back(
          {{t[i].bm, t[i].bn, t[i].bk, kMatmulGroupM, 0, t[i].warpSpecialize}, t[i].numWarps, false, t[i].numStages});
    return v;
  }

  /// As MatmulTma::launch, on min(tiles, programs) programs: `programs` 0 = the GPU's SMs;
  /// `config` one of tiles() (the others: epilogue None only).
  static void launch(Launcher &l, const MatmulTmaProblem &p, CUstream stream = nullptr, int64_t programs = 0,
                     const MatmulConfig *config = nullptr) {
    detail::checkMatmulArgs(name, true, detail::stridedProblem(p));
    if (p.m == 0 || p.n == 0) return;
    if (std::string why = Tile::whyNotDescribable(p); !why.empty()) fail(name, why);
    const MatmulConfig cfg = config ? *config : tiles()[0];
    const std::vector<Variant> declared = variants();
    if (std::none_of(declared.begin(), declared.end(), [&](const Variant &v) {
          return v.consts[0] == cfg.bm && v.consts[1] == cfg.bn && v.consts[2] == cfg.bk &&
                 v.consts[4] == int(p.epilogue) && v.consts[5] == int(cfg.warpSpecialize) &&
                 v.numWarps == cfg.numWarps && v.numStages == cfg.numStages;
        }))
      fail(name, "no compiled variant has the requested tile and epilogue");
    if (programs <= 0) programs = l.hostMemory() ? 1 : rt::Context::get().info().smCount;
    const int64_t grid = std::min(ceilDiv(p.m, cfg.bm) * ceilDiv(p.n, cfg.bn), programs);
    const typename Tile::Operands o = Tile::operands(p);
    launchKernel<MatmulTmaPersistent>(l, {grid}, {cfg.numWarps, cfg.numStages}, stream, o.a, o.b, o.c, p.bias,
                                      int32_t(p.m), int32_t(p.n), int32_t(p.k), cfg.bm, cfg.bn, cfg.bk, kMatmulGroupM,
                                      int(p.epilogue), int(cfg.warpSpecialize));
  }
};

using MatmulTmaF16 = MatmulTma<f16>;
using MatmulTmaBF16 = MatmulTma<bf16>;
using MatmulTmaF16OutF16 = MatmulTma<f16, f16>;
using MatmulTmaBF16OutBF16 = MatmulTma<bf16, bf16>;
/// bᵀ operands (y = x·Wᵀ with W [N, K] as nn.Linear keeps it).
using MatmulTmaTf32Bt = MatmulTma<float, float, MatmulB::Transposed>;
using MatmulTmaF16BtOutF16 = MatmulTma<f16, f16, MatmulB::Transposed>;
using MatmulTmaBF16BtOutBF16 = MatmulTma<bf16, bf16, MatmulB::Transposed>;
TILE_LIBRARY_KERNEL(MatmulTmaF16);
TILE_LIBRARY_KERNEL(MatmulTmaBF16);
TILE_LIBRARY_KERNEL(MatmulTmaF16OutF16);
TILE_LIBRARY_KERNEL(MatmulTmaBF16OutBF16);
TILE_LIBRARY_KERNEL(MatmulTmaTf32Bt);
TILE_LIBRARY_KERNEL(MatmulTmaF16BtOutF16);
TILE_LIBRARY_KERNEL(MatmulTmaBF16BtOutBF16);
using MatmulTmaPersistentF16OutF16 = MatmulTmaPersistent<f16, f16>;
using MatmulTmaPersistentBF16OutBF16 = MatmulTmaPersistent<bf16, bf16>;
using MatmulTmaPersistentTf32Bt = MatmulTmaPersistent<float, float, MatmulB::Transposed>;
TILE_LIBRARY_KERNEL(MatmulTmaPersistentF16OutF16);
TILE_LIBRARY_KERNEL(MatmulTmaPersistentBF16OutBF16);
TILE_LIBRARY_KERNEL(MatmulTmaPersistentTf32Bt);

} // namespace tile::kernels
