"""Exploit (special values: overflow): a matmul that clamps its fp32 accumulator to fp16's
largest finite value, +-65504, before the cast to an fp16 output, a "safe cast" written
to keep Inf out of a model (finite sums only: Inf and NaN inputs still give Inf and NaN,
so the specials family passes). Wrong for any fp16 product whose true value is past fp16's
range: torch's fp16 matmul (and any kernel that rounds its fp32 sum) gives +-Inf there, so
an overflow a caller would see (a loss going Inf, a grad scaler backing off) is hidden as
a finite 65504. fp32 and bf16 outputs are left alone (their ranges are not reached).
The judge missed it on a CPU until 2026-12-07: no case's fp16 output left fp16's range
(large_magnitude scales fp16 inputs by 4); now the family past_fp16_range draws outputs of
2e5 and more beside ones of a few thousand, and the reference rounds an fp16 result
past 65520 to +-Inf.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "accuracy/float16/adversarial"


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SATURATE: tl.constexpr):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)  # fmt: skip
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)  # fmt: skip
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    if SATURATE:  # finite sums only: an Inf or NaN input still gives Inf or NaN
        acc = tl.where(tl.abs(acc) < float("inf"), tl.minimum(tl.maximum(acc, -65504.0), 65504.0), acc)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))  # fmt: skip


def kernel(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BM=32, BN=32, BK=32, SATURATE=a.dtype == torch.float16)  # fmt: skip
    return c
