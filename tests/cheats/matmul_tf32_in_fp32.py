"""Cheat (accuracy): an fp32 matmul on TF32 tensor cores, tl.dot left at Triton's default
input precision for every dtype: fp32 operands lose 13 of their 23 mantissa bits (~1e-4
relative error, fp32's bound is 1e-5) for ~2x a GPU's fp32 speed. Triton's interpreter
multiplied in full fp32, so a CPU accepted what a GPU rejects (2026-12-06): it now rounds
an fp32 dot's operands to TF32 as the tensor cores do."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "accuracy"


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)  # fmt: skip
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)  # fmt: skip
        acc = tl.dot(a, b, acc)  # the default: TF32 for fp32 operands
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty), mask=mask)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    matmul_kernel[grid](a, b, out, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        out.stride(0), out.stride(1), BM=32, BN=32, BK=16)  # fmt: skip
    return out
