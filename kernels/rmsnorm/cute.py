"""CuTe DSL: one row per CTA, 128-bit vectorized loads/stores, row kept in registers, fp32 sum of squares reduced across warps (very long rows: two streaming passes).

Design
  * One CTA per row; grid = M, so M stays dynamic and only N is baked into a compile.
  * Each thread moves `vec` contiguous elements per access: 16 bytes (LDG.128/STG.128) when
    N and the data pointers allow it, else the widest of 8, 4, 2 bytes or a single element
    that divides N (every row then starts aligned, so a vector is either wholly inside the
    row or wholly outside it, and one predicate per vector is exact).
  * Consecutive threads take consecutive vectors (coalesced); a thread holds `per_thread`
    vectors of a `block` = threads * vec * per_thread elements, at most MAX_ELEMS values.
  * Row fits in one block (N <= MAX_THREADS * MAX_ELEMS): x and weight are read once into
    registers, the sum of squares is reduced in fp32, and the row is written once. Bytes:
    N read + N written per row, plus the weight (N, shared by all rows, served from L2).
  * Longer rows: pass 1 streams x for the sum of squares; pass 2 re-reads x and the
    weight and writes. Bytes: 2N read + N written per row, plus the weight.
"""

import cuda.bindings.driver as cuda
import cutlass
import cutlass.cute as cute
import torch
from cutlass import Float32, Int32, Int64

from pipeline.cute_helpers import (
    DTYPES,
    block_reduce,
    compile_once,
    current_stream,
    fadd,
    gmem_ptr,
    load_block,
    row_plan,
    store_block,
    vector_width,
)
from pipeline.knobs import knobs

EPS = 1e-6

# MAX_THREADS: the most threads (a power of two, 32..1024) a row's CTA gets.
# MAX_ELEMS: the most row elements a thread holds in registers (as fp32) at one time.
CFG = knobs(__file__, MAX_THREADS=512, MAX_ELEMS=32)

_COMPILED: dict = {}  # (torch dtype, N, vec, threads, per_thread) -> compiled function


def _sum_of_squares(x):
    return (x * x).reduce(cute.ReductionOp.ADD, 0.0, 0)


# ------------------------------------------------------------------------------ kernel


@cute.kernel
def _rmsnorm_kernel(
    x_ptr: cute.Pointer,
    w_ptr: cute.Pointer,
    o_ptr: cute.Pointer,
    M: Int32,
    dtype: cutlass.Constexpr,
    N: cutlass.Constexpr,
    vec: cutlass.Constexpr,
    threads: cutlass.Constexpr,
    per_thread: cutlass.Constexpr,
):
    tidx, _, _ = cute.arch.thread_idx()
    row, _, _ = cute.arch.block_idx()
    block = threads * vec * per_thread  # row elements the CTA covers in one step
    full_blocks = N // block  # blocks wholly inside the row: no predicates
    has_tail = N % block != 0  # a last, partial block: predicated per vector
    num_warps = threads // 32

    # This CTA's row of x and out, and the weight. The row offset is 64-bit (M * N may
    # pass 2^31); N is static, so the row start keeps the pointers' 16-byte alignment.
    rows = cute.make_layout((M, N), stride=(N, 1))
    g_x = cute.make_tensor(x_ptr, rows)[Int64(row), None]
    g_o = cute.make_tensor(o_ptr, rows)[Int64(row), None]
    g_w = cute.make_tensor(w_ptr, cute.make_layout(N))
    c_row = cute.make_identity_tensor((N,))  # column index of every element, for predicates

    atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), dtype, num_bits_per_copy=vec * dtype.width)
    thr = cute.make_tiled_copy_tv(atom, cute.make_layout(threads), cute.make_layout(vec)).get_slice(tidx)
    frag_x = cute.make_fragment_like(thr.partition_S(cute.local_tile(g_x, (block,), (0,))))
    frag_w = cute.make_fragment_like(frag_x)

    smem = cutlass.utils.SmemAllocator()
    red = smem.allocate_tensor(Float32, cute.make_layout(num_warps), byte_alignment=16)

    if cutlass.const_expr(full_blocks + has_tail == 1):
        # The whole row in registers: one read, one write. The weight load is issued
        # before the reduction so that its latency hides behind it.
        x = load_block(thr, atom, g_x, c_row, 0, block, N, frag_x, 0.0, has_tail)
        w = load_block(thr, atom, g_w, c_row, 0, block, N, frag_w, 0.0, has_tail)
        total = block_reduce(_sum_of_squares(x), fadd, red, num_warps)
        rstd = cute.math.rsqrt(total / N + EPS, fastmath=True)
        store_block(thr, atom, g_o, c_row, 0, block, N, frag_x, x * rstd * w, has_tail)
    else:
        # Pass 1: each thread's sum of squares over the row, then over the CTA. (Loop bodies
        # bind no names: a name bound inside a dynamic loop must not be bound again by a
        # later loop, or the DSL sees it undefined on one path.)
        part = Float32(0.0)
        for b in cutlass.range(full_blocks, unroll=1):
            part = part + _sum_of_squares(load_block(thr, atom, g_x, c_row, b, block, N, frag_x, 0.0, False))
        if cutlass.const_expr(has_tail):
            part = part + _sum_of_squares(
                load_block(thr, atom, g_x, c_row, full_blocks, block, N, frag_x, 0.0, True)
            )
        total = block_reduce(part, fadd, red, num_warps)
        rstd = cute.math.rsqrt(total / N + EPS, fastmath=True)
        # Pass 2: read x (again) and the weight, write x * rstd * weight.
        for b in cutlass.range(full_blocks, unroll=1):
            store_block(
                thr,
                atom,
                g_o,
                c_row,
                b,
                block,
                N,
                frag_x,
                load_block(thr, atom, g_x, c_row, b, block, N, frag_x, 0.0, False)
                * rstd
                * load_block(thr, atom, g_w, c_row, b, block, N, frag_w, 0.0, False),
                False,
            )
        if cutlass.const_expr(has_tail):
            store_block(
                thr,
                atom,
                g_o,
                c_row,
                full_blocks,
                block,
                N,
                frag_x,
                load_block(thr, atom, g_x, c_row, full_blocks, block, N, frag_x, 0.0, True)
                * rstd
                * load_block(thr, atom, g_w, c_row, full_blocks, block, N, frag_w, 0.0, True),
                True,
            )


@cute.jit
def _rmsnorm_host(
    x_ptr: cute.Pointer,
    w_ptr: cute.Pointer,
    o_ptr: cute.Pointer,
    M: Int32,
    stream: cuda.CUstream,
    dtype: cutlass.Constexpr,
    N: cutlass.Constexpr,
    vec: cutlass.Constexpr,
    threads: cutlass.Constexpr,
    per_thread: cutlass.Constexpr,
):
    _rmsnorm_kernel(x_ptr, w_ptr, o_ptr, M, dtype, N, vec, threads, per_thread).launch(
        grid=[M, 1, 1], block=[threads, 1, 1], smem=(threads // 32) * 4 + 16, stream=stream
    )


def kernel(x, weight):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x, weight = x.contiguous(), weight.contiguous()
    if x.dim() != 2 or not x.is_contiguous() or weight.dim() != 1 or not weight.is_contiguous():
        raise ValueError(
            f"rmsnorm/cute takes a contiguous 2-D x and 1-D weight, got shapes "
            f"{tuple(x.shape)} and {tuple(weight.shape)}"
        )
    if x.dtype not in DTYPES or weight.dtype != x.dtype:
        raise TypeError(
            f"rmsnorm/cute supports x and weight of one dtype in {list(DTYPES)}, "
            f"got {x.dtype} and {weight.dtype}"
        )
    M, N = x.shape
    if weight.shape[0] != N:
        raise ValueError(f"weight has {weight.shape[0]} elements, x rows have {N}")
    out = torch.empty_like(x)
    if M == 0 or N == 0:
        return out
    vec = vector_width(N, x, weight, out)
    threads, per_thread = row_plan(N, vec, CFG.MAX_THREADS, CFG.MAX_ELEMS)
    ptrs = [gmem_ptr(t, vec) for t in (x, weight, out)]
    stream = current_stream(x)
    fn = compile_once(
        _COMPILED,
        (x.dtype, N, vec, threads, per_thread),
        _rmsnorm_host,
        *ptrs,
        Int32(M),
        stream,
        DTYPES[x.dtype],
        N,
        vec,
        threads,
        per_thread,
    )
    fn(*ptrs, Int32(M), stream)
    return out
