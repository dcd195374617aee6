"""CuTe DSL: one tile of THREADS x VECS_PER_THREAD 128-bit vectors per CTA, fp32 add, predicates only in the last tile.

Design
  * n stays dynamic: a compile is specialized only on the dtype and the vector width.
  * Each thread moves `vec` contiguous elements per access: 16 bytes (LDG.128/STG.128) when
    n and the data pointers allow it, else the widest of 8, 4, 2 bytes or a single element
    that divides n. Then every tile ends on a vector boundary, a vector is either wholly
    inside the tensor or wholly outside it, and one predicate per vector is exact.
  * Consecutive threads take consecutive vectors (coalesced); a thread issues its
    VECS_PER_THREAD loads of x and of y before it adds, so several are in flight at once.
  * Full tiles copy without predicates; only the last tile (n not a multiple of the tile)
    checks each vector against n. Bytes: n read of x, n read of y, n written.
"""

import cuda.bindings.driver as cuda
import cutlass
import cutlass.cute as cute
import torch
from cutlass import Float32, Int32, Int64

from pipeline.cute_helpers import DTYPES, compile_once, current_stream, gmem_ptr, vector_width
from pipeline.knobs import knobs

# THREADS: threads per CTA. VECS_PER_THREAD: vectors (accesses) each thread moves per tensor.
CFG = knobs(__file__, THREADS=256, VECS_PER_THREAD=4)

_COMPILED: dict = {}  # (torch dtype, vec, threads, per_thread) -> compiled function


@cute.kernel
def _add_kernel(
    x_ptr: cute.Pointer,
    y_ptr: cute.Pointer,
    o_ptr: cute.Pointer,
    n: Int32,
    dtype: cutlass.Constexpr,
    vec: cutlass.Constexpr,
    threads: cutlass.Constexpr,
    per_thread: cutlass.Constexpr,
):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    tile = threads * vec * per_thread  # elements per CTA

    # View the flat tensors as rows of one tile each and take this CTA's row. The tile is
    # static, so the row start keeps the pointers' alignment (copies stay 128-bit); the
    # row offset is 64-bit.
    tiles = cute.make_layout((cute.ceil_div(n, tile), tile), stride=(tile, 1))
    g_x = cute.make_tensor(x_ptr, tiles)[Int64(bidx), None]
    g_y = cute.make_tensor(y_ptr, tiles)[Int64(bidx), None]
    g_o = cute.make_tensor(o_ptr, tiles)[Int64(bidx), None]

    atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), dtype, num_bits_per_copy=vec * dtype.width)
    thr = cute.make_tiled_copy_tv(atom, cute.make_layout(threads), cute.make_layout(vec)).get_slice(tidx)
    t_x, t_y, t_o = thr.partition_S(g_x), thr.partition_S(g_y), thr.partition_D(g_o)
    frag_x = cute.make_fragment_like(t_x)  # ((vec,1), per_thread) in registers
    frag_y = cute.make_fragment_like(t_y)

    remaining = n - bidx * tile  # elements of this tile inside the tensor
    if remaining >= tile:
        cute.copy(atom, t_x, frag_x)
        cute.copy(atom, t_y, frag_y)
        total = frag_x.load().to(Float32) + frag_y.load().to(Float32)
        frag_x.store(total.to(dtype))
        cute.copy(atom, frag_x, t_o)
    else:
        # Last tile: a vector is copied only if its first element (hence all of it) is < n.
        coords = thr.partition_S(cute.make_identity_tensor((tile,)))
        pred = cute.make_rmem_tensor((1, per_thread), cutlass.Boolean)
        for k in cutlass.range_constexpr(per_thread):
            pred[0, k] = cute.elem_less(coords[(0, k)], (remaining,))
        frag_x.fill(0.0)
        frag_y.fill(0.0)
        cute.copy(atom, t_x, frag_x, pred=pred)
        cute.copy(atom, t_y, frag_y, pred=pred)
        total = frag_x.load().to(Float32) + frag_y.load().to(Float32)
        frag_x.store(total.to(dtype))
        cute.copy(atom, frag_x, t_o, pred=pred)


@cute.jit
def _add_host(
    x_ptr: cute.Pointer,
    y_ptr: cute.Pointer,
    o_ptr: cute.Pointer,
    n: Int32,
    stream: cuda.CUstream,
    dtype: cutlass.Constexpr,
    vec: cutlass.Constexpr,
    threads: cutlass.Constexpr,
    per_thread: cutlass.Constexpr,
):
    tile = threads * vec * per_thread
    _add_kernel(x_ptr, y_ptr, o_ptr, n, dtype, vec, threads, per_thread).launch(
        grid=[cute.ceil_div(n, tile), 1, 1], block=[threads, 1, 1], stream=stream
    )


def kernel(x, y):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x, y = x.contiguous(), y.contiguous()
    if x.shape != y.shape or x.dtype != y.dtype or not x.is_contiguous() or not y.is_contiguous():
        raise ValueError(
            f"vector_add/cute takes two contiguous tensors of one shape and dtype, "
            f"got {tuple(x.shape)} {x.dtype} and {tuple(y.shape)} {y.dtype}"
        )
    if x.dtype not in DTYPES:
        raise TypeError(f"vector_add/cute supports {list(DTYPES)}, got {x.dtype}")
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    if n >= 2**31:
        raise ValueError(f"vector_add/cute indexes with 32-bit sizes; n = {n} is too large")
    vec = vector_width(n, x, y, out)
    threads, per_thread = CFG.THREADS, CFG.VECS_PER_THREAD
    ptrs = [gmem_ptr(t, vec) for t in (x, y, out)]
    stream = current_stream(x)
    fn = compile_once(
        _COMPILED,
        (x.dtype, vec, threads, per_thread),
        _add_host,
        *ptrs,
        Int32(n),
        stream,
        DTYPES[x.dtype],
        vec,
        threads,
        per_thread,
    )
    fn(*ptrs, Int32(n), stream)
    return out
