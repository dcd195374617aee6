#!/usr/bin/env bash
# The judge and the bench on a GPU host without DVC or CuTe DSL (the host's own torch,
# triton, pyyaml and ncu suffice): the shipped Triton kernels, every cheat, the correct
# fixtures and peers where installed, then the ceilings, test and bench stages for one op.
#
#   bash benchmarks/gpu_judge_probe.sh [OUT_DIR] [OP]      (from the repository root)
#
# Logs go to OUT_DIR (default ./gpu-probe): checks.log holds one line per kernel checked.
# SHIPPED, FIXTURES and CHEATS name the files of each set (globs); set one empty to skip it
# (gpu_repro.sh's NO_REPRO run judges the correct fixtures and the cheats through pytest).
# JOBS: cheats checked side by side (default 6; ~16 GB of the GPU a judge at its bench-scale
# case).
set -u
out=${1:-gpu-probe}; op=${2:-softmax}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
check() {  # FILE OP [EXPECTED]: one line per kernel
  local f=$1 o=$2 t0=$SECONDS name="$2-$(basename "$f" .py)"
  python -m pipeline check "$o" "$f" --json --device cuda > "$out/$name.json" 2> "$out/$name.err"
  local rc=$?
  python - "$out/$name.json" "$rc" "$3" "$((SECONDS - t0))" <<'PY' >> "$out/checks.log"
import json, sys
path, rc, expected, secs = sys.argv[1:5]
try:
    d = json.load(open(path))
    print(f"{path.rsplit('/', 1)[-1][:-5]:32s} exit {rc} [{expected}] {d['verdict']:10s} {secs:>4s} s  {d['reason'][:150]}")
except Exception as exc:
    print(f"{path.rsplit('/', 1)[-1][:-5]:32s} exit {rc} [{expected}] NO VERDICT ({exc})")
PY
}
export -f check; export out
for f in ${SHIPPED-kernels/*/triton.py}; do check "$f" "$(basename "$(dirname "$f")")" accepted & done; wait
for f in ${FIXTURES-tests/fixtures/correct/*.py tests/fixtures/peers/*.py}; do
  check "$f" "$(grep -oP '^OP = "\K\w+' "$f")" accepted & done; wait
cheats=${CHEATS-tests/cheats/*.py}
[ -z "$cheats" ] || printf "%s\n" $cheats | xargs -P "${JOBS:-6}" -I{} bash -c 'f={}; check "$f" "$(grep -oP "^OP, EXPECTED_RUNG = \"\K\w+" "$f")" "$(grep -oP "^OP, EXPECTED_RUNG = \"\w+\", \"\K[\w/|]+" "$f")"'
[ -n "${NO_STAGES:-}" ] && { cat "$out/checks.log"; exit 0; }
mkdir -p metrics
for stage in "ceilings" "test $op" "bench $op"; do
  t0=$SECONDS; python -m pipeline.stages.$stage > "$out/stage-${stage// /-}.log" 2>&1
  echo "stage $stage: exit $? in $((SECONDS - t0)) s" >> "$out/checks.log"
done
cp metrics/bench/$op.json "$out/bench-$op.json" 2>/dev/null
cat "$out/checks.log"
