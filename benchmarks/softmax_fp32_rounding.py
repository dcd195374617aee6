"""Why Quack's fp32 softmax fails the judge's large-magnitude families (H200, 2026-12-04-b:
max relative error 5.1e-5 at inputs 1000 +- 4 and 5.8e-5 at -1000 +- 4, against rtol 1e-5):
rounding x * log2(e) to fp32 before the row's max is subtracted reproduces it on a CPU.

    python benchmarks/softmax_fp32_rounding.py

Prints, per input shift, the max relative error of exp2(round(x*log2e) - round(max*log2e)),
normalised (float64 after the two fp32 roundings), and how many of the 8 x 4096 elements fall
outside the reference's fp32 tolerance; beside it the same with the max subtracted first.
The first is an exact softmax of inputs moved by at most half an fp32 ulp of x*log2e, so
whether it is "correct" is a question for the tolerance (grow fp32's with max|x|?), not the
kernel alone.
"""

import math

import torch

L2E = torch.tensor(math.log2(math.e), dtype=torch.float32)


def outside(y, ref, rtol=1e-5, atol=1e-6):  # references/softmax.py's fp32 tolerance
    return int(((y - ref).abs() > atol * ref.pow(2).mean().sqrt() + rtol * ref.abs()).sum())


def normalised(exponent2):
    y = torch.exp2(exponent2.double())
    return y / y.sum(-1, keepdim=True)


def main():
    torch.manual_seed(0)
    print("shift   scale-round-subtract: max rel err, outside   subtract-first: max rel err, outside")
    for shift in (0.0, 100.0, 1000.0, -1000.0):
        x = torch.randn(8, 4096) * 4 + shift
        ref = torch.softmax(x.double(), -1)
        m = x.max(-1, keepdim=True).values
        late = normalised(x * L2E - m * L2E)  # two fp32 roundings of scaled values
        early = normalised((x - m) * L2E)  # x - m exact at +-1000 (Sterbenz), then one rounding
        cells = []
        for y in (late, early):
            rel = ((y - ref).abs() / ref).max().item()
            cells.append(f"{rel:11.2e}, {outside(y, ref):5d}")
        print(f"{shift:6.0f}   {cells[0]:>36}   {cells[1]:>30}")


if __name__ == "__main__":
    main()
