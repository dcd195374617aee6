#!/usr/bin/env bash
# One call on a lent GPU host without DVC: the GPU stages in order of value, each bounded,
# the results archived even when the time runs out.
#   OUT=... bash benchmarks/gpu_session.sh [SECONDS]        (from the repository root)
# Each step logs to logs/<step>.log; a failing step does not stop the others. The figures
# land in metrics/ and reports/, exactly as the stages write them, and come back as
# $OUT/results.tgz with logs/.
set -u
budget=${1:-540}; start=$SECONDS
ops="vector_add softmax rmsnorm matmul"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
mkdir -p logs metrics
trap 'tar czf "${OUT:-/tmp}/results.tgz" metrics reports logs 2>/dev/null' EXIT
step() { local name=$1 limit=$2; shift 2
  local left=$((budget - (SECONDS - start))); [ "$left" -le 5 ] && { echo "== $name: no time left"; return; }
  [ "$limit" -gt "$left" ] && limit=$left
  echo "== $name (limit ${limit}s)"; local t0=$SECONDS
  timeout "$limit" "$@" > "logs/$name.log" 2>&1; echo "   exit $? in $((SECONDS - t0)) s"
  grep -vE "^\s*$|Warning|warn" "logs/$name.log" | tail -n "${TAIL:-8}"; }
python3 -m pipeline.device > logs/device.log 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > logs/nvidia-smi.log 2>&1
[ -f metrics/ceilings.json ] && grep -q measured metrics/ceilings.json || TAIL=3 step ceilings 120 python3 -m pipeline.roofline
TAIL=6 step fidelity 90 python3 benchmarks/timing_fidelity.py --out logs/timing_fidelity.json
for op in $ops; do
  TAIL=3 step "test-$op" 90 python3 -m pipeline.test "$op"
  TAIL=10 step "bench-$op" 120 python3 -m pipeline.bench "$op"
done
for op in $ops; do TAIL=3 step "profile-$op" 60 python3 -m pipeline.profile "$op"; done
