#!/usr/bin/env python3
"""The anchors for bench_attention: FlashAttention forward and backward TFLOP/s of PyTorch's SDPA (cuDNN and flash
backends) and of Triton kernels written as Triton's tutorial 06 (fused attention) writes them, at the same shapes,
in lines
    RESULT <impl>_attn_<fwd|bwd>_<f16|bf16>_d<D>_<full|causal> <B>x<H>x<S> <TFLOP/s> <us>
with impl torch-cudnn, torch-flash, triton (tl.load with strides) and triton-tma (tensor descriptors, where this
Triton has them; forward only: the tutorial's backward has no descriptor variant); bench_attention prints the same
with impl tile, and scripts/gpu-check.sh tabulates both logs.

Runs on the GPU machine:  PYTHONUNBUFFERED=1 python3 bench/attention_torch_bench.py
Shapes (FlashAttention's benchmark): batch * seqlen = 16384 tokens, heads * headDim = 2048, seqlen 512 .. 16384,
headDim 64 / 128 / 256, causal or not, f16 (and bf16 at headDim 128). q, k, v are [B, S, H, D] contiguous (the packed
[tokens, heads * D] layout); SDPA gets their [B, H, S, D] views (.transpose(1, 2)), as FlashAttention's users call it.
FLOPs (FlashAttention's): forward 4 * B * H * S^2 * D, backward 2.5 times that (10 * B * H * S^2 * D: its four
matmuls and the recomputed QK^T), both halved for causal. Timing: CUDA events, L2 flushed before each repeat, median
of 20..100 repeats after warm-up, at the GPU's own clocks. Every backend runs in its own try block: a failure prints
one `skip <what>: <reason>` line. The Triton output is checked against SDPA's at every shape (`check` lines; BAD
above a max |diff| / max |ref| of 1e-2, and a BAD kernel gets no RESULT line).

The backward (ATTN_BWD=0 turns it off) runs at headDim 64 and 128 only (FlashAttention's backward does not cover
256 everywhere), after the forward rows of each shape, with one dO for all backends. SDPA's: the forward once with
inputs that require grad, then torch.autograd.grad(out, (q, k, v), dO, retain_graph=True) timed (the backward
kernels alone, and no .grad accumulation). Triton's: the tutorial's backward (_attn_bwd_preprocess, then _attn_bwd
with _attn_bwd_dkdv and _attn_bwd_dq, in bench/attention_triton_bwd.py) on our layout through strides, its fixed
configuration (BLOCK_M1 32, BLOCK_N1 128, BLOCK_M2 128, BLOCK_N2 32, slice factor 2, 4 warps, 5 stages), causal
or not (the tutorial's version with a CAUSAL switch; earlier ones were causal only), P and dS rounded to the input's
type (the tutorial's to f16). It
needs the forward's O and row log-sum-exp in base 2 (M): the tl.load forward above (its configuration already tuned
at that shape) gives O and the natural-log one, M = that / ln 2 outside the timing. Timed as the tutorial's
_attention.backward runs: K pre-scaled by sm_scale / ln 2 (an elementwise pass), the preprocess (Delta = rowsum(O *
dO)), the fused kernel. dq, dk and dv are checked against SDPA's gradients (the `check` line gives the worst of the
three). The backward adds about a minute (compiles and repeats); its time does not count against the tuning budget.

Autotuning (Triton's autotuner over the tutorial's space: BLOCK_M 64/128, BLOCK_N 32/64/128, 2-4 stages, 4/8 warps,
keyed on N_CTX, HEAD_DIM and causal) is the slow part, its compiles (about 1 s each) most of it: an H100 run takes
about 105 s from an empty Triton cache (bf16 then runs on f16's winners untimed, the budget below spent), 60 s from a
warm one, without the backward. Its choice among close candidates varies from run to run, and Triton's figures with
it (by up to ~15% at a shape; the `autotune` lines say what was chosen). By default,
  - configurations that cannot run are dropped (the tutorial's rules: BLOCK_N <= HEAD_DIM, BLOCK_M >= BLOCK_N when
    causal, no 8 warps under 128x128 on Hopper; shared memory over the GPU's), and so are ones that would spill
    (the f32 accumulator and scores over 192 registers a thread) or waste wgmma width (BLOCK_N 32 below headDim 256);
  - each variant (tl.load, descriptors) is tuned over all of those in f16 without causal mask; its causal and bf16
    runs only over what it won there at the same headDim (BLOCK_N clamped to BLOCK_M for causal): the kernels
    differ, the tile that suits a headDim hardly does;
  - after ATTN_TUNE_BUDGET_S seconds (default 90) from the start, the backward's time left out, a shape not yet
    tuned takes one configuration (the variant's most frequent winner where it has one).
ATTN_FULL_TUNE=1 tunes every variant over the whole valid space without a budget (several minutes).
ATTN_QUICK=1 runs seqlen 4096 and 16384 only; ATTN_VERBOSE=1 prints a traceback after a Triton variant's skip line.
"""
import math
import os
import statistics
import sys
import time
import traceback
import warnings

T0 = time.perf_counter()

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    SDPA_ERROR = None
except Exception as e:  # torch < 2.3
    SDPA_ERROR = f"torch.nn.attention unavailable ({type(e).__name__}: {e})"

try:
    import triton
    import triton.language as tl

    TRITON_ERROR = None
except Exception as e:  # missing or broken: the SDPA numbers are still worth having
    TRITON_ERROR = f"triton unavailable ({type(e).__name__}: {e})"

TOKENS = 16384
MODEL_DIM = 2048  # heads * headDim
SEQLENS = (4096, 16384) if os.environ.get("ATTN_QUICK", "0") == "1" else (512, 1024, 2048, 4096, 8192, 16384)
CASES = (("f16", 128), ("f16", 64), ("f16", 256), ("bf16", 128))  # the most quoted first: the budget runs out last
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
FULL_TUNE = os.environ.get("ATTN_FULL_TUNE", "0") == "1"
TUNE_BUDGET_S = float(os.environ.get("ATTN_TUNE_BUDGET_S", "90"))
TOLERANCE = 1e-2
# Gradients against SDPA's: both sides round P and dS to the inputs' type, bf16's (2^-8) ~4e-3 each
# (seen: Triton's bf16 dq at 1.04e-2 of flash's at 2x16x8192 on an H200).
BWD_TOLERANCE = {"f16": 1e-2, "bf16": 2e-2}
VERBOSE = os.environ.get("ATTN_VERBOSE", "0") == "1"  # tracebacks after skip lines
BWD = os.environ.get("ATTN_BWD", "1") != "0"
BWD_HEAD_DIMS = (64, 128)
RCP_LN2 = 1.4426950408889634  # 1 / ln 2

# Autotuning state: the configurations each variant won, (use_tma, headDim, STAGE, dtype) -> {(BM, BN, stages,
# warps): times}, which later variants are tuned over; and what the last tuning did, for its `autotune` line.
WINNERS = {}
TUNE = {"candidates": None, "cut": 0, "bwd_s": 0.0}  # bwd_s: the backward's seconds, kept out of the budget
GPU = {"max_smem": 232448, "major": 9}  # H100's opt-in shared memory per block; replaced by the device's in main()


def reason(e):
    """An exception in one line: its message's first line, and its last where it has more (Triton's compile
    errors start with the source position and end with the error)."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    text = "" if not lines else lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"
    return f"{type(e).__name__}: {text[:300]}"


# --- the Triton kernel: tutorial 06's forward -----------------------------------------------------------------------

if TRITON_ERROR is None:
    HAVE_TMA = hasattr(tl, "make_tensor_descriptor") and hasattr(tl, "tensor_descriptor")
    try:  # host-side descriptors (Triton >= 3.4), what the tutorial passes on Hopper
        from triton.tools.tensor_descriptor import TensorDescriptor
    except Exception:
        TensorDescriptor = None

    @triton.jit
    def _maybe_desc(x, rows, cols, row_stride, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
        # The tutorial's _maybe_make_tensor_desc: a host descriptor as is, else one made on the device.
        if isinstance(x, tl.tensor_descriptor):
            return x
        else:
            return tl.make_tensor_descriptor(x, [rows, cols], [row_stride, 1], [BLOCK_ROWS, BLOCK_COLS])

    @triton.jit
    def _attn_fwd_inner(acc, l_i, m_i, q, k_src, v_src, kv_row, kv_col, stride_k, stride_v, start_m, qk_scale,
                        BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                        offs_m, offs_n, N_CTX, USE_TMA: tl.constexpr):
        # STAGE 1: the key blocks left of the diagonal (no mask); 2: the diagonal block (masked); 3: all keys.
        if STAGE == 1:
            lo, hi = 0, start_m * BLOCK_M
        elif STAGE == 2:
            lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
            lo = tl.multiple_of(lo, BLOCK_M)
        else:
            lo, hi = 0, N_CTX
        for start_n in range(lo, hi, BLOCK_N):
            start_n = tl.multiple_of(start_n, BLOCK_N)
            if USE_TMA:
                k = k_src.load([kv_row + start_n, kv_col])
            else:
                k = tl.load(k_src + start_n * stride_k)  # k_src: the [BLOCK_N, HEAD_DIM] pointers of key block 0
            qk = tl.dot(q, tl.trans(k))
            if STAGE == 2:
                mask = offs_m[:, None] >= (start_n + offs_n[None, :])
                qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
                m_ij = tl.maximum(m_i, tl.max(qk, 1))
                qk -= m_ij[:, None]
            else:
                m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
                qk = qk * qk_scale - m_ij[:, None]
            p = tl.math.exp2(qk)
            l_ij = tl.sum(p, 1)
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + l_ij
            acc = acc * alpha[:, None]
            if USE_TMA:
                v = v_src.load([kv_row + start_n, kv_col])
            else:
                v = tl.load(v_src + start_n * stride_v)
            acc = tl.dot(p.to(v.dtype), v, acc)
            m_i = m_ij
        return acc, l_i, m_i

    def _cfg(c):
        return (c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.num_stages, c.num_warps)

    def _runnable(t, d, stage, n_ctx):
        """The tutorial's rules, plus what this kernel assumes (no bounds masks) and shared memory: q, and the
        (stages - 1) K and V buffers Triton's pipeliner keeps in flight (a config that still overflows is one the
        autotuner times as infinite)."""
        bm, bn, s, w = t
        if n_ctx % bm or n_ctx % bn or bn > d or (stage != 1 and bm < bn):
            return False
        if GPU["major"] == 9 and bm * bn < 128 * 128 and w == 8:
            return False
        return 2 * (bm * d + max(s - 1, 1) * 2 * bn * d) <= GPU["max_smem"]

    def _sensible(t, d):
        bm, bn, s, w = t
        return (bn >= 64 or d >= 256) and (bm * d + bm * bn) / (32 * w) <= 192

    def _clamp_causal(t):
        bm, bn, s, w = t
        bn = min(bn, bm)
        return (bm, bn, s, 4 if w == 8 and bm * bn < 128 * 128 else w)

    def _won(key):
        """What a variant won, most often first."""
        wins = WINNERS.get(key, {})
        return sorted(wins, key=lambda t: -wins[t])

    def _preferred(use_tma, d, stage, dt):
        """The configurations this variant (tl.load or descriptors) won at the same head dim in f16 (bf16) or
        without the causal mask (causal), which it is tuned over here; None: the whole space."""
        if dt != "f16" and _won((use_tma, d, stage, "f16")):
            return _won((use_tma, d, stage, "f16"))
        if stage != 1:
            for key in ((use_tma, d, 1, dt), (use_tma, d, 1, "f16")):
                if _won(key):
                    return list(dict.fromkeys(_clamp_causal(t) for t in _won(key)))
        return None

    FALLBACKS = ((128, 64, 3, 4), (128, 128, 3, 8), (64, 64, 3, 4), (64, 64, 2, 4), (64, 32, 2, 4))

    def _prune(configs, named_args, **kwargs):
        a = dict(named_args)
        a.update(kwargs)
        d, stage, n_ctx = int(a["HEAD_DIM"]), int(a["STAGE"]), int(a["N_CTX"])
        use_tma, dt = bool(a["USE_TMA"]), "bf16" if a["KEY_BF16"] else "f16"
        ok = [c for c in configs if _runnable(_cfg(c), d, stage, n_ctx)]
        if not FULL_TUNE:
            ok = [c for c in ok if _sensible(_cfg(c), d)] or ok
            by = {_cfg(c): c for c in ok}
            chosen = [by[t] for t in _preferred(use_tma, d, stage, dt) or () if t in by]
            ok = chosen or ok
            if len(ok) > 1 and time.perf_counter() - T0 - TUNE["bwd_s"] > TUNE_BUDGET_S:
                ok = [chosen[0] if chosen else next((by[t] for t in FALLBACKS if t in by), ok[0])]
                TUNE["cut"] += 1
        if not ok:
            ok = [c for c in configs if _cfg(c) == (64, 32, 2, 4)]
        TUNE["candidates"] = len(ok)
        return ok

    def _desc_pre_hook(nargs):
        # Host descriptors carry their block shape: set it to the configuration's (as the tutorial's pre-hook).
        if TensorDescriptor is not None and isinstance(nargs["Q"], TensorDescriptor):
            bm, bn, d = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["HEAD_DIM"]
            nargs["Q"].block_shape = [bm, d]
            nargs["O"].block_shape = [bm, d]
            nargs["K"].block_shape = [bn, d]
            nargs["V"].block_shape = [bn, d]

    CONFIGS = [
        triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w, pre_hook=_desc_pre_hook)
        for bm in (64, 128) for bn in (32, 64, 128) for s in (2, 3, 4) for w in (4, 8)
    ]

    def _autotune(**kw):
        try:  # a shorter timing per candidate than Triton's default (25 ms warm-up, 100 ms of repeats)
            return triton.autotune(warmup=10, rep=50, **kw)
        except TypeError:
            return triton.autotune(**kw)

    @_autotune(configs=CONFIGS, key=["N_CTX", "HEAD_DIM", "STAGE", "USE_TMA", "KEY_BF16"],
               prune_configs_by={"early_config_prune": _prune})
    @triton.jit
    def _attn_fwd(Q, K, V, O, LSE, sm_scale, stride_q, stride_k, stride_v, stride_o, TOKENS, H, H_KV, N_CTX,
                  HEAD_DIM: tl.constexpr, STAGE: tl.constexpr, USE_TMA: tl.constexpr, KEY_BF16: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        # One program: BLOCK_M queries of one (sequence, head). Q, O: [TOKENS, H * HEAD_DIM]; K, V: [TOKENS,
        # H_KV * HEAD_DIM] (row strides stride_*); LSE: [B * H, N_CTX] natural-log row log-sum-exp.
        # KEY_BF16 only keys the autotuner (descriptors carry no dtype it could key on).
        tl.static_assert(BLOCK_N <= HEAD_DIM)
        start_m = tl.program_id(0)
        off_hz = tl.program_id(1)
        off_b = off_hz // H
        off_h = off_hz % H
        off_kh = off_h // (H // H_KV)
        q_row = off_b * N_CTX + start_m * BLOCK_M
        kv_row = off_b * N_CTX
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, HEAD_DIM)
        if USE_TMA:
            desc_q = _maybe_desc(Q, TOKENS, H * HEAD_DIM, stride_q, BLOCK_M, HEAD_DIM)
            desc_o = _maybe_desc(O, TOKENS, H * HEAD_DIM, stride_o, BLOCK_M, HEAD_DIM)
            k_src = _maybe_desc(K, TOKENS, H_KV * HEAD_DIM, stride_k, BLOCK_N, HEAD_DIM)
            v_src = _maybe_desc(V, TOKENS, H_KV * HEAD_DIM, stride_v, BLOCK_N, HEAD_DIM)
            q = desc_q.load([q_row, off_h * HEAD_DIM])
        else:
            q = tl.load(Q + (q_row + tl.arange(0, BLOCK_M))[:, None] * stride_q + off_h * HEAD_DIM + offs_d[None, :])
            k_src = K + (kv_row + offs_n)[:, None] * stride_k + off_kh * HEAD_DIM + offs_d[None, :]
            v_src = V + (kv_row + offs_n)[:, None] * stride_v + off_kh * HEAD_DIM + offs_d[None, :]
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.44269504  # log2(e): exp2 of the scaled scores is exp of the scores
        # Causal: STAGE 3, the off-diagonal blocks (inner stage 1) then the diagonal (2); else STAGE 1, all (3).
        if STAGE & 1:
            acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_src, v_src, kv_row, off_kh * HEAD_DIM, stride_k,
                                            stride_v, start_m, qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE,
                                            offs_m, offs_n, N_CTX, USE_TMA)
        if STAGE & 2:
            acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_src, v_src, kv_row, off_kh * HEAD_DIM, stride_k,
                                            stride_v, start_m, qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m,
                                            offs_n, N_CTX, USE_TMA)
        m_i += tl.math.log2(l_i)
        acc = acc / l_i[:, None]
        tl.store(LSE + off_hz * N_CTX + offs_m, m_i * 0.6931471805599453)
        if USE_TMA:
            desc_o.store([q_row, off_h * HEAD_DIM], acc.to(q.dtype))
        else:
            tl.store(O + (q_row + tl.arange(0, BLOCK_M))[:, None] * stride_o + off_h * HEAD_DIM + offs_d[None, :],
                     acc.to(q.dtype))

    def triton_runner(q, k, v, o, lse, causal, use_tma):
        """A launch of the autotuned kernel on [B, S, H, D] q, o and [B, S, H_KV, D] k, v (contiguous)."""
        b, s, h, d = q.shape
        h_kv = k.shape[2]
        tokens = b * s
        q2, k2, v2, o2 = (x.view(tokens, -1) for x in (q, k, v, o))
        if use_tma and TensorDescriptor is not None:  # block shapes set per configuration by _desc_pre_hook
            srcs = [TensorDescriptor(x, list(x.shape), list(x.stride()), [64, d]) for x in (q2, k2, v2, o2)]
        else:
            srcs = [q2, k2, v2, o2]
        args = (*srcs, lse, 1.0 / math.sqrt(d), q2.stride(0), k2.stride(0), v2.stride(0), o2.stride(0), tokens, h,
                h_kv, s, d, 3 if causal else 1, use_tma, q.dtype == torch.bfloat16)
        grid = lambda meta: (triton.cdiv(s, meta["BLOCK_M"]), b * h)  # noqa: E731
        return lambda: _attn_fwd[grid](*args)

    def tma_unavailable():
        if not HAVE_TMA:
            return f"triton {triton.__version__} has no tl.make_tensor_descriptor"
        if GPU["major"] < 9:
            return "tensor descriptors need sm_90 or later"
        if TensorDescriptor is None and not hasattr(triton, "set_allocator"):
            return "neither host descriptors nor triton.set_allocator for device ones"
        return None

    # The backward kernels live beside this script (the whole file would be too long to read).
    from attention_triton_bwd import triton_bwd_runner

# --- timing and checking --------------------------------------------------------------------------------------------

_flush = None


def time_us(fn, min_reps=20, max_reps=100, target_ms=50.0):
    """Median CUDA-event time of fn, L2 flushed before each repeat (the flush also keeps the GPU busy while the
    host queues the launch), 20..100 repeats (about 50 ms of kernel time), after warm-up."""
    global _flush
    if _flush is None:
        _flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(3):
        fn()
    stop.record()
    stop.synchronize()
    est_ms = max(start.elapsed_time(stop) / 3, 1e-3)
    reps = max(min_reps, min(max_reps, int(target_ms / est_ms)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        _flush.zero_()
        starts[i].record()
        fn()
        stops[i].record()
    torch.cuda.synchronize()
    return 1e3 * statistics.median(a.elapsed_time(b) for a, b in zip(starts, stops))


def rel_err(got, want):
    """max |got - want| / max |want| (NaN if got has NaN)."""
    g, w = got.float(), want.float()
    return ((g - w).abs().max() / w.abs().max().clamp_min(1e-30)).item()


def result(impl, name, shape, flops, us):
    print(f"RESULT {impl}_{name} {shape} {flops / (us * 1e-6) / 1e12:.1f} {us:.3f}")


# --- one shape ------------------------------------------------------------------------------------------------------

DEAD = {}  # (impl, name) -> reason: a Triton variant that failed at one seqlen is not compiled again at the next


def bench_sdpa(impl, backend, name, shape, flops, qt, kt, vt, causal):
    """One SDPA backend; returns its output (the reference for the Triton check) or None."""
    if SDPA_ERROR is not None or backend is None:
        print(f"skip {impl}_{name} {shape}: {SDPA_ERROR or 'this torch has no such SDPBackend'}")
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with sdpa_kernel(backend):
                out = F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
                us = time_us(lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal))
        except Exception as e:
            # "No available kernel" alone says little: the backend's own reasons come as warnings.
            why = "; ".join(str(w.message).strip().splitlines()[0][:160] for w in caught[:2] if str(w.message).strip())
            print(f"skip {impl}_{name} {shape}: {reason(e)}{f' ({why})' if why else ''}")
            return None
    result(impl, name, shape, flops, us)
    return out


def bench_triton(impl, use_tma, name, shape, flops, q4, k4, v4, o, lse, causal, ref, ref_name):
    if TRITON_ERROR is not None:
        return
    why = DEAD.get((impl, name)) or (tma_unavailable() if use_tma else None)
    if why:
        print(f"skip {impl}_{name} {shape}: {why}")
        return
    try:
        o.fill_(float("nan"))  # a block the kernel never writes shows as NaN in the check
        run = triton_runner(q4, k4, v4, o.view(q4.shape), lse, causal, use_tma)
        TUNE["candidates"] = None
        t0 = time.perf_counter()
        run()  # the autotuner's first call for a key compiles and times the candidates
        torch.cuda.synchronize()
        tuned_s = time.perf_counter() - t0
        best = getattr(_attn_fwd, "best_config", None)
        if best is not None:
            dt = "bf16" if q4.dtype == torch.bfloat16 else "f16"
            win = WINNERS.setdefault((use_tma, q4.shape[3], 3 if causal else 1, dt), {})
            win[_cfg(best)] = win.get(_cfg(best), 0) + 1
        if TUNE["candidates"] is not None:
            bm, bn, s, w = _cfg(best) if best is not None else ("?",) * 4
            print(f"autotune {impl}_{name} {shape}: BLOCK_M {bm} BLOCK_N {bn} stages {s} warps {w} "
                  f"(of {TUNE['candidates']} candidates, {tuned_s:.1f} s)")
        if ref is None:
            print(f"check {impl}_{name} {shape}: unchecked (no SDPA output to compare with)")
        else:
            err = rel_err(o.view(q4.shape).transpose(1, 2), ref)
            bad = not err <= TOLERANCE
            print(f"check {impl}_{name} {shape}: max rel err {err:.2e} vs {ref_name}{' BAD' if bad else ''}")
            if bad:
                print(f"skip {impl}_{name} {shape}: BAD output (max rel err {err:.2e} > {TOLERANCE})")
                return
        result(impl, name, shape, flops, time_us(run))
    except Exception as e:
        DEAD[(impl, name)] = f"{reason(e)} (at seqlen {q4.shape[1]})"
        print(f"skip {impl}_{name} {shape}: {reason(e)}")
        if VERBOSE:
            traceback.print_exc(file=sys.stdout)


def sdpa_backends():
    return (("torch-cudnn", getattr(SDPBackend, "CUDNN_ATTENTION", None) if SDPA_ERROR is None else None),
            ("torch-flash", SDPBackend.FLASH_ATTENTION if SDPA_ERROR is None else None))


def bench_sdpa_bwd(impl, backend, name, shape, flops, qt, kt, vt, do4, causal):
    """One SDPA backend's backward: the forward once, then autograd.grad timed; returns (dq, dk, dv) ([B, H, S, D],
    the reference for the Triton check) or None."""
    if SDPA_ERROR is not None or backend is None:
        print(f"skip {impl}_{name} {shape}: {SDPA_ERROR or 'this torch has no such SDPBackend'}")
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with sdpa_kernel(backend):
                inputs = tuple(x.detach().requires_grad_() for x in (qt, kt, vt))
                out = F.scaled_dot_product_attention(*inputs, is_causal=causal)
                # dO in out's own strides: a backend that wants them equal copies nothing inside the timing.
                dout = torch.empty_like(out).copy_(do4.transpose(1, 2))
                grads = torch.autograd.grad(out, inputs, dout, retain_graph=True)
                us = time_us(lambda: torch.autograd.grad(out, inputs, dout, retain_graph=True))
        except Exception as e:
            why = "; ".join(str(w.message).strip().splitlines()[0][:160] for w in caught[:2] if str(w.message).strip())
            print(f"skip {impl}_{name} {shape}: {reason(e)}{f' ({why})' if why else ''}")
            return None
    result(impl, name, shape, flops, us)
    return grads


def bench_triton_bwd(name, shape, flops, q4, k4, v4, o, lse, bufs, causal, ref, ref_name):
    impl = "triton"
    if TRITON_ERROR is not None:
        return
    if DEAD.get((impl, name)):
        print(f"skip {impl}_{name} {shape}: {DEAD[(impl, name)]}")
        return
    try:
        o4 = o.view(q4.shape)
        triton_runner(q4, k4, v4, o4, lse, causal, False)()  # O and the natural-log LSE (tuned at the forward)
        torch.mul(lse, RCP_LN2, out=bufs["m2"])  # the tutorial's M: the log-sum-exp in base 2
        grads = [bufs[g].view(q4.shape) for g in ("dq", "dk", "dv")]
        for g in grads:
            g.fill_(float("nan"))  # a block the kernel never writes shows as NaN in the check
        run = triton_bwd_runner(q4, k4, v4, o4, bufs["do"].view(q4.shape), bufs["m2"], bufs["delta"],
                                bufs["ks"].view(k4.shape), *grads, causal)
        run()  # compiles at the first shape of each (dtype, headDim, causal)
        torch.cuda.synchronize()
        if ref is None:
            print(f"check {impl}_{name} {shape}: unchecked (no SDPA gradients to compare with)")
        else:
            errs = [rel_err(g.transpose(1, 2), r) for g, r in zip(grads, ref)]
            err = float("nan") if any(math.isnan(e) for e in errs) else max(errs)
            tol = BWD_TOLERANCE["bf16" if "bf16" in name else "f16"]
            bad = not err <= tol
            print(f"check {impl}_{name} {shape}: max rel err {err:.2e} (dq {errs[0]:.2e} dk {errs[1]:.2e} "
                  f"dv {errs[2]:.2e}) vs {ref_name}{' BAD' if bad else ''}")
            if bad:
                print(f"skip {impl}_{name} {shape}: BAD gradients (max rel err {err:.2e} > {tol})")
                return
        result(impl, name, shape, flops, time_us(run))
    except Exception as e:
        DEAD[(impl, name)] = f"{reason(e)} (at seqlen {q4.shape[1]})"
        print(f"skip {impl}_{name} {shape}: {reason(e)}")
        if VERBOSE:
            traceback.print_exc(file=sys.stdout)


def bench_bwd_shape(dt, d, causal, q4, k4, v4, o, lse, bufs):
    """The backward rows of one shape (its forward rows printed): SDPA's backends, then Triton's, checked against
    the last SDPA backend that ran."""
    t0 = time.perf_counter()
    batch, seqlen, heads, _ = q4.shape
    name = f"attn_bwd_{dt}_d{d}_{'causal' if causal else 'full'}"
    shape = f"{batch}x{heads}x{seqlen}"
    flops = 2.5 * 4.0 * batch * heads * seqlen * seqlen * d / (2 if causal else 1)
    qt, kt, vt = (x.transpose(1, 2) for x in (q4, k4, v4))
    do4 = bufs["do"].view(q4.shape)
    ref, ref_name = None, None
    for impl, backend in sdpa_backends():
        grads = bench_sdpa_bwd(impl, backend, name, shape, flops, qt, kt, vt, do4, causal)
        if grads is not None:
            ref, ref_name = grads, impl
    bench_triton_bwd(name, shape, flops, q4, k4, v4, o, lse, bufs, causal, ref, ref_name)
    del ref
    TUNE["bwd_s"] += time.perf_counter() - t0


def bench_shape(dt, d, causal, seqlen, q, k, v, o, lse, bufs):
    heads = MODEL_DIM // d
    batch = TOKENS // seqlen
    name = f"attn_fwd_{dt}_d{d}_{'causal' if causal else 'full'}"
    shape = f"{batch}x{heads}x{seqlen}"
    flops = 4.0 * batch * heads * seqlen * seqlen * d / (2 if causal else 1)
    q4, k4, v4 = (x.view(batch, seqlen, heads, d) for x in (q, k, v))
    qt, kt, vt = (x.transpose(1, 2) for x in (q4, k4, v4))  # [B, H, S, D] views, as FlashAttention's users pass
    ref, ref_name = None, None
    for impl, backend in sdpa_backends():
        out = bench_sdpa(impl, backend, name, shape, flops, qt, kt, vt, causal)
        if out is not None:
            ref, ref_name = out, impl
    for impl, use_tma in (("triton", False), ("triton-tma", True)):
        bench_triton(impl, use_tma, name, shape, flops, q4, k4, v4, o, lse, causal, ref, ref_name)
    del ref
    if bufs is not None:
        bench_bwd_shape(dt, d, causal, q4, k4, v4, o, lse, bufs)


def main():
    if not torch.cuda.is_available():
        print("attention_torch_bench: skipped: torch sees no CUDA device")
        return 0
    torch.cuda.init()
    major, minor = torch.cuda.get_device_capability()
    GPU["major"] = major
    if TRITON_ERROR is None:
        try:
            props = triton.runtime.driver.active.utils.get_device_properties(torch.cuda.current_device())
            GPU["max_smem"] = int(props["max_shared_mem"])
        except Exception as e:
            print(f"note: shared memory per block assumed {GPU['max_smem']} B ({reason(e)})")
        if hasattr(triton, "set_allocator"):  # scratch for descriptors made on the device
            triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    print(f"attention_torch_bench: {torch.cuda.get_device_name()} (sm_{major}{minor}), torch {torch.__version__}, "
          f"triton {triton.__version__ if TRITON_ERROR is None else 'unavailable'}, cudnn "
          f"{torch.backends.cudnn.version()}; tokens {TOKENS}, heads*headDim {MODEL_DIM}, seqlens "
          f"{','.join(map(str, SEQLENS))}; {'full tuning' if FULL_TUNE else f'tuning budget {TUNE_BUDGET_S:.0f} s'}; "
          f"backward {'at headDim ' + '/'.join(map(str, BWD_HEAD_DIMS)) if BWD else 'off (ATTN_BWD=0)'}; "
          f"clocks: the GPU's own")
    if TRITON_ERROR is not None:
        print(f"skip triton: {TRITON_ERROR}")
    elif tma_unavailable():
        print(f"skip triton-tma: {tma_unavailable()}")
    for dt, d in CASES:
        heads = MODEL_DIM // d
        try:
            gen = torch.Generator(device="cuda").manual_seed(0)
            q, k, v = (torch.randn(TOKENS, heads * d, device="cuda", dtype=DTYPES[dt], generator=gen) for _ in "qkv")
            o = torch.empty_like(q)
            lse = torch.empty(TOKENS * heads, device="cuda", dtype=torch.float32)
        except Exception as e:
            print(f"skip attn_fwd_{dt}_d{d}: {reason(e)}")
            continue
        bufs = None  # the backward's dO, gradients and the Triton backward's scratch
        if BWD and d not in BWD_HEAD_DIMS:
            print(f"skip attn_bwd_{dt}_d{d}: not run (FlashAttention's backward does not cover headDim {d} everywhere)")
        elif BWD:
            try:
                do = torch.randn(TOKENS, heads * d, device="cuda", dtype=DTYPES[dt], generator=gen)
                bufs = {"do": do, **{g: torch.empty_like(q) for g in ("dq", "dk", "dv", "ks")},
                        "m2": torch.empty_like(lse), "delta": torch.empty_like(lse)}
            except Exception as e:
                print(f"skip attn_bwd_{dt}_d{d}: {reason(e)}")
        for causal in (False, True):
            for seqlen in SEQLENS:
                bench_shape(dt, d, causal, seqlen, q, k, v, o, lse, bufs)
        del q, k, v, o, lse, bufs
        torch.cuda.empty_cache()
    cut = f", {TUNE['cut']} shapes took one configuration after the tuning budget" if TUNE["cut"] else ""
    bwd = f" (the backward {TUNE['bwd_s']:.0f} s)" if BWD else ""
    print(f"attention_torch_bench: done in {time.perf_counter() - T0:.0f} s{bwd}{cut}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
