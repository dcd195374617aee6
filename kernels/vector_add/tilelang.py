"""vector_add in TileLang: out = x + y, one thread per element of a block of BLOCK.

The length is symbolic, so there is one compile per dtype, not one per length. Accepted
by the judge and timed by the bench stage on the H200 (2026-12-03, benchmarks/results/h200-2026-12-03-b).
"""

import tilelang
import tilelang.language as T
import torch

BLOCK, THREADS = 1024, 256  # four elements per thread
DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}


@tilelang.jit
def add(dtype: str):
    n = T.symbolic("n")

    @T.prim_func
    def add_kernel(x: T.Tensor((n,), dtype), y: T.Tensor((n,), dtype), out: T.Tensor((n,), dtype)):
        with T.Kernel(T.ceildiv(n, BLOCK), threads=THREADS) as bx:
            for i in T.Parallel(BLOCK):
                if bx * BLOCK + i < n:
                    out[bx * BLOCK + i] = x[bx * BLOCK + i] + y[bx * BLOCK + i]

    return add_kernel


def kernel(x, y):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x, y = x.contiguous(), y.contiguous()
    if x.shape != y.shape or x.dtype != y.dtype or x.dim() != 1:
        raise ValueError(
            f"vector_add/tilelang takes two 1-D tensors of one shape and dtype, "
            f"got {tuple(x.shape)} {x.dtype} and {tuple(y.shape)} {y.dtype}"
        )
    if x.dtype not in DTYPES:
        raise TypeError(f"vector_add/tilelang supports {list(DTYPES)}, got {x.dtype}")
    if x.numel() >= 2**31:
        raise ValueError(f"vector_add/tilelang indexes with 32-bit sizes; n = {x.numel()} is too large")
    out = torch.empty_like(x)
    if x.numel():
        add(DTYPES[x.dtype])(x, y, out)
    return out
