"""Exploit (input coverage: output tile counts never drawn on a CPU): a persistent matmul
(one program per SM, each walking the output tiles tile, tile + NUM_SMS, ...) that zeroes
its accumulator once, before the tile loop, instead of once per tile: the classic slip of
turning a one-tile-per-program kernel persistent. Every program's second and later tiles
come out as their own product PLUS every earlier tile's product of that program.

It is right whenever the number of output tiles is at most the number of programs
(NUM_SMS: the device's SM count on a GPU, 132 (an H100's) on a CPU). The red team's
version (tenth session) had 64x64 tiles and passed a CPU while no drawn shape had more
than ~85 of them; the many-rows draw of matmul then became 1537..1551 both ways (169 tiles
of 128). Its tiles are 128 x 256 now, the harder case (a shape with more such tiles than
programs has more of any smaller tile too): that square held only 91 of them, so this
passed a CPU until the draw became 16897..16911 by 1 or 3, and the same across (twelfth
session; judged on an H100 that day as matmul_persistent_128x256, rejected at accuracy).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "accuracy"
BM, BN, BK = 128, 256, 32


def _num_sms():
    if torch.cuda.is_available():
        return torch.cuda.get_device_properties(0).multi_processor_count
    return 132  # an H100's


NUM_SMS = _num_sms()


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
    NPROG,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    PRECISION: tl.constexpr,
):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    num_tiles = tl.cdiv(M, BLOCK_M) * tiles_n
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)  # BUG: belongs inside the tile loop
    for tile in range(pid, num_tiles, NPROG):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        a_ptrs = a_ptr + rm[:, None].to(tl.int64) * sam + rk[None, :] * sak
        b_ptrs = b_ptr + rk[:, None].to(tl.int64) * sbk + rn[None, :] * sbn
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
            a_ptrs += BLOCK_K * sak
            b_ptrs += BLOCK_K * sbk
        c_ptrs = c_ptr + rm[:, None].to(tl.int64) * scm + rn[None, :] * scn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    out = torch.empty((M, N), device=a.device, dtype=a.dtype)
    tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
    nprog = min(NUM_SMS, tiles)
    matmul_kernel[(nprog,)](
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
        nprog,
        BLOCK_M=BM,
        BLOCK_N=BN,
        BLOCK_K=BK,
        PRECISION="ieee" if a.dtype == torch.float32 else "tf32",
    )
    return out
