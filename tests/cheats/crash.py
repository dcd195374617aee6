"""Cheat: takes the whole process down (a segmentation fault)."""

import os
import signal

import triton

OP, EXPECTED_RUNG = "vector_add", "process"


@triton.jit
def never_launched(x_ptr):
    pass


def kernel(x, y):
    os.kill(os.getpid(), signal.SIGSEGV)
