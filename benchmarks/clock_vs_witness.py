"""The bench stage's outside clock beside its witness, from committed bench metrics.

    python benchmarks/clock_vs_witness.py DIR [DIR ...]     each DIR holds <op>.json files
                                                           (metrics/bench, or a results copy)

The bench times each candidate from outside its process (rounds of fresh inputs, less the
input copy and a fixed cost measured with a trusted child): `median_us`. At the headline
shape it also asks CUPTI, in the candidate's process, how long its kernels ran: `witness_us`.
The witness is not the figure (the candidate could reach it), but two runs of the same code
on two machines show which of the two moves. Prints, per headline shape and DIR, both
figures, their ratio and the fixed cost each figure was corrected by.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tabulate import tabulate


def rows(folder: Path) -> list[list]:
    out = []
    for path in sorted(folder.glob("*.json")):
        if path.name.endswith(".head.json"):
            continue
        data = json.loads(path.read_text())
        for name, cand in sorted(data.get("candidates", {}).items()):
            for label, rec in cand.get("shapes", {}).items():
                if rec.get("status") != "ok" or not rec.get("witness_us"):
                    continue  # the witness runs at the headline shape only
                out.append([data.get("op", path.stem), name, label, str(folder), round(rec["median_us"], 1),
                            round(rec["witness_us"], 1), round(rec["median_us"] / rec["witness_us"], 2),
                            round(rec.get("fixed_cost_us", 0.0), 1), rec.get("calls")])  # fmt: skip
    return out


def main(argv: list[str]) -> int:
    if not argv or any(not Path(a).is_dir() for a in argv):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    table = sorted((r for folder in argv for r in rows(Path(folder))), key=lambda r: (r[0], r[1], r[2]))
    if not table:
        print("no bench record with a witness in " + ", ".join(argv), file=sys.stderr)
        return 1
    print(tabulate(table, headers=["op", "candidate", "shape", "metrics", "outside us", "witness us",
                                   "ratio", "fixed us", "calls"]))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
