#!/usr/bin/env bash
# `kpipe loop` on a GPU, end to end (issue 15): over a slowed vector_add, the stand-in agent
# (tests/fixtures/agent/stand_in.py) tries six patches: a compile error, a wrong kernel, an
# exploit, the same kernel reworded, a slower one and a faster one. Only the faster one may
# be committed, and the loop stops there: it is back at the roofline target.
#
#   bash benchmarks/loop_demo.sh [DEMO_DIR]     from the root of a repro'd, committed project
#
# It works on a copy (DEMO_DIR, default /tmp/loop-demo), so the project is left as it was.
# The slowed start (x copied once more: 5 arrays' traffic instead of 3) is repro'd and
# committed first, a measured version to start from; each try times it again beside the
# patch (FASTER / SLOWER / SAME side by side) and quotes the committed figure.
set -eu
demo=${1:-/tmp/loop-demo}
src=$(pwd -P)
rm -rf "$demo" && cp -a . "$demo" && cd "$demo"
# The copy, not the project it came from, is what Python imports from: `kpipe loop` stops when
# a folder on the import path changes under its agent (installguard), and gpu_repro.sh writes
# its logs inside the project it put on PYTHONPATH (2026-12-04-d: the loop stopped at once).
PYTHONPATH=$(echo "${PYTHONPATH:-}" | tr ':' '\n' | grep -vx -e "$src" -e "$src/" | paste -sd: -)
export PYTHONPATH=$demo${PYTHONPATH:+:$PYTHONPATH}
rm -rf logs results.tgz DONE           # what benchmarks/gpu_repro.sh leaves beside the tree
if [ -n "$(git status --porcelain)" ]; then
  echo "loop_demo: the project has uncommitted changes:"; git status --short | head; exit 2
fi
# Every op's stages depend on the machine's record: on another machine the loop's commits
# would be refused by the gate as "stale" (tried on a CPU, 2026-12-04: three correct patches
# refused), so say so before anything is spent.
dvc repro metrics/dvc.yaml:device > /dev/null 2>&1
if ! git diff --quiet HEAD -- metrics/device.json; then
  echo "loop_demo: this machine is not the one HEAD's evidence was made on (metrics/device.json):"
  git diff HEAD -- metrics/device.json | grep '^[-+] ' | head -8
  echo "run the whole \`dvc repro\` here first (benchmarks/gpu_repro.sh without NO_REPRO)"; exit 2
fi
sed -i 's/    x, y = x.contiguous(), y.contiguous()$/    x, y = x.contiguous().clone(), y.contiguous()  # slow start: x is copied once more/' \
  kernels/vector_add/triton.py
grep -q "slow start" kernels/vector_add/triton.py || { echo "loop_demo: the kernel's line has changed"; exit 2; }
echo "== the slowed start: dvc repro of vector_add's stages"
# vector_add's stages only: on a fresh machine every op's compile dumps (DVC-cached, not in
# git) are missing, and a plain `dvc repro` would redo the whole pipeline first.
dvc repro bench@vector_add profile@vector_add > logs-start.txt 2>&1 || { tail -30 logs-start.txt; exit 1; }
rm logs-start.txt
git add -A && git commit -qm "loop demo: a slowed vector_add/triton (x copied once more)"
python -m pipeline status 2>&1 | grep -i "vector_add" || true
echo "== kpipe loop vector_add triton, the stand-in agent, six patches"
python -m pipeline loop vector_add triton --agent "python tests/fixtures/agent/stand_in.py" \
  --max-iters 6 --budget-minutes 20
echo "== what the loop committed"
git log --format='%h %s%n%b' -2
git status --short
