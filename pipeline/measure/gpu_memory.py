"""GPU memory that two processes share, through CUDA's inter-process handles.

The bench stage (trusted) writes every timed call's inputs into memory it allocated and
hands the child that runs the candidate a handle to it; the child hands back handles to
the memory its outputs live in, and the stage reads those outputs itself, with no word
from the child about what they hold. This goes straight to the CUDA driver (ctypes, no
torch IPC): torch's own sharing also opens reference-count files named by the sender,
which a trusted process must never do on a candidate's say-so.

    shared = Shared(nbytes)                 # parent: cuMemAlloc, its own allocation
    shared.handle                           # 64 bytes for the child
    mapped = Mapped(handle)                 # other side: cuIpcOpenMemHandle
    typed_view(mapped.flat, dtype, size, stride, offset_bytes)
    export(tensor) -> {"handle", "offset", "extent"}   # the allocation a tensor lives in, and
                                                       # where its element 0 is in it
"""

from __future__ import annotations

import ctypes

HANDLE_BYTES = 64
CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE = 11, 12
CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1


class DriverError(RuntimeError):
    pass


class _Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * HANDLE_BYTES)]


def handle_bytes(handle: _Handle) -> bytes:
    """All 64 bytes of a handle. Not `handle.reserved`: ctypes cuts a c_char array at its
    first NUL byte, and handles hold NUL bytes (the first H200 run: every map failed)."""
    return bytes(memoryview(handle))


def handle_from(data: bytes) -> _Handle:
    if not isinstance(data, (bytes, bytearray)) or len(data) != HANDLE_BYTES:
        raise DriverError("not a CUDA memory handle")
    return _Handle.from_buffer_copy(bytes(data))


_LIB = None


def _driver():
    global _LIB
    if _LIB is None:
        import torch

        torch.cuda.init()  # the primary context, current on this thread, is the one torch uses
        torch.zeros(1, device="cuda")
        _LIB = ctypes.CDLL("libcuda.so.1")
    return _LIB


def _check(result: int, what: str) -> None:
    if result != 0:
        raise DriverError(f"{what} failed with CUDA driver error {result}")


def _flat_tensor(ptr: int, nbytes: int, owner):
    """A torch uint8 tensor over raw device memory, no copy (CUDA array interface)."""
    import torch

    class _Memory:
        __cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False), "version": 3,
                                    "strides": None}  # fmt: skip

    memory = _Memory()
    memory.owner = owner  # the mapping outlives every tensor made from it
    return torch.as_tensor(memory, device="cuda")


class _Memory:
    """Device memory this process holds, as `flat` (uint8), given back by `close`."""

    RELEASE = ""  # the driver call that gives it back

    def close(self) -> None:
        if self.ptr.value:
            import torch

            torch.cuda.synchronize()  # nothing of ours still reads or writes it
            self.flat = None
            getattr(_driver(), self.RELEASE)(self.ptr)
            self.ptr = ctypes.c_uint64()


class Shared(_Memory):
    """Device memory this process allocated (outside torch's caching allocator, so the
    handle it exports covers this buffer and nothing else of ours)."""

    RELEASE = "cuMemFree_v2"

    def __init__(self, nbytes: int):
        lib = _driver()
        self.nbytes = max(1, int(nbytes))
        self.ptr = ctypes.c_uint64()
        _check(lib.cuMemAlloc_v2(ctypes.byref(self.ptr), ctypes.c_size_t(self.nbytes)), "cuMemAlloc")
        handle = _Handle()
        _check(lib.cuIpcGetMemHandle(ctypes.byref(handle), self.ptr), "cuIpcGetMemHandle")
        self.handle = handle_bytes(handle)
        self.flat = _flat_tensor(self.ptr.value, self.nbytes, self)


class Mapped(_Memory):
    """Another process's allocation, mapped here from its handle."""

    RELEASE = "cuIpcCloseMemHandle"

    def __init__(self, handle: bytes):
        raw = handle_from(handle)
        lib = _driver()
        self.ptr = ctypes.c_uint64()
        opener = getattr(lib, "cuIpcOpenMemHandle_v2", None) or lib.cuIpcOpenMemHandle
        _check(opener(ctypes.byref(self.ptr), raw, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle")
        base, size = ctypes.c_uint64(), ctypes.c_size_t()
        _check(
            lib.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), self.ptr),
            "cuMemGetAddressRange",
        )
        self.nbytes = int(size.value)
        self.flat = _flat_tensor(self.ptr.value, self.nbytes, self)


def typed_view(flat, dtype, size: list[int], stride: list[int], offset_bytes: int):
    """`flat` (uint8, a whole allocation) seen as a tensor of `dtype` with this layout,
    starting `offset_bytes` in; torch checks that it fits."""
    import torch

    itemsize = torch.empty((), dtype=dtype).element_size()
    if offset_bytes % itemsize:
        raise DriverError(f"offset {offset_bytes} is not a multiple of the element size {itemsize}")
    usable = flat[: flat.numel() - flat.numel() % itemsize]
    return usable.view(dtype).as_strided(size, stride, offset_bytes // itemsize)


def export(tensor, handles: dict | None = None) -> dict:
    """The handle of the allocation `tensor` lives in and where in it the tensor starts: what
    another process needs to map it. `handles` caches one handle per allocation, so tensors
    of one allocation name it alike (the other side maps it once). Raises DriverError for
    memory that cannot be shared (torch's expandable segments, cudaMallocAsync pools,
    another process's mapping)."""
    lib = _driver()
    ptr = ctypes.c_uint64(tensor.data_ptr())  # element 0 of the view; strides count from here
    base, size = ctypes.c_uint64(), ctypes.c_size_t()
    _check(lib.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ptr), "cuMemGetAddressRange")
    handles = {} if handles is None else handles
    if base.value not in handles:
        handle = _Handle()
        _check(lib.cuIpcGetMemHandle(ctypes.byref(handle), base), "cuIpcGetMemHandle")
        handles[base.value] = handle_bytes(handle)
    return {"handle": handles[base.value], "offset": ptr.value - base.value, "extent": int(size.value)}
