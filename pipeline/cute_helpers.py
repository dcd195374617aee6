"""What the CuTe DSL candidates (kernels/<op>/cute.py) share, so each file holds only its op.

Host side: the dtype map, the widest vector the sizes and pointers allow, global-memory
pointers that carry that alignment, torch's current stream, and a compile cache keyed by
specialization.

Device side, for kernels that give one row to a CTA: a row is moved in blocks of
`threads * vec * per_thread` elements, each thread copying `per_thread` vectors of `vec`
contiguous elements (consecutive threads take consecutive vectors: coalesced). Because
`vec` divides the row length, a vector lies wholly inside the row or wholly past its end,
so one predicate per vector is exact. The load/store helpers are plain Python run while a
kernel is traced, so each call inlines its code; block_reduce is a @cute.jit.

It lives in pipeline/ because every stage depends on that folder: a change here re-runs
the stages of every candidate that uses it (import it only from CuTe candidates: it
needs cutlass).
"""

from __future__ import annotations

import cuda.bindings.driver as cuda
import cutlass
import cutlass.cute as cute
import torch
from cutlass import Float32
from cutlass.cute.runtime import make_ptr

DTYPES = {torch.float32: cutlass.Float32, torch.float16: cutlass.Float16, torch.bfloat16: cutlass.BFloat16}


# ---------------------------------------------------------------------------------- host


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def vector_width(n: int, *tensors: torch.Tensor) -> int:
    """Elements per access: 16 bytes at most, dividing n and every tensor's start address."""
    esize = tensors[0].element_size()
    align = 16
    for t in tensors:
        while t.data_ptr() % align:
            align //= 2
    vec = 16 // esize
    while vec > 1 and (n % vec or align % (vec * esize)):
        vec //= 2
    return vec


def row_plan(n: int, vec: int, max_threads: int, max_elems: int) -> tuple[int, int]:
    """(threads, per_thread) for a row of n elements moved `vec` at a time: the fewest
    threads (a power of two >= 32, at most max_threads) that hold the row with max_elems
    values each, and the vectors per thread in one block (capped by max_elems)."""
    nvec = ceil_div(n, vec)
    threads = 32
    while threads < max_threads and ceil_div(nvec, threads) * vec > max_elems:
        threads *= 2
    return threads, max(1, min(ceil_div(nvec, threads), max_elems // vec))


def gmem_ptr(t: torch.Tensor, vec: int):
    """A global-memory pointer to t that promises the alignment `vec` relies on (which
    vector_width checked)."""
    return make_ptr(
        DTYPES[t.dtype], t.data_ptr(), cute.AddressSpace.gmem, assumed_align=vec * t.element_size()
    )


def current_stream(t: torch.Tensor) -> cuda.CUstream:
    """The current torch stream (a CUDA graph capture records launches made on it). On a
    CPU (the compile stage's capture mode) nothing is launched, so any stream will do."""
    if t.is_cuda:
        return cuda.CUstream(torch.cuda.current_stream(t.device).cuda_stream)
    return cuda.CUstream(0)


def compile_once(cache: dict, key, host_fn, *args):
    """host_fn compiled for this specialization, compiled on the first call only.
    cute.compile is looked up at call time: the compile stage swaps it for a capturing one."""
    fn = cache.get(key)
    if fn is None:
        fn = cache[key] = cute.compile(host_fn, *args)
    return fn


# -------------------------------------------------------------------------------- device


def row_predicate(thr, c_row, b, block: int, n: int, frag):
    """One flag per vector of this thread in block b: does the vector lie inside the row?"""
    coords = thr.partition_S(cute.local_tile(c_row, (block,), (b,)))  # ((vec,1), per_thread)
    per_thread = cute.size(frag, mode=[1])
    pred = cute.make_rmem_tensor((1, per_thread), cutlass.Boolean)
    for k in range(per_thread):
        pred[0, k] = cute.elem_less(coords[(0, k)], (n,))
    return pred


def load_block(thr, atom, g_row, c_row, b, block: int, n: int, frag, fill: float, predicated: bool):
    """Copy block b of a row (global) into frag (registers); return it as fp32. When the
    block runs past the row end (predicated), a vector past n is not read and keeps `fill`."""
    src = thr.partition_S(cute.local_tile(g_row, (block,), (b,)))
    if predicated:
        pred = row_predicate(thr, c_row, b, block, n, frag)
        frag.fill(fill)
        cute.copy(atom, src, frag, pred=pred)
    else:
        cute.copy(atom, src, frag)
    return frag.load().to(Float32)


def store_block(thr, atom, g_row, c_row, b, block: int, n: int, frag, values, predicated: bool):
    """Round fp32 `values` to the output dtype and write them to block b of a row."""
    frag.store(values.to(frag.element_type))
    dst = thr.partition_D(cute.local_tile(g_row, (block,), (b,)))
    if predicated:
        cute.copy(atom, frag, dst, pred=row_predicate(thr, c_row, b, block, n, frag))
    else:
        cute.copy(atom, frag, dst)


def fadd(a, b):
    return a + b


def fmax(a, b):
    return cute.arch.fmax(a, b)


@cute.jit
def block_reduce(val: Float32, op: cutlass.Constexpr, buf: cute.Tensor, num_warps: cutlass.Constexpr):
    """Reduce one fp32 per thread over the CTA with op (fadd, fmax): shuffles within each
    warp, then each warp's result through shared memory (`buf`, one slot per warp)."""
    val = cute.arch.warp_reduction(val, op)
    if cutlass.const_expr(num_warps > 1):
        # warp_idx() is made warp-uniform by a full-warp shuffle: it must run in all lanes,
        # outside the lane-0 branch (a full-mask shuffle in one lane deadlocks).
        warp, lane = cute.arch.warp_idx(), cute.arch.lane_idx()
        if lane == 0:
            buf[warp] = val
        cute.arch.barrier()
        val = buf[0]
        for w in cutlass.range_constexpr(1, num_warps):
            val = op(val, buf[w])
    return val
