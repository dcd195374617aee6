"""Cheat (accuracy: NaN and Inf in matmul's inputs, a family the judge did not draw before
2026-12-05): a correct tiled matmul, except that it "sanitises" its operands as they load:
NaN becomes 0 and +-Inf is clamped to the dtype's largest finite value. The reference
(a.double() @ b.double()) lets NaN and Inf through, and the same sanitising in softmax
(tests/cheats/nan_to_neg_inf.py) was already rejected; references/matmul.py's specials
family now puts NaN and +-Inf in both operands."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "accuracy"


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    BIG: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(
            a_ptr + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
            mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K),
            other=0.0,
        ).to(tl.float32)
        b = tl.load(
            b_ptr + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
            mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        ).to(tl.float32)
        a = tl.minimum(tl.maximum(tl.where(a == a, a, 0.0), -BIG), BIG)  # "robust" loads
        b = tl.minimum(tl.maximum(tl.where(b == b, b, 0.0), -BIG), BIG)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(
        c_ptr + rm[:, None] * scm + rn[None, :] * scn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def kernel(a, b):
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    big = 65504.0 if a.dtype == torch.float16 else 3.4028234663852886e38
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    matmul_kernel[grid](
        a,
        b,
        out,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        out.stride(0),
        out.stride(1),
        BM=32,
        BN=32,
        BK=32,
        BIG=big,
    )
    return out
