"""CuTe DSL: one row per CTA, 128-bit vectorized loads/stores, row kept in registers, fp32 max and sum reduced across warps (very long rows: two streaming passes).

Design
  * One CTA per row; grid = M, so M stays dynamic and only N is baked into a compile.
  * Each thread moves `vec` contiguous elements per access: 16 bytes (LDG.128/STG.128) when
    N and the data pointers allow it, else the widest of 8, 4, 2 bytes or a single element
    that divides N (every row then starts aligned, so a vector is either wholly inside the
    row or wholly outside it, and one predicate per vector is exact).
  * Consecutive threads take consecutive vectors (coalesced); a thread holds `per_thread`
    vectors of a `block` = threads * vec * per_thread elements, at most MAX_ELEMS values.
  * Row fits in one block (N <= MAX_THREADS * MAX_ELEMS): read once into registers, block
    max, exp, block sum, scale, write once. Bytes: N read + N written per row, the minimum.
  * Longer rows: pass 1 streams the row keeping a per-thread running (max, sum of exp),
    merged across the CTA; pass 2 re-reads the row and writes it. Bytes: 2N read + N written.
  * exp(x - max) is computed as ex2((x - max) * log2 e) (MUFU.EX2): subtracting first is
    exact for nearby values, so rows shifted by +-1000 lose nothing; scaling x by log2 e
    first would round x * 1.44 at ~1442 to ~6e-5, a ~4e-5 relative error, over fp32's 1e-5.
"""

import math

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
    fmax,
    gmem_ptr,
    load_block,
    row_plan,
    store_block,
    vector_width,
)
from pipeline.knobs import knobs

# MAX_THREADS: the most threads (a power of two, 32..1024) a row's CTA gets.
# MAX_ELEMS: the most row elements a thread holds in registers (as fp32) at one time.
CFG = knobs(__file__, MAX_THREADS=512, MAX_ELEMS=32)

_COMPILED: dict = {}  # (torch dtype, N, vec, threads, per_thread) -> compiled function
_LOG2_E = math.log2(math.e)
_FLT_MAX = 3.4028234663852886e38


# ------------------------------------------------------------------------ device helpers
# Plain Python helpers run while the kernel is traced: each call inlines its code.


def _online_max_sum(m, s, x):
    """Fold a block x into a running max m and sum s of exp(x - m): s is rescaled by
    exp(m_old - m_new) when the max grows. The max used in the exponents is clamped to a
    finite value, so a thread that has seen only -inf adds exp(-inf) = 0 terms instead of
    exp(-inf - -inf) = NaN."""
    m_new = fmax(m, x.reduce(cute.ReductionOp.MAX, -math.inf, 0))
    safe = fmax(m_new, -_FLT_MAX)
    s = s * cute.math.exp2((m - safe) * _LOG2_E, fastmath=True) + cute.math.exp2(
        (x - safe) * _LOG2_E, fastmath=True
    ).reduce(cute.ReductionOp.ADD, 0.0, 0)
    return m_new, s


def _normalized(x, row_max, inv_sum):
    """exp(x - max) / sum, with the subtraction done before the scaling by log2(e)."""
    return cute.math.exp2((x - row_max) * _LOG2_E, fastmath=True) * inv_sum


# ------------------------------------------------------------------------------ kernel


@cute.kernel
def _softmax_kernel(
    x_ptr: cute.Pointer,
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

    # This CTA's row. The row offset is 64-bit (M * N may pass 2^31); N is static, so the
    # row start keeps the pointers' 16-byte alignment and copies stay 128-bit.
    rows = cute.make_layout((M, N), stride=(N, 1))
    g_x = cute.make_tensor(x_ptr, rows)[Int64(row), None]
    g_o = cute.make_tensor(o_ptr, rows)[Int64(row), None]
    c_row = cute.make_identity_tensor((N,))  # column index of every element, for predicates

    atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), dtype, num_bits_per_copy=vec * dtype.width)
    thr = cute.make_tiled_copy_tv(atom, cute.make_layout(threads), cute.make_layout(vec)).get_slice(tidx)
    frag = cute.make_fragment_like(thr.partition_S(cute.local_tile(g_x, (block,), (0,))))

    smem = cutlass.utils.SmemAllocator()
    red = smem.allocate_tensor(Float32, cute.make_layout((num_warps, 2)), byte_alignment=16)
    red_max, red_sum = red[None, 0], red[None, 1]  # separate slots: no barrier between uses

    if cutlass.const_expr(full_blocks + has_tail == 1):
        # The whole row in registers: one read, one write.
        x = load_block(thr, atom, g_x, c_row, 0, block, N, frag, -math.inf, has_tail)
        row_max = block_reduce(x.reduce(cute.ReductionOp.MAX, -math.inf, 0), fmax, red_max, num_warps)
        e = cute.math.exp2((x - row_max) * _LOG2_E, fastmath=True)  # masked: exp(-inf) = 0
        row_sum = block_reduce(e.reduce(cute.ReductionOp.ADD, 0.0, 0), fadd, red_sum, num_warps)
        store_block(thr, atom, g_o, c_row, 0, block, N, frag, e * (1.0 / row_sum), has_tail)
    else:
        # Pass 1: per-thread running max m and sum s of exp(x - m), block by block. (Loop
        # bodies go through helpers: a name bound inside a dynamic loop must not be bound
        # again by a later loop, or the DSL sees it undefined on one path.)
        m = Float32(-math.inf)
        s = Float32(0.0)
        for b in cutlass.range(full_blocks, unroll=1):
            m, s = _online_max_sum(
                m, s, load_block(thr, atom, g_x, c_row, b, block, N, frag, -math.inf, False)
            )
        if cutlass.const_expr(has_tail):
            m, s = _online_max_sum(
                m, s, load_block(thr, atom, g_x, c_row, full_blocks, block, N, frag, -math.inf, True)
            )
        # Merge over the CTA: the row max first, then each thread's sum rescaled to it.
        row_max = block_reduce(m, fmax, red_max, num_warps)
        row_sum = block_reduce(
            s * cute.math.exp2((m - row_max) * _LOG2_E, fastmath=True), fadd, red_sum, num_warps
        )
        inv_sum = 1.0 / row_sum
        # Pass 2: read the row again, write exp(x - max) / sum.
        for b in cutlass.range(full_blocks, unroll=1):
            store_block(
                thr,
                atom,
                g_o,
                c_row,
                b,
                block,
                N,
                frag,
                _normalized(
                    load_block(thr, atom, g_x, c_row, b, block, N, frag, -math.inf, False), row_max, inv_sum
                ),
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
                frag,
                _normalized(
                    load_block(thr, atom, g_x, c_row, full_blocks, block, N, frag, -math.inf, True),
                    row_max,
                    inv_sum,
                ),
                True,
            )


@cute.jit
def _softmax_host(
    x_ptr: cute.Pointer,
    o_ptr: cute.Pointer,
    M: Int32,
    stream: cuda.CUstream,
    dtype: cutlass.Constexpr,
    N: cutlass.Constexpr,
    vec: cutlass.Constexpr,
    threads: cutlass.Constexpr,
    per_thread: cutlass.Constexpr,
):
    _softmax_kernel(x_ptr, o_ptr, M, dtype, N, vec, threads, per_thread).launch(
        grid=[M, 1, 1], block=[threads, 1, 1], smem=(threads // 32) * 2 * 4 + 16, stream=stream
    )


def kernel(x):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x = x.contiguous()
    if x.dim() != 2 or not x.is_contiguous():
        raise ValueError(
            f"softmax/cute takes a contiguous 2-D tensor, got shape {tuple(x.shape)} strides {x.stride()}"
        )
    if x.dtype not in DTYPES:
        raise TypeError(f"softmax/cute supports {list(DTYPES)}, got {x.dtype}")
    M, N = x.shape
    out = torch.empty_like(x)
    if M == 0 or N == 0:
        return out
    vec = vector_width(N, x, out)
    threads, per_thread = row_plan(N, vec, CFG.MAX_THREADS, CFG.MAX_ELEMS)
    x_ptr, o_ptr, stream = gmem_ptr(x, vec), gmem_ptr(out, vec), current_stream(x)
    fn = compile_once(
        _COMPILED,
        (x.dtype, N, vec, threads, per_thread),
        _softmax_host,
        x_ptr,
        o_ptr,
        Int32(M),
        stream,
        DTYPES[x.dtype],
        N,
        vec,
        threads,
        per_thread,
    )
    fn(x_ptr, o_ptr, Int32(M), stream)
    return out
