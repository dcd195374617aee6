"""matmul in TileLang: out = a @ b, tiles of a and b staged through shared memory by a
pipelined K loop; 16-bit inputs multiply on tensor cores (T.gemm) into an fp32
accumulator, fp32 inputs in true fp32 on the CUDA cores (T.gemm would round them to TF32,
which the fp32 tolerance refuses).

M, N and K are symbolic: one compile per dtype. TileLang loads the tiles with TMA
(UTMALDG in the SASS), which reads zeros past an edge and drops stores past it, but only
takes 16-byte aligned starts and row strides: other shapes are zero-padded to that first
(the bench shapes need no padding). HGMMA for 16-bit inputs in the SASS. On the H200
(2026-12-03) the judge rejected it twice, both times for its own doing (a padded output
moved out, then the judge's comparison seen as compute): both fixed on the CPU since, not
yet re-run on a GPU (benchmarks/results/h200-2026-12-03-b).
"""

import tilelang
import tilelang.language as T
import torch

ALIGN_BYTES = 16  # TMA: a tensor's start and its row stride, in multiples of 16 bytes
DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
# (block_M, block_N, block_K, threads, stages): 16-bit on tensor cores, fp32 on CUDA cores
TILES = {"tensor_cores": (128, 128, 64, 256, 3), "fp32": (64, 64, 16, 256, 2)}


@tilelang.jit
def gemm(dtype: str):
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
    bm, bn, bk, threads, stages = TILES["fp32" if dtype == "float32" else "tensor_cores"]

    @T.prim_func
    def gemm_kernel(a: T.Tensor((M, K), dtype), b: T.Tensor((K, N), dtype), out: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=threads) as (bx, by):
            a_tile = T.alloc_shared((bm, bk), dtype)
            b_tile = T.alloc_shared((bk, bn), dtype)
            acc = T.alloc_fragment((bm, bn), "float32")
            T.clear(acc)
            for ko in T.Pipelined(T.ceildiv(K, bk), num_stages=stages):
                T.copy(a[by * bm, ko * bk], a_tile)
                T.copy(b[ko * bk, bx * bn], b_tile)
                if dtype == "float32":
                    for i, j in T.Parallel(bm, bn):
                        for k in T.serial(bk):
                            acc[i, j] += a_tile[i, k] * b_tile[k, j]
                else:
                    T.gemm(a_tile, b_tile, acc)
            T.copy(acc, out[by * bm, bx * bn])

    return gemm_kernel


def _padded(t, rows: int, cols: int):
    """`t` itself when its shape is (rows, cols) and TMA can read it (16-byte aligned start
    and row stride), else a zero-filled (rows, cols) buffer with `t` copied into its corner
    (zeros add nothing to a product)."""
    if tuple(t.shape) == (rows, cols) and t.data_ptr() % ALIGN_BYTES == 0:
        return t
    padded = torch.zeros((rows, cols), device=t.device, dtype=t.dtype)
    padded[: t.shape[0], : t.shape[1]].copy_(t)
    return padded


def kernel(a, b):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    a, b = a.contiguous(), b.contiguous()
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0] or a.dtype != b.dtype:
        raise ValueError(f"matmul/tilelang takes (M, K) @ (K, N) of one dtype, got "
                         f"{tuple(a.shape)} {a.dtype} and {tuple(b.shape)} {b.dtype}")  # fmt: skip
    if a.dtype not in DTYPES:
        raise TypeError(f"matmul/tilelang supports {list(DTYPES)}, got {a.dtype}")
    (M, K), N = a.shape, b.shape[1]
    if 0 in (M, N, K):
        return torch.zeros((M, N), device=a.device, dtype=a.dtype)
    # TMA reads rows whose stride is a multiple of 16 bytes: round K and N up where needed
    unit = ALIGN_BYTES // a.element_size()
    k_pad, n_pad = -(-K // unit) * unit, -(-N // unit) * unit
    out = torch.empty((M, n_pad), device=a.device, dtype=a.dtype)
    gemm(DTYPES[a.dtype])(_padded(a, M, k_pad), _padded(b, k_pad, n_pad), out)
    return out if n_pad == N else out[:, :N].contiguous()
