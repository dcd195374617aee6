"""Cheat (a verdict chosen by an exit code): the candidate exits at import with the code the
sandbox's boot uses for "a wall could not go up" (97), hoping the judge reads "no sandbox
here: unverified" instead of a rejection. Its kernel is wrong anyway (x - y). The judge
takes 97 for a sandbox failure only where lockdown.py never said its walls were up (a pipe
it writes on before any other code runs). Red team, 2026-12-05."""

import os

OP, EXPECTED_RUNG = "vector_add", "process"

os._exit(97)


def kernel(x, y):
    return x - y
