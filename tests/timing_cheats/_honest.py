"""What every timing cheat here wraps: the shipped Triton softmax, loaded from beside the
cheat (each is dropped into kernels/softmax/ of a project copy next to triton.py)."""

import importlib.util
from pathlib import Path


def honest_kernel(cheat_file: str):
    path = Path(cheat_file).with_name("triton.py")
    spec = importlib.util.spec_from_file_location(f"honest_{Path(cheat_file).stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel
