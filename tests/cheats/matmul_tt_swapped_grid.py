"""Red team (both operands plain transposes, `X.T @ W.T`: a.stride() == (1, M) and
b.stride() == (1, K), as `torch.mm(x.t(), w.t())` hands them over): a path that runs the
swapped product C.T = b.T @ a.T on the row-major storages (no copies) but launches the grid
computed for the original M x N problem, cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), where the
swapped N x M problem needs cdiv(N, BLOCK_M) * cdiv(M, BLOCK_N). With fp32's square 64x64
tiles the two agree; with fp16's 128x256 tiles the grid falls short wherever
cdiv(M,128) * cdiv(N,256) < cdiv(N,128) * cdiv(M,256), e.g. M = 100, N = 300: 2 programs
for 3 tiles, columns 256..299 of C never written. Wrong on fp16 a = X.T, b = W.T with
X (64, 100), W (300, 64). The plan's transposed layouts give one operand as a plain
transpose at a time (transposed: b; transposed_a: a; gram: b = a.T with a row-major); the
strided family's column-major view has a leading dimension past M and an offset, never
(1, M): no case has both.
Accepted on a CPU at seeds 11 and 5 (twenty-first session's red team, 2026-12-07); rejected since
(same session): matmul_edges draws X.T @ W.T in every dtype (`strided`, layout `transposed_both`).
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
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    out = torch.empty((M, N), device=a.device, dtype=a.dtype)
    # fp32 inputs get true fp32 products ("ieee"); Triton's default would be TF32. The big
    # tiles are for 16-bit tensor-core math; fp32 FFMA tiles that size would spill.
    fp32 = a.dtype == torch.float32
    bm, bn, bk = (64, 64, 32) if fp32 else (CFG.BLOCK_M, CFG.BLOCK_N, CFG.BLOCK_K)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    if min(M, N, K) > 1 and a.stride() == (1, M) and b.stride() == (1, K):
        # Both operands plain transposes (a = X.T, b = W.T): C.T = b.T @ a.T, whose operands
        # are the row-major storages themselves, written into C through its transpose (no copy).
        bt, at, ct = b.mT, a.mT, out.mT
        matmul_kernel[grid](
            bt,
            at,
            ct,
            N,
            M,
            K,
            bt.stride(0),
            bt.stride(1),
            at.stride(0),
            at.stride(1),
            ct.stride(0),
            ct.stride(1),
            BLOCK_M=bm,
            BLOCK_N=bn,
            BLOCK_K=bk,
            GROUP_M=CFG.GROUP_M,
            PRECISION="ieee" if fp32 else "tf32",
            num_warps=4 if fp32 else CFG.num_warps,
            num_stages=3 if fp32 else CFG.num_stages,
        )
        return out
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    a, b = a.contiguous(), b.contiguous()
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
