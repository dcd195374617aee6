"""rmsnorm in TileLang: out = x / sqrt(mean(x^2, last dim) + eps) * weight, eps = 1e-6, one
CTA per row, in fp32 whatever the input dtype.

How
  * x is seen as (M, N / vec, vec) and weight as (N / vec, vec), `vec` the widest of 16, 8,
    4, 2 bytes or one element that divides N and every data pointer allows. The kernel
    indexes whole vectors, so it loads and stores 16 bytes at a time (LDG.128/STG.128 when
    vec is 16 bytes) with one predicate per vector, exact for every N: a vector is wholly
    inside the row or wholly past it. M and N / vec are symbolic: one compile per (dtype,
    vec, tile, threads), not per shape.
  * Rows that fit (N <= MAX_THREADS * ELEMS, 16384 by default): x and weight are read once
    into registers (the row rounded up to a power of two, ELEMS fp32 values of x and of
    weight a thread, so N / ELEMS threads, at least 32 and at most MAX_THREADS); the sum of squares
    is reduced across the CTA in fp32 and the row is written once. Bytes: N read + N
    written per row, plus the weight (shared by every row, served from L2).
  * Longer rows: pass 1 streams tiles of LONG_THREADS * ELEMS values of x, each register
    slot adding up its own squares (no barrier in the loop), reduced across the CTA once;
    pass 2 reads x again with the weight and writes. Bytes: 2N read + N written per row.
  * rstd = 1 / sqrt(mean + eps) with IEEE sqrt and division (no fast math): two roundings,
    where rsqrtf's approximation costs up to 2 ulp. Vectors past the row read as 0 and add
    nothing. A NaN in a row makes its sum NaN and the row NaN; an Inf makes rstd 0, so
    finite entries give 0 and the Inf gives NaN, as the fp64 reference computes it.

Accepted by `kpipe check` on the H200 (2026-12-03, benchmarks/results/h200-2026-12-03-b); slower than
our Triton at N = 8192 and 16384 there (one 1024-thread CTA a row, 47 registers: one CTA
an SM).
"""

import tilelang
import tilelang.language as T
import torch

from pipeline.knobs import knobs
from pipeline.tilelang_helpers import row_plan, vector_width

# MAX_THREADS: the most threads (a power of two, 32..1024) a one-pass row's CTA gets.
# ELEMS: row values a thread holds in registers (as fp32), a power of two >= 16 bytes' worth.
# LONG_THREADS: threads of the two-pass CTA (a tile of LONG_THREADS * ELEMS values).
CFG = knobs(__file__, MAX_THREADS=1024, ELEMS=16, LONG_THREADS=512)

DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
EPS = 1e-6


@tilelang.jit
def one_pass(dtype: str, vec: int, tile: int, threads: int):
    """The whole row in registers: `tile` vectors of `vec` elements, tile >= N / vec."""
    M, NV = T.symbolic("M"), T.symbolic("NV")

    @T.prim_func
    def rmsnorm_row(
        x: T.Tensor((M, NV, vec), dtype),
        weight: T.Tensor((NV, vec), dtype),
        out: T.Tensor((M, NV, vec), dtype),
    ):
        with T.Kernel(M, threads=threads) as row:
            v = T.alloc_fragment((tile * vec,), "float32")
            w = T.alloc_fragment((tile * vec,), "float32")
            sq = T.alloc_fragment((tile * vec,), "float32")
            sum_sq = T.alloc_fragment((1,), "float32")
            rstd = T.alloc_fragment((1,), "float32")
            # The weight is loaded with x, before the reduction's barriers, so both loads
            # are in flight together. Vectors past the row read as 0.
            for i, k in T.Parallel(tile, vec):
                v[i * vec + k] = T.if_then_else(i < NV, T.cast(x[row, i, k], "float32"), 0.0)
            for i, k in T.Parallel(tile, vec):
                w[i * vec + k] = T.if_then_else(i < NV, T.cast(weight[i, k], "float32"), 0.0)
            for j in T.Parallel(tile * vec):
                sq[j] = v[j] * v[j]
            T.reduce_sum(sq, sum_sq, dim=0, clear=True)
            rstd[0] = 1.0 / T.sqrt(sum_sq[0] / T.cast(NV * vec, "float32") + EPS)
            for i, k in T.Parallel(tile, vec):
                if i < NV:
                    out[row, i, k] = T.cast(v[i * vec + k] * rstd[0] * w[i * vec + k], dtype)

    return rmsnorm_row


@tilelang.jit
def two_pass(dtype: str, vec: int, tile: int, threads: int):
    """Rows longer than the registers hold: the sum of squares over tiles, then a write pass."""
    M, NV = T.symbolic("M"), T.symbolic("NV")

    @T.prim_func
    def rmsnorm_long_row(
        x: T.Tensor((M, NV, vec), dtype),
        weight: T.Tensor((NV, vec), dtype),
        out: T.Tensor((M, NV, vec), dtype),
    ):
        with T.Kernel(M, threads=threads) as row:
            v = T.alloc_fragment((tile * vec,), "float32")
            w = T.alloc_fragment((tile * vec,), "float32")
            sq = T.alloc_fragment((tile * vec,), "float32")  # per slot: the squares so far
            sum_sq = T.alloc_fragment((1,), "float32")
            rstd = T.alloc_fragment((1,), "float32")
            T.fill(sq, 0.0)
            for t in T.serial(T.ceildiv(NV, tile)):
                for i, k in T.Parallel(tile, vec):
                    v[i * vec + k] = T.if_then_else(
                        t * tile + i < NV, T.cast(x[row, t * tile + i, k], "float32"), 0.0
                    )
                for j in T.Parallel(tile * vec):
                    sq[j] += v[j] * v[j]
            T.reduce_sum(sq, sum_sq, dim=0, clear=True)
            rstd[0] = 1.0 / T.sqrt(sum_sq[0] / T.cast(NV * vec, "float32") + EPS)
            for t in T.serial(T.ceildiv(NV, tile)):
                for i, k in T.Parallel(tile, vec):
                    v[i * vec + k] = T.if_then_else(
                        t * tile + i < NV, T.cast(x[row, t * tile + i, k], "float32"), 0.0
                    )
                for i, k in T.Parallel(tile, vec):
                    w[i * vec + k] = T.if_then_else(
                        t * tile + i < NV, T.cast(weight[t * tile + i, k], "float32"), 0.0
                    )
                for i, k in T.Parallel(tile, vec):
                    if t * tile + i < NV:
                        out[row, t * tile + i, k] = T.cast(v[i * vec + k] * rstd[0] * w[i * vec + k], dtype)

    return rmsnorm_long_row


def kernel(x, weight):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x, weight = x.contiguous(), weight.contiguous()
    if x.dim() != 2 or weight.shape != (x.shape[1],) or x.dtype != weight.dtype:
        raise ValueError(f"rmsnorm/tilelang takes x (M, N) and weight (N,) of one dtype, got "
                         f"{tuple(x.shape)} {x.dtype} and {tuple(weight.shape)} {weight.dtype}")  # fmt: skip
    if x.dtype not in DTYPES:
        raise TypeError(f"rmsnorm/tilelang supports {list(DTYPES)}, got {x.dtype}")
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    if M == 0 or N == 0:
        return out
    vec = vector_width(N, x, weight, out)
    single, tile, threads = row_plan(N, vec, CFG.MAX_THREADS, CFG.ELEMS, CFG.LONG_THREADS)
    fn = one_pass if single else two_pass
    # as_strided, not view: a contiguous tensor may carry any stride on a dimension of size
    # 1 (a transposed column), and TileLang's launcher checks the innermost stride is 1.
    rows = ((M, N // vec, vec), (N, vec, 1))
    w = weight.as_strided((N // vec, vec), (vec, 1))
    fn(DTYPES[x.dtype], vec, tile, threads)(x.as_strided(*rows), w, out.as_strided(*rows))
    return out
