#!/usr/bin/env bash
# Where the bench's outside clock loses time against do_bench (the 2026-12-01 H200 run read
# 1.2x to 17x): graph replays timed in a child (own memory or IPC-mapped, one input or one
# per graph, walls or none), then the rounds clock at 8, 64 and the default number of graphs
# per shape, each with the child's own account of its replays by its clock and by CUDA events.
#
#   bash benchmarks/gpu_clock_probe.sh [OUT_DIR]      (root, GPU host, from the repository root)
set -u
out=${1:-clock-probe}; mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout -k 5 "$limit" "$@" > "$out/$name.log" 2>&1; local rc=$?
  echo "== $name: exit $rc in $((SECONDS - t0)) s" | tee -a "$out/summary.log"
  tail -n "${TAIL:-8}" "$out/$name.log"; }
TAIL=8 step replay-probe 150 python benchmarks/sandbox_probe.py --replay
for calls in 8 64 1024; do
  TAIL=3 step "fidelity-vector_add-$calls" 90 python benchmarks/rounds_fidelity.py --op vector_add --shapes 1 \
    --quick --max-calls "$calls" --out "$out/fidelity-vector_add-$calls.json"
done
TAIL=3 step fidelity-softmax 120 python benchmarks/rounds_fidelity.py --op softmax --shapes 2 --quick \
  --out "$out/fidelity-softmax.json"
