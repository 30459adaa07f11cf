#!/usr/bin/env python3
"""PyTorch and Triton anchors for bench_kernels: the same shapes, the same `RESULT <name> <shape> <gbps> <us>`
lines (names torch_* / triton_*), so scripts/gpu-check.sh can put them side by side with ours (tile_*).

Runs on the GPU machine, where torch and triton are installed:
    PYTHONUNBUFFERED=1 python3 bench/torch_triton_bench.py
If triton cannot be imported it says so and measures torch only; each benchmark failing only skips itself.
Triton kernels follow the tutorials (01 vector add, 02 fused softmax, 05 layernorm forward) with the block
sizes and warps of kernels/include/tile/kernels/Policy.h, so the comparison is of code generation, not of
launch policy.
"""
import os
import statistics
import sys
import tempfile
import time
import traceback

# Cold-compile numbers need an empty Triton cache: point it at a fresh directory before triton is imported.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

try:
    import triton
    import triton.language as tl
    import triton.testing

    HAVE_TRITON = True
except Exception as e:  # any failure (missing, broken install): torch numbers are still worth having
    print(f"triton unavailable ({type(e).__name__}: {e}); measuring torch only")
    HAVE_TRITON = False

# 4096 rows as in Triton's tutorials, plus 256 MiB tensors where launch and tail effects fade
# (the same list as bench_kernels.cpp).
ROW_SHAPES = ((4096, 1024), (4096, 4096), (4096, 16384), (65536, 1024), (16384, 4096))
N_ADD = 1 << 28  # floats: 1 GiB per array, as bench_kernels
N_COPY = 1 << 28
RESULTS = []


MATMUL_SIZES = (1024, 2048, 4096)
# Tensor-core dtypes only (f16, bf16, TF32; as bench_kernels.cpp): exact f32 at 8192^3 is slow and ours runs on FMA.
MATMUL_SIZES_HALF = (8192,)
# Batched matmul B x M x N x K, row-major (torch.bmm; bench_kernels.cpp's benchBatchedMatmul): recorded as
# matmul_f16 with a four-part shape.
BMM_SHAPES = ((32, 512, 512, 512),)


def next_pow2(v):
    p = 1
    while p < v:
        p <<= 1
    return p


# Launch policy, mirrored from Policy.h.
def softmax_config(n_cols):
    block = next_pow2(n_cols)
    return block, 16 if block >= 8192 else 8 if block >= 2048 else 4


def layernorm_config(n_cols):
    block = min(next_pow2(n_cols), 4096)
    return block, 8 if block >= 2048 else 4 if block >= 1024 else 2


if HAVE_TRITON:

    @triton.jit
    def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, out_row_stride, in_row_stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
        num = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)

    @triton.jit
    def layernorm_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        X += row * stride
        Y += row * stride
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            acc += tl.load(X + cols, mask=cols < N, other=0.0)
        mean = tl.sum(acc, axis=0) / N
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            d = tl.where(cols < N, tl.load(X + cols, mask=cols < N, other=0.0) - mean, 0.0)
            acc += d * d
        rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
        tl.store(Mean + row, mean)
        tl.store(Rstd + row, rstd)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            mask = cols < N
            x = tl.load(X + cols, mask=mask, other=0.0)
            tl.store(Y + cols, (x - mean) * rstd * tl.load(W + cols, mask=mask) + tl.load(B + cols, mask=mask), mask=mask)

    # Triton tutorial 03's CUDA autotuning configurations (the fp16/bf16/tf32 ones), tuned per (M, N, K) and
    # dtype on the first call, as the tutorial runs it. A configuration that needs more shared memory than the
    # GPU has (tf32's largest) fails to compile and is skipped by the autotuner.
    TUTORIAL_CONFIGS = [
        triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8}, num_stages=s, num_warps=w)
        for bm, bn, bk, s, w in ((128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                                 (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2))
    ]

    @triton.autotune(configs=TUTORIAL_CONFIGS, key=["M", "N", "K"])
    @triton.jit
    def matmul_kernel(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
        # Triton tutorial 03: grouped ordering, f32 accumulation, output in C's dtype; f32 inputs as
        # PRECISION says ("tf32"; ignored for f16/bf16).
        pid = tl.program_id(0)
        tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        per_group = GROUP_M * tiles_n
        first_m = (pid // per_group) * GROUP_M
        rows = min(tiles_m - first_m, GROUP_M)
        pid_m = first_m + (pid % per_group) % rows
        pid_n = (pid % per_group) // rows
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            ks = k0 + rk
            a = tl.load(A + rm[:, None] * sam + ks[None, :] * sak, mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(B + ks[:, None] * sbk + rn[None, :] * sbn, mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
            if PRECISION == "tf32":
                acc = tl.dot(a, b, acc, input_precision="tf32")
            else:
                acc = tl.dot(a, b, acc)
        tl.store(C + rm[:, None] * scm + rn[None, :] * scn, acc.to(C.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    def triton_matmul(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)  # noqa: E731
        matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1), PRECISION="tf32" if a.dtype == torch.float32 else "default")

    def triton_choice(a, b):
        """The configuration the autotuner kept for this call's key (after a first call)."""
        best = getattr(matmul_kernel, "best_config", None)
        return str(best).replace(" ", "") if best is not None else "?"

    def triton_add(x, y, z):
        n = x.numel()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024, num_warps=4)

    def triton_softmax(out, x):
        rows, cols = x.shape
        block, warps = softmax_config(cols)
        softmax_kernel[(rows,)](out, x, out.stride(0), x.stride(0), cols, BLOCK=block, num_warps=warps)

    def triton_layernorm(x, y, w, b, mean, rstd, eps=1e-5):
        rows, cols = x.shape
        block, warps = layernorm_config(cols)
        layernorm_kernel[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, eps, BLOCK=block, num_warps=warps)


_flush = None


def events_median_us(fn, reps=100, warmup=5):
    """CUDA-event median with an L2 flush before each repeat (what triton.testing.do_bench does)."""
    global _flush
    if _flush is None:
        _flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    for _ in range(warmup):
        fn()
    start = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    stop = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        _flush.zero_()
        start[i].record()
        fn()
        stop[i].record()
    torch.cuda.synchronize()
    return 1e3 * statistics.median(s.elapsed_time(e) for s, e in zip(start, stop))


def median_us(fn):
    if HAVE_TRITON:
        try:
            return 1e3 * triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
        except TypeError:  # an old triton without return_mode
            pass
    return events_median_us(fn)


def record(name, shape, nbytes, us):
    gbps = nbytes / (us * 1e-6) / 1e9 if nbytes else 0.0
    RESULTS.append((name, shape, us, gbps))
    print(f"  {name:<22} {shape:<12} {us:12.2f} us {gbps:10.1f} GB/s")


def attempt(label, fn):
    """Runs one benchmark; a failure prints why and skips only that benchmark."""
    try:
        fn()
    except Exception as e:
        print(f"  {label}: FAILED ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")
        traceback.print_exc(limit=2, file=sys.stdout)
    finally:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def check_close(name, got, want, tol=1e-5):
    """Never report a bandwidth for a kernel that computes the wrong thing."""
    err = ((got.double() - want.double()).norm() / want.double().norm()).item()
    if not err <= tol:
        raise RuntimeError(f"{name}: relative error {err:.3g} vs torch exceeds {tol}")


def wall_us(fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e6


def launch_host_us(fn, launches=100, trials=100):
    """Host time per cached launch: batches of back-to-back launches short enough that the launch queue
    never fills (else the GPU's per-kernel time is measured), synchronised between batches; median."""
    fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(trials):
        t0 = time.perf_counter()
        for _ in range(launches):
            fn()
        per.append((time.perf_counter() - t0) / launches * 1e6)
        torch.cuda.synchronize()
    return statistics.median(per)


def bench_cold():
    """Triton's compile + first launch in an empty cache; backend setup (its driver helper module) apart."""
    try:  # Triton 3.x: builds its driver helper on first use of the active driver
        record("triton_init", "-", 0, wall_us(lambda: triton.runtime.driver.active.get_current_device()))
    except AttributeError:
        print("  triton_init: not measured (no triton.runtime.driver.active in this version)")
    x = torch.randn(1024, device="cuda")
    z = torch.empty_like(x)
    record("triton_cold_add", "-", 0, wall_us(lambda: triton_add(x, x, z)))
    m = torch.randn(1, 1024, device="cuda")
    out = torch.empty_like(m)
    record("triton_cold_softmax", "-", 0, wall_us(lambda: triton_softmax(out, m)))


def bench_copy():
    src = torch.randn(N_COPY, device="cuda")
    dst = torch.empty_like(src)
    record("torch_copy", str(N_COPY), 2 * src.nbytes, median_us(lambda: dst.copy_(src)))


def bench_add():
    x, y = torch.randn(N_ADD, device="cuda"), torch.randn(N_ADD, device="cuda")
    z = torch.empty_like(x)
    record("torch_add", str(N_ADD), 3 * x.nbytes, median_us(lambda: torch.add(x, y, out=z)))
    if HAVE_TRITON:
        want = z.clone()
        z.fill_(float("nan"))
        triton_add(x, y, z)
        check_close("triton_add", z, want, 1e-7)
        record("triton_add", str(N_ADD), 3 * x.nbytes, median_us(lambda: triton_add(x, y, z)))


def bench_transpose():
    n = 16384
    x = torch.randn(n, n, device="cuda")
    y = torch.empty(n, n, device="cuda")
    record("torch_transpose", f"{n}x{n}", 2 * x.nbytes, median_us(lambda: y.copy_(x.t())))


def bench_softmax(rows, cols):
    x = torch.randn(rows, cols, device="cuda")
    out = torch.empty_like(x)
    shape = f"{rows}x{cols}"
    record("torch_softmax", shape, 2 * x.nbytes, median_us(lambda: torch.softmax(x, dim=-1)))
    if HAVE_TRITON:
        out.fill_(float("nan"))
        triton_softmax(out, x)
        check_close("triton_softmax", out, torch.softmax(x.double(), dim=-1))
        record("triton_softmax", shape, 2 * x.nbytes, median_us(lambda: triton_softmax(out, x)))


def bench_layernorm(rows, cols):
    x = torch.randn(rows, cols, device="cuda") * 0.5 - 2.3
    w, b = torch.rand(cols, device="cuda") + 0.5, torch.randn(cols, device="cuda")
    y = torch.empty_like(x)
    mean, rstd = torch.empty(rows, device="cuda"), torch.empty(rows, device="cuda")
    shape = f"{rows}x{cols}"
    nbytes = 2 * x.nbytes + 2 * w.nbytes + 2 * mean.nbytes  # as bench_kernels: x, y, w, b, mean, rstd once
    record("torch_layernorm", shape, nbytes, median_us(lambda: F.layer_norm(x, (cols,), w, b, 1e-5)))
    if HAVE_TRITON:
        y.fill_(float("nan"))
        triton_layernorm(x, y, w, b, mean, rstd)
        check_close("triton_layernorm", y, F.layer_norm(x.double(), (cols,), w.double(), b.double(), 1e-5))
        record("triton_layernorm", shape, nbytes, median_us(lambda: triton_layernorm(x, y, w, b, mean, rstd)))


def record_flops(name, shape, flops, us):
    """Matmul rows: the GB/s column of RESULT lines holds TFLOP/s."""
    tflops = flops / (us * 1e-6) / 1e12
    RESULTS.append((name, shape, us, tflops))
    print(f"  {name:<22} {shape:<12} {us:12.2f} us {tflops:10.1f} TFLOP/s")


def triton_row(tag, n, a, b, c, flops, shape=None):
    """Triton's autotuned tutorial matmul (the autotuner times its configurations on the first call)."""
    shape = shape or str(n)
    c.fill_(float("nan"))
    triton_matmul(a, b, c)
    tol = 5e-3 if a.dtype == torch.float32 else 1e-2  # tf32 inputs: about 1e-3 on these sums
    check_close(f"triton_matmul_{tag}", c.float(), (a.double() @ b.double()).float(), tol)
    print(f"  autotune: triton_matmul_{tag} {shape}: {triton_choice(a, b)}")
    record_flops(f"triton_matmul_{tag}", shape, flops, median_us(lambda: triton_matmul(a, b, c)))


def bench_matmul(n, half_only=False):
    flops = 2.0 * n * n * n
    for dtype, tag in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        a, b = torch.randn(n, n, device="cuda", dtype=dtype), torch.randn(n, n, device="cuda", dtype=dtype)
        record_flops(f"torch_matmul_{tag}", str(n), flops, median_us(lambda: torch.matmul(a, b)))
        if HAVE_TRITON:
            triton_row(tag, n, a, b, torch.empty(n, n, device="cuda", dtype=dtype), flops)
    # TF32: B row-major (torch.matmul(a, b)) and B given transposed (a @ bt.T: x·Wᵀ, as nn.Linear), as
    # bench_kernels' tile_matmul_tf32 and tile_matmul_tf32_bt.
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    bt = b.t().contiguous()
    if not half_only:
        torch.backends.cuda.matmul.allow_tf32 = False
        record_flops("torch_matmul_f32", str(n), flops, median_us(lambda: torch.matmul(a, b)))
    torch.backends.cuda.matmul.allow_tf32 = True
    record_flops("torch_matmul_tf32", str(n), flops, median_us(lambda: torch.matmul(a, b)))
    record_flops("torch_matmul_tf32_bt", str(n), flops, median_us(lambda: torch.matmul(a, bt.t())))
    torch.backends.cuda.matmul.allow_tf32 = False
    if HAVE_TRITON:
        triton_row("tf32", n, a, b, torch.empty(n, n, device="cuda"), flops)


# The MNIST model's linear layers (docs/models.md) at batch 64 and 1024: fc1 forward
# [B, 3136] x [3136, 128] and fc2 forward [B, 128] x [128, 10], as M x N x K.
MNIST_MATMULS = ((64, 128, 3136), (1024, 128, 3136), (1024, 10, 128))


def bench_matmul_shape(m, n, k):
    flops = 2.0 * m * n * k
    shape = f"{m}x{n}x{k}"
    for dtype, tag in ((torch.float16, "f16"), (torch.float32, "f32")):
        a, b = torch.randn(m, k, device="cuda", dtype=dtype), torch.randn(k, n, device="cuda", dtype=dtype)
        torch.backends.cuda.matmul.allow_tf32 = False
        record_flops(f"torch_matmul_{tag}", shape, flops, median_us(lambda: torch.matmul(a, b)))


# Skinny products M x N x K with N = K (bench_kernels.cpp's benchMatmulSkinny), f16.
SKINNY_MATMULS = tuple((m, nk, nk) for nk in (4096, 8192) for m in (64, 128, 256, 512))


def bench_matmul_skinny(m, n, k):
    flops = 2.0 * m * n * k
    shape = f"{m}x{n}x{k}"
    a, b = torch.randn(m, k, device="cuda", dtype=torch.float16), torch.randn(k, n, device="cuda", dtype=torch.float16)
    record_flops("torch_matmul_f16", shape, flops, median_us(lambda: torch.matmul(a, b)))
    if HAVE_TRITON:
        triton_row("f16", m, a, b, torch.empty(m, n, device="cuda", dtype=torch.float16), flops, shape)


# relu(A·B + bias), f16, as torch runs it: addmm then relu (two kernels); bench_kernels.cpp
# fuses both into the matmul's epilogue.
def bench_matmul_bias_relu(n):
    a, b = torch.randn(n, n, device="cuda", dtype=torch.float16), torch.randn(n, n, device="cuda", dtype=torch.float16)
    bias = torch.randn(n, device="cuda", dtype=torch.float16)
    record_flops("torch_matmul_bias_relu_f16", str(n), 2.0 * n * n * n,
                 median_us(lambda: torch.relu_(torch.addmm(bias, a, b))))


def bench_bmm(batch, m, n, k):
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(batch, k, n, device="cuda", dtype=torch.float16)
    record_flops("torch_matmul_f16", f"{batch}x{m}x{n}x{k}", 2.0 * batch * m * n * k, median_us(lambda: torch.bmm(a, b)))


def bench_launch_host():
    x = torch.randn(1024, device="cuda")
    z = torch.empty_like(x)
    record("torch_launch_host", "1024", 0, launch_host_us(lambda: torch.add(x, x, out=z)))
    if HAVE_TRITON:
        record("triton_launch_host", "1024", 0, launch_host_us(lambda: triton_add(x, x, z)))


def main():
    if not torch.cuda.is_available():
        print("torch_triton_bench: skipped: torch sees no CUDA device")
        return 0
    print(f"torch_triton_bench: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__ if HAVE_TRITON else 'unavailable'}, cache {os.environ['TRITON_CACHE_DIR']}")
    torch.cuda.init()
    if HAVE_TRITON:
        attempt("triton cold compile", bench_cold)  # first: the cache must still be empty
    attempt("copy", bench_copy)
    attempt("add", bench_add)
    attempt("transpose", bench_transpose)
    for rows, cols in ROW_SHAPES:
        attempt(f"softmax {rows}x{cols}", lambda: bench_softmax(rows, cols))
    for rows, cols in ROW_SHAPES:
        attempt(f"layernorm {rows}x{cols}", lambda: bench_layernorm(rows, cols))
    attempt("launch host", bench_launch_host)
    for n in MATMUL_SIZES:
        attempt(f"matmul {n}", lambda: bench_matmul(n))
    for n in MATMUL_SIZES_HALF:
        attempt(f"matmul {n}", lambda: bench_matmul(n, half_only=True))
    for m, n, k in MNIST_MATMULS:
        attempt(f"matmul {m}x{n}x{k}", lambda: bench_matmul_shape(m, n, k))
    for batch, m, n, k in BMM_SHAPES:
        attempt(f"bmm {batch}x{m}x{n}x{k}", lambda: bench_bmm(batch, m, n, k))
    for m, n, k in SKINNY_MATMULS:
        attempt(f"matmul {m}x{n}x{k}", lambda: bench_matmul_skinny(m, n, k))
    attempt("matmul+bias+relu 4096", lambda: bench_matmul_bias_relu(4096))
    print()
    for name, shape, us, gbps in RESULTS:
        print(f"RESULT {name} {shape} {gbps:.1f} {us:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
