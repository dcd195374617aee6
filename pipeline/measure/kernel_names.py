"""Whose kernel is it, by the name a profiler gives it: CUPTI's in the judge's runner, Nsight
Compute's (demangled and mangled: ncu.whole_name) from outside a candidate's process.

A candidate's own kernels (Triton names them after the jit function, CuTe DSL
`kernel_cutlass_<function>_...`, TileLang `<prim_func>_kernel`) and the kernels of a
library it wraps (Quack, Liger) carry no namespace. torch's own compute lives in `at::`
namespaces and cuBLAS's in its own families of names: those mean torch, not a kernel of
the candidate's, computed the output. A driver copy or fill is no kernel at all.
"""

from __future__ import annotations

# Substrings of the names of torch's kernels (aten, its CUB and flash-attention copies, and
# the Triton kernels torch.compile generates: triton_<category>_<fused ops>_<n>, the category
# cut to three letters by inductor: pointwise, reduction, persistent reduction, template,
# foreach, split scan, unknown), cuBLAS/cuDNN's (nvjet_* and *xmma* on Hopper,
# gemv/gemmk1/splitKreduce for small shapes) and CuPy's own ufuncs and reductions (cupy_add,
# cupy_sum: a kernel a user writes through CuPy is named by its user). `_ZN2at` and
# `N2at6native` are namespace at (and at::native in a template's arguments) in a mangled
# name: Nsight Compute's demangled names have no namespaces.
INDUCTOR = tuple(f"triton_{c}_" for c in ("poi", "red", "per", "tem", "for", "spl", "unk"))
LIBRARY_MARKS = ("at::", "_ZN2at", "N2at6native", "at_cuda_detail", "pytorch_flash", "cublas", "cudnn", "nvjet",
                 "xmma_", "gemv2", "gemvx", "gemmk1_kernel", "gemmSN_", "splitKreduce", *INDUCTOR, "cupy_")  # fmt: skip


def torch_kernel(name: str) -> bool:
    """A kernel of torch itself or of the BLAS/DNN libraries it calls."""
    return any(mark in name for mark in LIBRARY_MARKS)


def transfer(name: str) -> bool:
    """A copy or fill the driver did (CUPTI names them "Memcpy DtoH (Device -> Pageable)",
    "Memset (Device)"): no kernel ran, whoever asked for it."""
    return name.startswith(("Memcpy", "Memset"))


def moves_data(name: str) -> bool:
    """torch kernels that compute nothing: fills (torch.zeros, the judge's poison) and
    copies (.contiguous(), the runner's own snapshots)."""
    return "FillFunctor" in name or "copy" in name.lower()


def torch_compute(names: list[str]) -> list[str]:
    """The names among `names` that are torch's (or cuBLAS's) compute, sorted, once each."""
    return sorted({n for n in names if torch_kernel(n) and not moves_data(n) and not transfer(n)})
