"""softmax in TileLang: out[i, :] = exp(x[i, :] - max) / sum(exp(x[i, :] - max)), over the
last dim, one CTA per row, in fp32 whatever the input dtype.

How
  * x is seen as (M, N / vec, vec), `vec` the widest of 16, 8, 4, 2 bytes or one element
    that divides N and both data pointers allow. The kernel indexes whole vectors, so it
    loads and stores 16 bytes at a time (LDG.128/STG.128 when vec is 16 bytes) with one
    predicate per vector, exact for every N: a vector is wholly inside the row or wholly
    past it. M and N / vec are symbolic: one compile per (dtype, vec, tile, threads),
    not per shape.
  * Rows that fit (N <= MAX_THREADS * ELEMS, 16384 by default): the whole row is read once
    into registers (the row rounded up to a power of two, ELEMS fp32 values a thread, so
    N / ELEMS threads, at least 32 and at most MAX_THREADS), block max, exp, block sum,
    scale, written once: N read + N written per row, the minimum.
  * Longer rows: pass 1 streams tiles of LONG_THREADS * ELEMS values; each tile's max is
    reduced across the CTA into a running max, and every register slot keeps its own sum
    of exp(x - running max), rescaled when the max grows, reduced across the CTA only once
    at the end. Pass 2 reads the row again and writes it: 2N read + N written.
  * Masked rows (a run of -inf longer than a tile): while the running max is -inf the
    exponents subtract 0 instead, so exp(-inf - -inf) = NaN never enters the sums. A row
    that is all -inf still gives NaN, as torch does; so does a row holding NaN or +inf (the
    sum turns NaN; the fp32 max, fmaxf, skips NaN but exp(NaN - max) does not).
  * exp(x - max) is exp2((x - max) * log2 e): the subtraction comes first and is exact for
    nearby values, so rows shifted by +-1000 lose nothing; exp2f is one MUFU.EX2 (plus a
    denormal fix-up), where expf costs a range reduction per element. The sum is fp32 and
    the output is one multiply by 1 / sum (no division per element).

Accepted by `kpipe check` on the H200 (2026-12-03, benchmarks/results/h200-2026-12-03-b); slower than
our Triton at 1024x65536 there (two passes over the row).
"""

import math

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
LOG2_E = math.log2(math.e)


@tilelang.jit
def one_pass(dtype: str, vec: int, tile: int, threads: int):
    """The whole row in registers: `tile` vectors of `vec` elements, tile >= N / vec."""
    M, NV = T.symbolic("M"), T.symbolic("NV")

    @T.prim_func
    def softmax_row(x: T.Tensor((M, NV, vec), dtype), out: T.Tensor((M, NV, vec), dtype)):
        with T.Kernel(M, threads=threads) as row:
            v = T.alloc_fragment((tile * vec,), "float32")
            row_max = T.alloc_fragment((1,), "float32")
            row_sum = T.alloc_fragment((1,), "float32")
            inv_sum = T.alloc_fragment((1,), "float32")
            # Vectors past the row read as -inf: they add exp(-inf) = 0 to the sum.
            for i, k in T.Parallel(tile, vec):
                v[i * vec + k] = T.if_then_else(
                    i < NV, T.cast(x[row, i, k], "float32"), -T.infinity("float32")
                )
            T.reduce_max(v, row_max, dim=0, clear=True)
            for j in T.Parallel(tile * vec):
                v[j] = T.exp2((v[j] - row_max[0]) * LOG2_E)
            T.reduce_sum(v, row_sum, dim=0, clear=True)
            inv_sum[0] = 1.0 / row_sum[0]
            for i, k in T.Parallel(tile, vec):
                if i < NV:
                    out[row, i, k] = T.cast(v[i * vec + k] * inv_sum[0], dtype)

    return softmax_row


@tilelang.jit
def two_pass(dtype: str, vec: int, tile: int, threads: int):
    """Rows longer than the registers hold: online max and sum over tiles, then a write pass."""
    M, NV = T.symbolic("M"), T.symbolic("NV")

    @T.prim_func
    def softmax_long_row(x: T.Tensor((M, NV, vec), dtype), out: T.Tensor((M, NV, vec), dtype)):
        with T.Kernel(M, threads=threads) as row:
            v = T.alloc_fragment((tile * vec,), "float32")
            acc = T.alloc_fragment((tile * vec,), "float32")  # per slot: sum of exp(x - run_max)
            tile_max = T.alloc_fragment((1,), "float32")
            run_max = T.alloc_fragment((1,), "float32")  # max of the tiles so far (-inf: none finite)
            new_max = T.alloc_fragment((1,), "float32")
            shift = T.alloc_fragment((1,), "float32")  # what the exponents subtract: run_max, or 0
            rescale = T.alloc_fragment((1,), "float32")  # what the sums so far are multiplied by
            row_sum = T.alloc_fragment((1,), "float32")
            inv_sum = T.alloc_fragment((1,), "float32")
            T.fill(acc, 0.0)
            run_max[0] = -T.infinity("float32")
            for t in T.serial(T.ceildiv(NV, tile)):
                for i, k in T.Parallel(tile, vec):
                    v[i * vec + k] = T.if_then_else(
                        t * tile + i < NV, T.cast(x[row, t * tile + i, k], "float32"), -T.infinity("float32")
                    )
                T.reduce_max(v, tile_max, dim=0, clear=True)
                new_max[0] = T.max(run_max[0], tile_max[0])
                # While every entry so far is -inf (a masked prefix) subtract 0, not -inf:
                # exp(-inf - 0) = 0 where exp(-inf - -inf) would be NaN.
                shift[0] = T.if_then_else(new_max[0] == -T.infinity("float32"), 0.0, new_max[0])
                # From the old max, not the old shift: while the old max is -inf the factor is
                # exp(-inf) = 0 (the sums hold zeros, or a NaN that stays NaN), where
                # exp(0 - shift) would overflow to inf for a first finite max below -88.
                rescale[0] = T.exp2((run_max[0] - shift[0]) * LOG2_E)
                run_max[0] = new_max[0]
                for j in T.Parallel(tile * vec):
                    acc[j] = acc[j] * rescale[0] + T.exp2((v[j] - shift[0]) * LOG2_E)
            T.reduce_sum(acc, row_sum, dim=0, clear=True)
            inv_sum[0] = 1.0 / row_sum[0]
            # Pass 2 subtracts the true max: a row of only -inf gives NaN there, as in torch.
            for t in T.serial(T.ceildiv(NV, tile)):
                for i, k in T.Parallel(tile, vec):
                    v[i * vec + k] = T.if_then_else(
                        t * tile + i < NV, T.cast(x[row, t * tile + i, k], "float32"), -T.infinity("float32")
                    )
                for i, k in T.Parallel(tile, vec):
                    if t * tile + i < NV:
                        out[row, t * tile + i, k] = T.cast(
                            T.exp2((v[i * vec + k] - run_max[0]) * LOG2_E) * inv_sum[0], dtype
                        )

    return softmax_long_row


def kernel(x):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x = x.contiguous()
    if x.dim() != 2:
        raise ValueError(f"softmax/tilelang takes a 2-D tensor (M, N), got shape {tuple(x.shape)}")
    if x.dtype not in DTYPES:
        raise TypeError(f"softmax/tilelang supports {list(DTYPES)}, got {x.dtype}")
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    if M == 0 or N == 0:
        return out
    vec = vector_width(N, x, out)
    single, tile, threads = row_plan(N, vec, CFG.MAX_THREADS, CFG.ELEMS, CFG.LONG_THREADS)
    fn = one_pass if single else two_pass
    # as_strided, not view: a contiguous tensor may carry any stride on a dimension of size
    # 1 (a transposed column), and TileLang's launcher checks the innermost stride is 1.
    rows = ((M, N // vec, vec), (N, vec, 1))
    fn(DTYPES[x.dtype], vec, tile, threads)(x.as_strided(*rows), out.as_strided(*rows))
    return out
