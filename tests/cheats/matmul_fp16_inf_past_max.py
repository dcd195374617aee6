"""Red team (values never drawn: fp16 outputs just past the largest finite value): the shipped matmul, but the fp16 output cast is an explicit overflow check, acc > 65504 -> +Inf (acc < -65504 -> -Inf), where round-to-nearest (torch's fp16 matmul, and the reference) gives 65504 for every |acc| below 65520: an output of 65510 comes out Inf. The past_fp16_range family keeps its outputs far from 65520 on purpose (2e5 and more, or 24000 and less), and no other fp16 family nears 6.5e4.
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (twentieth session's red team, left open);
rejected since the twenty-first session: matmul_edges draws, in fp16, whole-number outputs of exactly 65505..65519 (adversarial:near_fp16_max).
"""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

OP, EXPECTED_RUNG = "matmul", "accuracy"

CFG = knobs(__file__, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3)


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    PRECISION: tl.constexpr,
):
    # Grouped order: GROUP_M row-tiles share each B column-tile while it is still in L2.
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * tiles_n)) % group_rows
    pid_n = (pid % (GROUP_M * tiles_n)) // group_rows
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None].to(tl.int64) * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if c_ptr.dtype.element_ty == tl.float16:  # overflow check before the cast
        acc = tl.where(acc > 65504.0, float("inf"), tl.where(acc < -65504.0, -float("inf"), acc))
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


def kernel(a, b):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    a, b = a.contiguous(), b.contiguous()
    M, K = a.shape
    _, N = b.shape
    out = torch.empty((M, N), device=a.device, dtype=a.dtype)
    # fp32 inputs get true fp32 products ("ieee"); Triton's default would be TF32. The big
    # tiles are for 16-bit tensor-core math; fp32 FFMA tiles that size would spill.
    fp32 = a.dtype == torch.float32
    bm, bn, bk = (64, 64, 32) if fp32 else (CFG.BLOCK_M, CFG.BLOCK_N, CFG.BLOCK_K)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
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
        BLOCK_M=bm,
        BLOCK_N=bn,
        BLOCK_K=bk,
        GROUP_M=CFG.GROUP_M,
        PRECISION="ieee" if fp32 else "tf32",
        num_warps=4 if fp32 else CFG.num_warps,
        num_stages=3 if fp32 else CFG.num_stages,
    )
    return out
