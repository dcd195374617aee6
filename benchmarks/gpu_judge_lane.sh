#!/usr/bin/env bash
# The judge alone on a lent GPU machine, without staging the wheelhouse: `python -m pipeline
# check` needs only the host's torch, triton and pyyaml, plus tabulate, one pure-Python wheel
# imported from the file itself (carry [".gpu-wheels/part4/tabulate-0.10.0-py3-none-any.whl"],
# or wherever wheelhouse.sh put it). Four staging calls cost ~3 minutes of a lease; this costs
# none, at the price of the peers (Quack, Liger, CuTe DSL need the wheelhouse).
#
#   bash benchmarks/gpu_judge_lane.sh start CHEAT_LIST [SECONDS]   first call: copy the tree
#        to /root/lane, start every cheat named in CHEAT_LIST (one path a line, checked in
#        that order, JOBS at a time, default 5) and the kernels in KERNELS ("op:file ...",
#        KJOBS at a time beside them, default 1, each must be accepted), then watch
#   bash benchmarks/gpu_judge_lane.sh watch [SECONDS]              every later call
#
# Each call watches for SECONDS (default 480), prints the verdicts so far and packs
# /root/probe (checks.log, one JSON verdict a kernel) into $OUT/probe.tgz.
set -u
mode=${1:-watch}
if [ "$mode" = start ]; then
  list=$(realpath "$2"); secs=${3:-480}
  wheel=$(ls .gpu-wheels/part*/tabulate-*.whl 2> /dev/null | head -1)
  [ -n "$wheel" ] && cp "$wheel" /root/ && export PYTHONPATH=/root/$(basename "$wheel")${PYTHONPATH:+:$PYTHONPATH}
  python -c "import yaml, tabulate, torch; print(torch.cuda.get_device_name())" || exit 1
  rm -rf /root/lane /root/probe && cp -a . /root/lane && mkdir -p /root/probe && cd /root/lane || exit 1
  # a copy: the next call's working tree arrives over the first, and a judge gives no verdict
  # on a project that changed under it
  (setsid nohup env NO_STAGES=1 SHIPPED= FIXTURES= CHEATS="$(cat "$list")" JOBS="${JOBS:-5}" \
    bash -c 'bash benchmarks/gpu_judge_probe.sh /root/probe; touch /root/probe/DONE' \
    > /root/probe.console 2>&1 < /dev/null &)
  # KJOBS at a time (default 1); a kernel named twice is checked twice (fresh secret seeds)
  (setsid nohup bash -c 'i=0; for k in $KERNELS; do i=$((i + 1)); echo "$i $k"; done |
    xargs -P "${KJOBS:-1}" -L 1 sh -c '"'"'python -m pipeline check "${1%%:*}" "${1#*:}" --device cuda --json \
      > "/root/probe/kernel-$0-$(basename "${1#*:}" .py).json" 2>&1'"'"'' > /dev/null 2>&1 < /dev/null &)
else
  secs=${2:-480}
fi
end=$((SECONDS + secs))
while [ $SECONDS -lt $end ] && [ ! -e /root/probe/DONE ]; do sleep 10; done
echo "[$(date +%T)] $(wc -l < /root/probe/checks.log 2> /dev/null || echo 0) cheats judged$([ -e /root/probe/DONE ] && echo ', all')"
cut -c1-200 /root/probe/checks.log 2> /dev/null
for f in /root/probe/kernel-*.json; do
  [ -e "$f" ] && python -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sys.argv[1], d["verdict"], d["reason"][:150])' "$f" 2> /dev/null
done
[ -n "${OUT:-}" ] && tar czf "$OUT/probe.tgz" -C /root probe
