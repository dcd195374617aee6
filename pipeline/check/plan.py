"""The cases the judge runs, all drawn from one secret seed that only the judge holds.

Families (the rung of a case is accuracy/<dtype>/<family>):
  test_shapes        the reference's TEST_SHAPES, `trials` fresh seeds each
  random_shapes      odd sizes (a multiple of no block size), a single row, a long row
  strided            the same draws in the layouts of LAYOUTS (column-major, every other
                     element, padded rows, a storage offset), every one in every dtype
                     at a size drawn from the secret; the inputs after the first each in a layout of its own: the
                     contract allows any strides and offsets, as torch ops do
  adversarial:<name> the reference's own input families (huge spreads, -inf padded rows,
                     NaN/Inf, large magnitudes)
  bench_shape        (GPU) one draw at the largest BENCH_SHAPES entry: bugs that only show
                     at scale (a capped grid, 32-bit offsets) are the judge's to find
`kpipe check --seed S` replays a run's cases exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


@dataclass
class Case:
    family: str  # "test_shapes", "random_shapes", "strided", "adversarial:<name>", "bench_shape"
    dtype: object
    shape: dict
    seed: int
    make: Callable
    layout: str = ""  # (strided) one of LAYOUTS
    edge: bool = False  # drawn by edges(): the judge may run it in its second runner (CPU)

    @property
    def rung(self) -> str:
        return f"accuracy/{dtype_name(self.dtype)}/{self.family}"

    def inputs(self, device: str) -> tuple:
        made = self.make(self.seed, device, self.dtype, **self.shape)
        if self.layout == "transposed":  # (matmul) b as x @ W.T hands it: W's rows contiguous
            return (made[0], *(t.mT.contiguous().mT for t in made[1:]))
        if self.layout == "transposed_a":  # (matmul) a as X.T @ dY hands it: X's rows contiguous
            return (made[0].mT.contiguous().mT, *made[1:])
        if self.layout == "transposed_both":  # (matmul) X.T @ W.T: both plain transposes
            return tuple(t.mT.contiguous().mT for t in made)
        if self.layout == "gram":  # (matmul, M == N) a @ a.T: b is a's own storage, transposed
            return (made[0], made[0].mT)
        if self.family == "aliased":
            return aliased(made, shifted=self.layout == "shifted")
        if self.family != "strided":
            return made
        # the first input in the case's layout; each other in one of its own, contiguous
        # included (one layout for all let a kernel that reads y with x's strides pass)
        rng = random.Random(self.seed ^ 0x1A70)
        if self.layout.startswith("broadcast"):  # every input, along its first or its last dim
            return tuple(non_contiguous(t, self.layout) for t in made)
        layouts = [self.layout] + [rng.choice(("contiguous", *LAYOUTS)) for _ in made[1:]]
        # every_kth's step drawn per input, 3..17 (a kernel that took every stride but 0 and
        # 1 for 2 passed while 2 was the only one: red team, 2026-12-06)
        return tuple(non_contiguous(t, layout, rng.randrange(3, 18)) for t, layout in zip(made, layouts))

    def describe(self) -> dict:
        return {
            "family": self.family,
            "dtype": dtype_name(self.dtype),
            "shape": self.shape,
            "seed": self.seed,
            **({"layout": self.layout} if self.layout else {}),
            **({"values": self.values} if self.values else {}),
        }

    @property
    def values(self) -> str:
        """(strided, bench_shape) the adversarial family whose values it holds, if any."""
        name = getattr(self.make, "__name__", "")
        return name if self.family in ("strided", "bench_shape") and name != "make_inputs" else ""

    def label(self) -> str:
        shape = " ".join(f"{k}={v}" for k, v in self.shape.items())
        layout = f" layout={self.layout}" if self.layout else ""
        values = f" values={self.values}" if self.values else ""
        return f"{self.family} {dtype_name(self.dtype)} {shape}{layout}{values} seed={self.seed}"


# Every run draws every layout (one picked by the seed's parity let a kernel that handles only
# one pass about a quarter of the seeds: red team, 2026-12-05).
LAYOUTS = ("column_major", "every_other", "every_kth", "padded_rows", "offset")
OFFSET_BYTES = (
    64  # "offset": where the view starts in its storage (aligned as an allocation's start is to 16 B)
)


def aliased(made: tuple, shifted: bool = False) -> tuple:
    """Each input that can be a view of an earlier one becomes one: the same tensor where
    shape and dtype agree (`kernel(t, t)`, as torch ops take it), else a row of an earlier
    matrix where a vector is as long as its rows (RMSNorm's weight). A kernel that gave x
    alone where x and y were one tensor passed while every input had a storage of its own
    (red team, 2026-12-06). `shifted`: the first input in a storage one element longer, and
    each later one of its dtype, no larger, the view one element on (`buf[:-1]`, `buf[1:]`):
    two views that overlap without being one tensor (an x + x path keyed on the storage
    passed: red team, 2026-12-07)."""
    import torch

    if shifted:
        first = made[0]
        buf = torch.empty(first.numel() + 1, dtype=first.dtype, device=first.device)
        buf[: first.numel()] = first.reshape(-1)
        buf[-1] = first.reshape(-1)[0]
        out = [buf[: first.numel()].view(first.shape)]
        for t in made[1:]:
            fits = isinstance(t, torch.Tensor) and t.dtype == first.dtype and t.numel() <= first.numel()
            out.append(buf[1 : 1 + t.numel()].view(t.shape) if fits else t)
        return tuple(out)
    out: list = []
    for t in made:
        earlier = [
            u
            for u in out
            if isinstance(u, torch.Tensor) and isinstance(t, torch.Tensor) and u.dtype == t.dtype
        ]
        twin = next((u for u in earlier if u.shape == t.shape), None)
        if twin is None and t.dim() == 1:
            twin = next(
                (u[0] for u in earlier if u.dim() == 2 and u.shape[0] and u.shape[1] == t.shape[0]), None
            )
        out.append(t if twin is None else twin)
    return tuple(out)


def aliasable_shape(op) -> dict | None:
    """The last test shape, square where inputs must be (matmul: M = N = K, an odd size), or
    None when no input of the op could alias another (a single input)."""
    shape = dict(op.TEST_SHAPES[-1])
    if len(shape) > 2:
        shape = dict.fromkeys(shape, min(shape.values()) | 1)
    made = op.make_inputs(0, "meta", op.dtypes[0], **shape)
    return shape if len(made) > 1 else None


def non_contiguous(t, layout: str, step: int = 3):
    """The same values in another layout, as torch ops take them: column-major (the
    transpose of a slice w[:, 1:] of a wider storage: a leading dimension past M and a
    storage offset), the odd elements of a storage twice as long (stride 2, offset 1), or
    (every_kth) every `step`-th element of a storage `step` times as long (offset 1), rows
    padded (a slice x[1:, 1:N+1] of a wider storage: unit stride, a row stride above N, a
    storage offset), or contiguous but starting OFFSET_BYTES into its storage (x[k:]). A 1-D tensor has no columns: every other element.
    "broadcast" and "broadcast_last" change the values: the first row (or element), or the
    first column, expanded over the others, a stride of 0, as torch's broadcasting hands a
    tensor over (the reference sees the same)."""
    import torch

    if not isinstance(t, torch.Tensor) or t.numel() < 2 or layout == "contiguous":
        return t
    if layout.startswith("broadcast"):  # one index's values repeated along a dim (stride 0 there)
        dim = -1 if layout == "broadcast_last" else 0
        return t.narrow(dim, 0, 1).expand(t.shape)
    if layout == "column_major" and t.dim() >= 2:  # with a leading dimension past M, one element in
        wide = torch.empty((*t.shape[:-2], t.shape[-1], t.shape[-2] + 1), dtype=t.dtype, device=t.device)
        view = wide[..., 1:].transpose(-1, -2)
    elif layout == "padded_rows":
        wide = torch.empty((*[d + 1 for d in t.shape[:-1]], t.shape[-1] + 3), dtype=t.dtype, device=t.device)
        view = wide[(*[slice(1, None)] * (t.dim() - 1), slice(1, t.shape[-1] + 1))]
    elif layout == "offset":
        skip = max(1, OFFSET_BYTES // t.element_size())
        view = torch.empty(t.numel() + skip, dtype=t.dtype, device=t.device)[skip:].view(t.shape)
    else:  # every step-th element: a stride and an offset at once (a kernel that dropped the
        # offset of any view but a unit-stride one passed when no layout had both: 2026-12-06)
        step = step if layout == "every_kth" else 2
        wide = torch.empty((*t.shape[:-1], step * t.shape[-1]), dtype=t.dtype, device=t.device)
        view = wide[..., 1::step]
    view.copy_(t)
    return view


def random_shapes(op, rng: random.Random, max_work: int, scale: int) -> list[dict]:
    """Odd sizes, a single row, a long row, sizes that are 2 more than a multiple of 4 (a
    kernel wrong only there passed: odd and test sizes never leave that remainder, red
    team 2026-12-05), a row of whole tiles (2^14 or 3 * 2^14) and one of 2 or 4 times 2^14, and many short rows (for matmul, an output of
    many tiles both ways), and as many rows again of 17..63. Shape keys are ordered outermost first, the last key is the row
    length; sizes are bounded by the reference's own TEST_SHAPES (times `scale`) and by
    `max_work`, the product of all sizes, each halved keeping its remainder mod 4."""
    keys = list(op.TEST_SHAPES[-1])
    hi = {k: max(2, scale * max(s.get(k, 1) for s in op.TEST_SHAPES)) for k in keys}
    shapes = [{k: rng.randrange(1, hi[k] + 1) | 1 for k in keys}]
    if len(keys) > 1:
        single = {k: rng.randrange(1, hi[k] + 1) | 1 for k in keys}
        single[keys[0]] = 1
        shapes.append(single)
    long_row = {k: rng.randrange(1, 4) for k in keys}
    # 2^i times an odd number, i drawn from 2..9: a tail of every power of two in turn (odd
    # and 2 mod 4 sizes are drawn above; a kernel wrong only at 4 mod 8, or for split-K at a
    # multiple of 512 in an odd number of splits, passed: red team, 2026-12-05)
    power = 1 << rng.randrange(2, 10)
    long_row[keys[-1]] = power * ((4 * hi[keys[-1]] + 2 * rng.randrange(1, 64)) // power | 1)
    shapes.append(long_row)
    shapes.append({k: 4 * rng.randrange(0, hi[k] // 16 + 1) + 2 for k in keys})  # (a quarter of hi: CPU time)
    # a row of 2^14 or 3 * 2^14: two or more whole tiles of any power-of-two width up to
    # 8192 (a fast path for rows of whole 4096-wide tiles that forgot to rescale passed: no
    # row length above 4096 was a multiple of 1024, 2026-12-06), and many rows of a few elements, 4 to 8 times the most rows a test shape
    # has (a grouped matmul ordering wrong past 256 rows passed on a CPU, whose sizes stop
    # at the test shapes' own: 2026-12-06)
    tiles = {k: rng.randrange(1, 3) for k in keys}
    # (matmul: 2^12 or 3 * 2^12, a whole number of K steps of any width up to 4096; 3 * 2^14
    # was 768 interpreted steps of a 64-deep K tile for one output element, twice)
    unit = 1 << (14 if len(keys) == 2 else 12)
    tiles[keys[-1]] = unit * rng.choice((1, 3))
    shapes.append(tiles)
    # and one row of an even number of them, 2 or 4 (matmul's K: 2, CPU time): a fast path
    # for rows of an even number of 16384-wide tiles passed while only 1 or 3 were drawn
    # (red team, 2026-12-06)
    shapes.append({**{k: 1 for k in keys}, keys[-1]: unit * (rng.choice((2, 4)) if len(keys) < 3 else 2)})
    if len(keys) > 1:
        rows = {k: rng.randrange(1, 9) | 1 for k in keys}
        # 512 j + 1 + an even number below 16: M - 1 has bits 4..8 clear, so M spans an odd
        # number of tiles for every tile height 16..256, never a whole number of groups of
        # tiles (an odd M drawn at random made it a whole number one run in eight, and a
        # grouped ordering wrong on a partial last group passed: CI, 2026-12-06)
        # (row ops: 256 j + 1 + an even number below 16, odd for every rows-per-program
        # count 16..128: a kernel of one program per row runs M programs, interpreted on a
        # CPU, and 513..1039 rows cost a minute of some cheats' checks, CI 2026-12-07)
        tile = 512 if len(keys) > 2 else 256
        j = rng.randrange(max(1, 4 * hi[keys[0]] // tile), max(2, 8 * hi[keys[0]] // tile) + 1)
        rows[keys[0]] = tile * j + 1 + 2 * rng.randrange(8)
        if len(keys) > 2:
            # (matmul) more output tiles than an H100's 132 SMs for every tile of 128 x 256
            # or smaller, either way round: 16897..16911 rows (133 tiles of 128, 67 of 256)
            # by 1 or 3 columns, then the same across, K 1 or 3. A persistent kernel that
            # carried state from one tile to the next (its accumulator zeroed once, not per
            # tile) passed while no shape had more tiles than programs (red team,
            # 2026-12-06), and one of 128x256 tiles while the draw was 1537..1551 square
            # (91 such tiles). Two thin shapes cost a kernel of 16x16 tiles a third of the
            # programs that square did (thousands, interpreted: a correct split-K ran past
            # CI's 300 s limit). Unscaled on a GPU, whose bench shape has thousands of tiles.
            thin = 512 * 33 + 1 + 2 * rng.randrange(8)
            rows = {keys[0]: thin, **{k: rng.choice((1, 3)) for k in keys[1:]}}
            shapes.append(
                {keys[0]: rng.choice((1, 3)), **{k: thin for k in keys[1:-1]}, keys[-1]: rows[keys[-1]]}
            )
        shapes.append(rows)
        # as many rows again, each 17..63 long (matmul: below): a kernel that takes rows of
        # 16 or fewer on another path hid a persistent loop's state carried from row to row,
        # and one with K below 16 a grouped ordering's tail, while every shape with many
        # rows had rows of 9 or fewer (red team, 2026-12-06)
        medium = dict(
            rows, **{keys[0]: tile * j + 1 + 2 * rng.randrange(8), keys[-1]: 2 * rng.randrange(8, 32) + 1}
        )
        for k in keys[1:-1]:
            medium[k] = rng.randrange(hi[k] // 2, hi[k] + 1) | 1
        if len(keys) > 2:
            # (matmul) N 257..271, K 17..23: a grouped ordering's partial last group of row
            # tiles shows only where there is more than one tile across, for tiles up to 256
            medium.update({keys[-2]: 257 + 2 * rng.randrange(8), keys[-1]: 2 * rng.randrange(8, 12) + 1})
        shapes.append(medium)
        # round sizes, as a model hands them: rows a multiple of 128 (128 or 256), every other
        # size a multiple of 64 (a softmax whose batched path for M % 32 == 0 forgot the
        # max passed: every many-rows draw is odd, red team 2026-12-07)
        shapes.append({keys[0]: 128 * rng.randrange(1, 3), **{k: 64 * rng.randrange(1, 3) for k in keys[1:]}})
        if len(keys) > 2:
            # (matmul) a deep K, 1025..1151 and odd, under outputs of 64..80 square: a split-K
            # path taken from K >= 1024 at M, N >= 64 that dropped K's tail passed, K past 512
            # coming only with M, N <= 3 (red team, 2026-12-07)
            deep = {k: rng.randrange(64, 81) for k in keys[:-1]}
            shapes.append({**deep, keys[-1]: 1025 + 2 * rng.randrange(64)})
            # and K 513..639 (a two-way split from K > 512 that rounded each half down to 64
            # passed: no K of 513..1024 came with M, N >= 4), and outputs past 256 square
            # with K 65..111 and a tail (a path for M, N >= 256 that dropped K's tail past a
            # multiple of 64 passed: K came with such outputs only at 17..23; red team 2026-12-07)
            shapes.append({**deep, keys[-1]: 513 + 2 * rng.randrange(64)})
            # (257..271 square by 65..111: within max_work, which would halve a larger one)
            square = {k: 257 + 2 * rng.randrange(8) for k in keys[:-1]}
            shapes.append({**square, keys[-1]: 65 + 2 * rng.randrange(24)})
    return [_fit(s, max_work) for s in shapes]


def _fit(shape: dict, max_work: int) -> dict:
    shape = dict(shape)
    while math.prod(shape.values()) > max_work:
        k = max(shape, key=shape.get)
        half, rest = shape[k] // 2, shape[k] % 4
        shape[k] = max(rest or 4, half - half % 4 + rest)
    return shape


def plan_cases(op, secret: int, settings: dict, device: str) -> list[Case]:
    rng = random.Random(secret)
    extra = []
    for _ in range(settings["random_shapes"]):  # rounds of fresh draws
        extra += random_shapes(op, rng, settings["max_work"][device], settings["shape_scale"][device])
    cases = []
    turn = rng.randrange(len(LAYOUTS))
    work = math.prod(op.TEST_SHAPES[-1].values())
    most_rows = 4 * max(s[next(iter(s))] for s in op.TEST_SHAPES)  # (interpreted programs: CPU time)
    smaller = [s for s in extra if math.prod(s.values()) <= work and s[next(iter(s))] <= most_rows]
    families = list(op.adversarial.values())
    square = aliasable_shape(op)
    for d, dtype in enumerate(op.dtypes):
        if square is not None:  # inputs that are one tensor, or views of one storage
            cases.append(Case("aliased", dtype, square, rng.randrange(2**31), op.make_inputs))
            cases.append(Case("aliased", dtype, square, rng.randrange(2**31), op.make_inputs, "shifted"))
        for shape in op.TEST_SHAPES:
            for _ in range(settings["trials"]):
                cases.append(Case("test_shapes", dtype, shape, rng.randrange(2**31), op.make_inputs))
        for shape in extra:
            cases.append(Case("random_shapes", dtype, shape, rng.randrange(2**31), op.make_inputs))
        for name, make in op.adversarial.items():
            for shape in op.TEST_SHAPES[-settings["adversarial_shapes"] :]:
                cases.append(Case(f"adversarial:{name}", dtype, shape, rng.randrange(2**31), make))
            # and once at a random shape of no more work than the last test shape (rows of
            # 17..63, round sizes, odd ones): at the test shapes alone, a softmax that forgot
            # the max on rows of 2048 or fewer and an RMSNorm that squared fp16 on rows of
            # 64..4095 passed (red team, 2026-12-07)
            if smaller:
                cases.append(
                    Case(f"adversarial:{name}", dtype, rng.choice(smaller), rng.randrange(2**31), make)
                )
        # every layout in every dtype (two a dtype, in turn, let a kernel that scribbles in
        # an fp32 every-other view's gaps pass half the runs: CI, 2026-12-06); the shapes
        # turn with the secret over the test shape and the first random draws, so a
        # layout's size is not known in advance either
        shapes = [op.TEST_SHAPES[-1], *extra[:2]]
        # half of them with an adversarial family's values (a softmax that forgot the max only
        # on non-contiguous inputs passed while every layout held unit-scale values: red
        # team, 2026-12-07)
        for i, layout in enumerate(LAYOUTS):
            shape = shapes[(i + turn + d) % len(shapes)]
            make = op.make_inputs
            if families and rng.random() < 0.5:  # (at a shape of the adversarial ones' draw)
                make, shape = rng.choice(families), rng.choice(smaller or [shape])
            cases.append(Case("strided", dtype, shape, rng.randrange(2**31), make, layout))
    # every input with a stride of 0 along its first dim, then along its last, every run (a
    # kernel that took stride 0 for 1 passed, then one that did so for y only, or for the
    # last dim only: red team, 2026-12-05)
    # (in a dtype drawn from the secret: one that took stride 0 for 1 in fp16 only passed
    # when it was always fp32, red team 2026-12-05; bf16 only where it can run, on a GPU)
    # (now in every dtype that can run, the drawn one at the largest test shape, the others
    # at the third, for the check's time: one that did so in fp16 only still passed the runs
    # that drew fp32, red team 2026-12-07)
    runnable = [d for d in op.dtypes if device == "cuda" or str(d) != "torch.bfloat16"] or list(op.dtypes)
    drawn = rng.choice(runnable)
    for dtype in runnable:
        shape = op.TEST_SHAPES[-1] if dtype == drawn else op.TEST_SHAPES[min(2, len(op.TEST_SHAPES) - 1)]
        for layout in ("broadcast", "broadcast_last") if len(op.TEST_SHAPES[-1]) > 1 else ("broadcast",):
            cases.append(Case("strided", dtype, shape, rng.randrange(2**31), op.make_inputs, layout))
    if device == "cuda" and op.BENCH_SHAPES:
        dtype = op.dtypes[-1]  # bf16 where the op has it: the dtype the bench stage times
        cases.append(Case("bench_shape", dtype, op.BENCH_SHAPES[-1], rng.randrange(2**31), op.make_inputs))
        # and once with a family's values: no other case has both many rows and large values
        # (a softmax that skipped the max for more than 256 rows of 65..4096 passed a CPU
        # and would pass the unit-scale case here: 2026-12-07, untried on a GPU)
        if families:
            make = rng.choice(families)
            cases.append(Case("bench_shape", dtype, op.BENCH_SHAPES[-1], rng.randrange(2**31), make))
    return cases + edges(op, random.Random(secret ^ EDGES), runnable, device)


EDGES = 0xED6E  # the edges' draws come from the secret xor this: every case above is kept


def edges(op, rng: random.Random, dtypes: list, device: str = "cpu") -> list[Case]:
    """Cases each kind of op meets in every run, whatever the other draws gave: vectors
    (one key), rows (two keys) and matmul (three keys). Last in the plan, from a draw of
    their own, so the cases before them are the same as without them."""
    kinds = {1: vector_edges, 2: row_edges, 3: matmul_edges}
    kind = kinds.get(len(op.TEST_SHAPES[-1]))
    return [replace(case, edge=True) for case in kind(op, rng, dtypes, device)] if kind else []


def vector_edges(op, rng: random.Random, dtypes: list, device: str = "cpu") -> list[Case]:
    """(Elementwise ops) one length past 2^22 and odd, so no power-of-two block or round of
    programs divides it, in a dtype drawn. A vector_add whose grid-stride path from 2^22
    rounded its trip count down (the last n % 2^19 elements unwritten) passed: a CPU drew
    no length past ~400k, and a GPU's only one past ~3.2M was the bench shape, 2^28 (red
    team, 2026-12-07). (Below a CPU's max_work, 2^23.)"""
    (key,) = op.TEST_SHAPES[-1]
    shape = {key: 2**22 + 2 * rng.randrange(2**21) + 1}
    return [Case("random_shapes", rng.choice(dtypes), shape, rng.randrange(2**31), op.make_inputs)]


def matmul_edges(op, rng: random.Random, dtypes: list, device: str = "cpu") -> list[Case]:
    """(matmul) in every dtype: a matrix times a vector (N = 1) and a vector times a matrix
    (M = 1), each 65..319 odd both other ways, and x @ W.T: b the transpose of a
    row-major weight (b.stride(0) == 1, exactly as nn.Linear hands it over), K 65..319
    odd (past 319: CPU time, a split-K kernel's interpreted programs). A matrix-vector path and an fp16 x @ W.T path that each walked K in whole steps of
    64 passed: N = 1 with M, K past a tile came one seed in 300, and the column-major
    layout of the strided family has a leading dimension past K and an offset, never a
    plain transpose (red team, 2026-12-07)."""
    M, N, K = op.TEST_SHAPES[-1]

    def odd():
        return 65 + 2 * rng.randrange(128)

    cases = []
    for dtype in dtypes:
        for shape in ({M: odd(), N: 1, K: odd()}, {M: 1, N: odd(), K: odd()}):
            cases.append(Case("random_shapes", dtype, shape, rng.randrange(2**31), op.make_inputs))
        square = {M: 65 + 2 * rng.randrange(40), N: 65 + 2 * rng.randrange(40), K: odd()}
        cases.append(Case("strided", dtype, square, rng.randrange(2**31), op.make_inputs, "transposed"))
        # and X.T @ dY (a the plain transpose), and a @ a.T (b a's storage, transposed): a
        # path keyed on a.stride() == (1, M), and one on b being a.T, each dropping K's tail,
        # passed (red team, 2026-12-07, twentieth session)
        square = {M: 65 + 2 * rng.randrange(40), N: 65 + 2 * rng.randrange(40), K: odd()}
        cases.append(Case("strided", dtype, square, rng.randrange(2**31), op.make_inputs, "transposed_a"))
        side = 65 + 2 * rng.randrange(40)
        cases.append(
            Case("aliased", dtype, {M: side, N: side, K: odd()}, rng.randrange(2**31), op.make_inputs, "gram")
        )
        # and X.T @ W.T, M below 128 and N past it, so an N x M problem (C.T = W @ X run on
        # the row-major storages) has other tile counts than the M x N one for any tiles of
        # 128 by 256 or less (such a path launched with the M x N grid left columns of C
        # unwritten in fp16: red team, 2026-12-07, twenty-first session)
        shape = {M: 65 + 2 * rng.randrange(32), N: 129 + 2 * rng.randrange(136), K: odd()}
        cases.append(Case("strided", dtype, shape, rng.randrange(2**31), op.make_inputs, "transposed_both"))
    # and fp16 outputs of exactly 65505..65519, which round to 65504 (an fp16 cast that made
    # everything past 65504 +-Inf passed: past_fp16_range keeps its outputs far from 65520,
    # where a sum's order decides; red team, 2026-12-07, twentieth session)
    for dtype in (d for d in dtypes if dtype_name(d) == "float16"):
        shape = {M: 65 + 2 * rng.randrange(40), N: 65 + 2 * rng.randrange(40), K: odd()}
        cases.append(Case("adversarial:near_fp16_max", dtype, shape, rng.randrange(2**31), near_fp16_max))
    return cases


def near_fp16_max(seed, device, dtype, M, N, K):
    """(matmul) Whole numbers whose every output is exactly 65505..65519: 256 * 255, then
    1 * (225..232) by column and (0..7) * 1 by row, at three places of K drawn from the seed,
    zeros elsewhere. Every partial sum is a whole number below 2^24, exact in fp32 in any
    order, so each fp16 output rounds to 65504, fp16's largest finite value."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    k0, k1, k2 = (int(k) for k in torch.randperm(K, generator=gen)[:3])
    a, b = torch.zeros(M, K), torch.zeros(K, N)
    a[:, k0], b[k0] = 256.0, 255.0
    a[:, k1], b[k1] = 1.0, 225.0 + torch.randint(0, 8, (N,), generator=gen)
    a[:, k2], b[k2] = torch.randint(0, 8, (M,), generator=gen).float(), 1.0
    return a.to(device=device, dtype=dtype), b.to(device=device, dtype=dtype)


def row_edges(op, rng: random.Random, dtypes: list, device: str = "cpu") -> list[Case]:
    """(Row ops) every adversarial family in every dtype at a short row (1..63) and at a
    row past two 16384-wide tiles (32769..65535, 1..3 rows), and many rows of 65..255
    (513..1039 rows, never a multiple of 8), unit-scale and with a family's values. Every
    family ran at rows of 64..20000 only and the many rows were 63 long or shorter: a
    softmax without the max on rows under 64, an RMSNorm with eps outside the root on
    rows of 8..63, a softmax that shifted rows past 32768 by its first tile's max, and an
    RMSNorm that left the last M % 8 rows unwritten from 512 rows of 64 or more passed
    a CPU at seeds 11 and 5 (red team, 2026-12-07). Last in the plan, from a draw of their
    own, so the cases before them are the same as without them."""
    keys = list(op.TEST_SHAPES[-1])
    families = list(op.adversarial.items())
    if len(keys) != 2 or not families:
        return []
    rows, row = keys
    cases = []
    # (a GPU: rows up to 262143, vocabulary-sized: a softmax that split rows past 131072
    # and summed the parts unscaled passed a CPU, whose rows stop near 80k: red team,
    # 2026-12-07, twentieth session)
    longest = 16384 if device != "cuda" else 114688
    for dtype in dtypes:
        short = {rows: rng.randrange(2, 41), row: 2 * rng.randrange(32) + 1}
        long = {rows: rng.randrange(1, 4), row: 32769 + 2 * rng.randrange(longest)}
        for name, make in families:
            for shape in (short, long):
                cases.append(Case(f"adversarial:{name}", dtype, shape, rng.randrange(2**31), make))
            # and rows of one element (a softmax that wrote 1.0 for N == 1 without reading
            # x, NaN and Inf included, passed: red team, 2026-12-07, twentieth session)
            cases.append(
                Case(f"adversarial:{name}", dtype, {rows: short[rows], row: 1}, rng.randrange(2**31), make)
            )
        many = {rows: 256 * rng.randrange(2, 4) + 1 + 2 * rng.randrange(8), row: 65 + 2 * rng.randrange(96)}
        cases.append(Case("random_shapes", dtype, many, rng.randrange(2**31), op.make_inputs))
        name, make = rng.choice(families)
        cases.append(Case(f"adversarial:{name}", dtype, many, rng.randrange(2**31), make))
    # and in fp16 a row of 65527 or more values nearly all equal: its softmax sum (past
    # 65520 even with 8 entries one below the rest), or its RMSNorm sum of squares, is past
    # fp16's range (a softmax that rounded its fp32 row sum to fp16, Inf there and the row
    # all 0, passed: no row past 65520 had near-equal values; red team, 2026-12-07, twentieth
    # session). The few lower entries: a row all equal is a case a kernel could tell apart.
    if device == "cuda":
        # and many short rows, 8193..32767 of 16..1024, in every dtype: an RMSNorm whose
        # persistent path for 8192 rows or more gave each of 132 programs tiles // 132 row
        # tiles, the rest unwritten, passed both machines: no plan had more than ~4100 rows
        # of 2048 or fewer (red team, 2026-12-07, twenty-first session). A GPU's only: on a
        # CPU a kernel of one program a row runs 8193 interpreted programs.
        for dtype in dtypes:
            shape = {rows: 8193 + 2 * rng.randrange(12288), row: rng.randrange(16, 1025)}
            cases.append(Case("random_shapes", dtype, shape, rng.randrange(2**31), op.make_inputs))
    top = 32769 + 2 * (longest - 1)  # the longest row above: 65535 on a CPU
    for dtype in (d for d in dtypes if dtype_name(d) == "float16"):
        shape = {rows: rng.randrange(1, 3), row: 65527 + 2 * rng.randrange((top - 65527) // 2 + 1)}
        cases.append(
            Case("adversarial:equal_values", dtype, shape, rng.randrange(2**31), EqualValues(op.make_inputs))
        )
    return cases


@dataclass(frozen=True)
class EqualValues:
    """An op's inputs with every element of the first one `value`, |value| 1..4 drawn from
    the seed, but for 1..8 places of each row that hold value - 1 (compared as a field, so
    two plans of one secret are equal)."""

    make: Callable

    def __call__(self, seed, device, dtype, **shape):
        import torch

        inputs = self.make(seed, device, dtype, **shape)
        rng = random.Random(seed ^ 0xE0A1)
        value = rng.choice((-1.0, 1.0)) * rng.uniform(1.0, 4.0)
        x = torch.full_like(inputs[0], value)
        rows = x.view(-1, x.shape[-1])
        for row in rows:
            lower = [rng.randrange(rows.shape[1]) for _ in range(rng.randint(1, 8))]
            row[torch.tensor(lower, device=x.device)] = value - 1
        return (x, *inputs[1:])
