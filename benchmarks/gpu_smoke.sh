#!/usr/bin/env bash
# The first minutes on a GPU host: every GPU-only path once, fast, each step under its own
# time limit, so one broken path cannot hide the others. Run from the repository root with
# dvc and friends on PATH/PYTHONPATH (a CUTLASS=0 wheelhouse is enough: CuTe candidates are
# then "unverified"). Logs go to OUT_DIR (default ./gpu-smoke), one file per step.
#
#   bash benchmarks/gpu_smoke.sh [OUT_DIR]
#
#   1. the GPU-only cheats (tests/test_cheats_gpu.py), beside
#   2. the walls under CUDA: kpipe check of the Triton softmax (isolation must read "full")
#   3. the ceilings, device, compile, test and bench stages for softmax (the bench child)
#   4. the outside clock: benchmarks/rounds_fidelity.py --op softmax
#   5. ncu on a locked-down target: the profile stage for softmax
set -u
out=${1:-gpu-smoke}; mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
command -v python > /dev/null || {
  mkdir -p /tmp/pybin && ln -sf "$(command -v python3)" /tmp/pybin/python && export PATH=/tmp/pybin:$PATH; }
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout -k 5 "$limit" "$@" > "$out/$name.log" 2>&1; local rc=$?
  echo "== $name: exit $rc in $((SECONDS - t0)) s" | tee -a "$out/summary.log"
  tail -n "${TAIL:-8}" "$out/$name.log"; }
nvidia-smi -L > "$out/gpu.txt" 2>&1
python -c 'import torch, triton; print(torch.__version__, triton.__version__)' >> "$out/gpu.txt" 2>&1
# correctness only, so these two may share the GPU; nothing is timed until both are done
TAIL=20 step cheats-gpu 120 python -m pytest -q -n 4 -p no:cacheprovider -m gpu tests/test_cheats_gpu.py &
TAIL=30 step check-softmax 90 python -m pipeline check softmax kernels/softmax/triton.py --device cuda --json
wait
mkdir -p metrics
step ceilings 60 python -m pipeline.stages.ceilings
step device 30 python -m pipeline.stages.device
step compile-softmax 60 python -m pipeline.stages.compile softmax
step test-softmax 60 python -m pipeline.stages.test softmax
TAIL=30 step bench-softmax 150 python -m pipeline.stages.bench softmax
cp metrics/bench/softmax.json metrics/ceilings.json "$out/" 2>/dev/null
TAIL=20 step fidelity-softmax 90 python benchmarks/rounds_fidelity.py --op softmax --out "$out/fidelity-softmax.json"
TAIL=20 step profile-softmax 60 python -m pipeline.stages.profile softmax
cat "$out/summary.log"
