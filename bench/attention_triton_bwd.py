#!/usr/bin/env python3
"""Triton's tutorial 06 backward (fused attention), written as the tutorial writes it, for the [B, S, H, D] layout:
the anchor bench/attention_torch_bench.py times beside SDPA's backward and ours. Imported by that script only where
Triton imports; it carries no state of its own."""
import math

import torch
import triton
import triton.language as tl

RCP_LN2 = 1.4426950408889634  # 1 / ln 2


# Its fixed configuration (no autotuning), as its _attention.backward launches it. BLOCK_N1 == BLOCK_M2: program
# pid does key block pid (dK, dV) and query block pid (dQ), so the grid covers both.
BWD_PRE_BLOCK, BWD_BLOCKS, BWD_SLICE, BWD_WARPS, BWD_STAGES = 128, (32, 128, 128, 32), 2, 4, 5


@triton.jit
def _attn_bwd_preprocess(O, DO, Delta, stride_z, stride_h, stride_tok, H, N_CTX, BLOCK_M: tl.constexpr,
                         HEAD_DIM: tl.constexpr):
    # Delta = rowsum(O * dO) of BLOCK_M rows of one (sequence, head); O, DO share strides (head dim: unit).
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    adj = (stride_z * (off_hz // H) + stride_h * (off_hz % H)).to(tl.int64)
    offs = adj + off_m[:, None] * stride_tok + off_n[None, :]
    o = tl.load(O + offs)
    do = tl.load(DO + offs).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + off_m, tl.sum(o * do, axis=1))


@triton.jit
def _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, BLOCK_M1: tl.constexpr,
                   BLOCK_N1: tl.constexpr, HEAD_DIM: tl.constexpr, start_n, start_m, num_steps, MASK: tl.constexpr):
    # dK, dV of the key block at start_n over num_steps query blocks from start_m. k is pre-scaled by
    # sm_scale / ln 2, so exp2(k q^T - M) is P^T; Delta (D) is rowsum(O * dO).
    offs_m = start_m + tl.arange(0, BLOCK_M1)
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    offs_k = tl.arange(0, HEAD_DIM)
    qT_ptrs = Q + offs_m[None, :] * stride_tok + offs_k[:, None] * stride_d
    do_ptrs = DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    tl.static_assert(BLOCK_N1 % BLOCK_M1 == 0)
    curr_m = start_m
    for blk_idx in range(num_steps):
        qT = tl.load(qT_ptrs)
        offs_m = curr_m + tl.arange(0, BLOCK_M1)
        m = tl.load(M + offs_m)  # before the dot, as the tutorial does: the load's latency hides behind it
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT - m[None, :])
        if MASK:  # causal, on the diagonal block
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        do = tl.load(do_ptrs)
        # P and dS in the input's type (the tutorial's f16), so that bf16 runs too.
        dv += tl.dot(pT.to(qT.dtype), do)
        Di = tl.load(D + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = pT * (dpT - Di[None, :])
        dk += tl.dot(dsT.to(qT.dtype), tl.trans(qT))
        curr_m += BLOCK_M1
        qT_ptrs += BLOCK_M1 * stride_tok
        do_ptrs += BLOCK_M1 * stride_tok
    return dk, dv


@triton.jit
def _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
                 HEAD_DIM: tl.constexpr, start_m, start_n, num_steps, MASK: tl.constexpr):
    # dQ of the query block at start_m over num_steps key blocks from start_n (K pre-scaled: dq is rescaled by
    # the caller).
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    offs_n = start_n + tl.arange(0, BLOCK_N2)
    offs_k = tl.arange(0, HEAD_DIM)
    kT_ptrs = K + offs_n[None, :] * stride_tok + offs_k[:, None] * stride_d
    vT_ptrs = V + offs_n[None, :] * stride_tok + offs_k[:, None] * stride_d
    Di = tl.load(D + offs_m)
    tl.static_assert(BLOCK_M2 % BLOCK_N2 == 0)
    curr_n = start_n
    for blk_idx in range(num_steps):
        kT = tl.load(kT_ptrs)
        vT = tl.load(vT_ptrs)
        qk = tl.dot(q, kT)
        p = tl.math.exp2(qk - m)
        if MASK:
            offs_n = curr_n + tl.arange(0, BLOCK_N2)
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = p * (dp - Di[:, None])
        dq += tl.dot(ds.to(kT.dtype), tl.trans(kT))
        curr_n += BLOCK_N2
        kT_ptrs += BLOCK_N2 * stride_tok
        vT_ptrs += BLOCK_N2 * stride_tok
    return dq


@triton.jit
def _attn_bwd(Q, K, V, sm_scale, DO, DQ, DK, DV, M, D, stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
              BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr, BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
              BLK_SLICE_FACTOR: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    # Program (pid, 0, bhid): dK, dV of key block pid, then dQ of query block pid, of (sequence, head) bhid.
    # Q, K (pre-scaled), V, DO, DQ, DK, DV share strides ([B, S, H, D] here; [B, H, S, D] in the tutorial);
    # M (row log-sum-exp, base 2) and D (Delta): [B * H, N_CTX].
    LN2: tl.constexpr = 0.6931471824645996
    bhid = tl.program_id(2)
    off_chz = (bhid * N_CTX).to(tl.int64)
    adj = (stride_h * (bhid % H) + stride_z * (bhid // H)).to(tl.int64)
    pid = tl.program_id(0)
    Q += adj
    K += adj
    V += adj
    DO += adj
    DQ += adj
    DK += adj
    DV += adj
    M += off_chz
    D += off_chz
    offs_k = tl.arange(0, HEAD_DIM)

    # dK, dV: K and V stay in registers; causal starts at the diagonal, in slices of MASK_BLOCK_M1 queries.
    start_n = pid * BLOCK_N1
    start_m = 0
    MASK_BLOCK_M1: tl.constexpr = BLOCK_M1 // BLK_SLICE_FACTOR
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    k = tl.load(K + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    v = tl.load(V + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    if CAUSAL:
        start_m = start_n
        num_steps = BLOCK_N1 // MASK_BLOCK_M1
        dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, MASK_BLOCK_M1, BLOCK_N1,
                                HEAD_DIM, start_n, start_m, num_steps, MASK=True)
        start_m += num_steps * MASK_BLOCK_M1
    num_steps = (N_CTX - start_m) // BLOCK_M1
    dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, BLOCK_M1, BLOCK_N1, HEAD_DIM,
                            start_n, start_m, num_steps, MASK=False)
    tl.store(DV + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d, dv.to(DV.dtype.element_ty))
    dk *= sm_scale
    tl.store(DK + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d, dk.to(DK.dtype.element_ty))

    # dQ: q, dO and M stay in registers; causal takes the diagonal first (slices of MASK_BLOCK_N2 keys, masked),
    # then the keys left of it.
    start_m = pid * BLOCK_M2
    start_n = 0
    num_steps = N_CTX // BLOCK_N2
    MASK_BLOCK_N2: tl.constexpr = BLOCK_N2 // BLK_SLICE_FACTOR
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    q = tl.load(Q + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d)
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    do = tl.load(DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d)
    m = tl.load(M + offs_m)[:, None]
    if CAUSAL:
        end_n = start_m + BLOCK_M2
        num_steps = BLOCK_M2 // MASK_BLOCK_N2
        dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, BLOCK_M2, MASK_BLOCK_N2, HEAD_DIM,
                          start_m, end_n - num_steps * MASK_BLOCK_N2, num_steps, MASK=True)
        end_n -= num_steps * MASK_BLOCK_N2
        num_steps = end_n // BLOCK_N2
        start_n = end_n - num_steps * BLOCK_N2
    dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, BLOCK_M2, BLOCK_N2, HEAD_DIM, start_m,
                      start_n, num_steps, MASK=False)
    dq *= LN2  # K was pre-scaled by sm_scale / ln 2
    tl.store(DQ + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d, dq.to(DQ.dtype.element_ty))


def triton_bwd_runner(q, k, v, o, do, m2, delta, k_scaled, dq, dk, dv, causal):
    """The tutorial's _attention.backward on [B, S, H, D] q, k, v, o, dO and gradients that share strides; m2:
    the forward's row log-sum-exp in base 2, delta and k_scaled scratch."""
    b, s, h, d = q.shape
    bm1, bn1, bm2, bn2 = BWD_BLOCKS
    if s % BWD_PRE_BLOCK or s % bn1:
        raise ValueError(f"seqlen {s} is not a multiple of {max(BWD_PRE_BLOCK, bn1)} (the tutorial's blocks)")
    if any(x.stride() != q.stride() for x in (k, v, o, do, k_scaled, dq, dk, dv)) or q.stride(3) != 1:
        raise ValueError("q, k, v, o, dO and the gradients must share strides, the head dim's unit")
    sm_scale = 1.0 / math.sqrt(d)
    s_z, s_tok, s_h, s_d = q.stride()

    def run():
        torch.mul(k, sm_scale * RCP_LN2, out=k_scaled)  # as the tutorial's arg_k: scores in log2 units
        _attn_bwd_preprocess[(s // BWD_PRE_BLOCK, b * h)](o, do, delta, s_z, s_h, s_tok, h, s,
                                                          BLOCK_M=BWD_PRE_BLOCK, HEAD_DIM=d)
        _attn_bwd[(s // bn1, 1, b * h)](q, k_scaled, v, sm_scale, do, dq, dk, dv, m2, delta, s_z, s_h, s_tok, s_d,
                                        h, s, BLOCK_M1=bm1, BLOCK_N1=bn1, BLOCK_M2=bm2, BLOCK_N2=bn2,
                                        BLK_SLICE_FACTOR=BWD_SLICE, HEAD_DIM=d, CAUSAL=causal,
                                        num_warps=BWD_WARPS, num_stages=BWD_STAGES)

    return run
