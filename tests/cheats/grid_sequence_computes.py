"""Cheat (host code in a grid that is not callable): only a callable grid was run outside the
launch; a sequence of the candidate's whose __len__ and __getitem__ compute ran inside it,
where the watch lets torch through. Triton now gets the grid as plain ints, made before
the launch starts: the compute either runs where the watch sees it or not at all."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "rmsnorm", "real_kernel"


class Grid:
    def __init__(self, job):
        self.job = job

    def _run(self):
        job, self.job = self.job, None
        if job is not None:
            job()

    def __len__(self):
        self._run()
        return 1

    def __getitem__(self, i):
        self._run()
        if i >= 1:
            raise IndexError(i)
        return 1


@triton.jit
def touch_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs))


def kernel(x, weight):
    out = torch.empty_like(x)

    def job():
        xf = x.float()
        out.copy_((xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * weight.float()).to(x.dtype))

    touch_kernel[Grid(job)](out, BLOCK=1)
    return out
