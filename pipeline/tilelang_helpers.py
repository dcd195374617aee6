"""What TileLang row kernels (kernels/softmax/tilelang.py, kernels/rmsnorm/tilelang.py) share
on the host: the widest vector a row can move, and how a row is laid over a CTA."""

VEC_BYTES = 16  # the widest global access, LDG.128/STG.128


def vector_width(n: int, *tensors) -> int:
    """Elements a global access moves: at most 16 bytes, dividing n and every tensor's start
    (meta tensors, in the compile stage's capture, report address 0: aligned)."""
    size = tensors[0].element_size()
    vec = VEC_BYTES // size
    while vec > 1 and (n % vec or any(t.data_ptr() % (vec * size) for t in tensors)):
        vec //= 2
    return vec


def row_plan(n: int, vec: int, max_threads: int, elems: int, long_threads: int) -> tuple[bool, int, int]:
    """(one pass?, tile in vectors, threads) for a row of n elements moved vec at a time:
    the whole row in registers (elems values a thread, at most max_threads threads, every
    thread holding at least one vector), or tiles of long_threads * elems values."""
    per_thread = max(1, elems // vec)  # vectors each thread holds
    nvec = n // vec
    if nvec <= max_threads * per_thread:
        tile = 1 << max(0, nvec - 1).bit_length()  # the row, rounded up to a power of two
        threads = min(max(tile // per_thread, 32), max_threads)
        return True, max(tile, threads), threads
    return False, long_threads * per_thread, long_threads
