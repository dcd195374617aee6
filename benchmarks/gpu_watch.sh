#!/usr/bin/env bash
# Watch a gpu_repro.sh started in the background on a lent GPU machine, for at most SECONDS,
# then hand back what it has so far: the console's tail, and dvc.lock, metrics/, plots/ and
# logs/ of the run's copy in one archive under $OUT (a lent machine returns files from $OUT
# only). Run it in every call after the one that started the run, back to back.
#
#   bash benchmarks/gpu_watch.sh SECONDS [RUN_DIR]
set -u
limit=${1:-540}
run=${2:-${RUN_DIR:-/root/run}}
end=$((SECONDS + limit))
last=""
pid=$(cat "$run.pid" 2> /dev/null)
# a machine with no run on it (a fresh one: the lent machine went back while no call held it)
# has nothing to wait for: say so at once instead of spending the call's time
if [ -z "$pid" ] && [ ! -d "$run" ]; then echo "[$(date +%T)] NO RUN on this machine: $run does not exist (stage the wheels again and start gpu_repro.sh with RESTORE= the last run.tgz this script brought back)"; exit 3; fi
# stops early when gpu_repro.sh has exited without finishing (it writes $run.pid first)
while [ $SECONDS -lt "$end" ] && [ ! -e "$run/DONE" ] && { [ -z "$pid" ] || kill -0 "$pid" 2> /dev/null; }; do
  now=$(ls -t "$run"/logs/*.log 2>/dev/null | head -1)
  if [ -n "$now" ] && [ "$now" != "$last" ]; then echo "[$(date +%T)] working on $(basename "$now")"; last=$now; fi
  sleep 10
done
if [ -e "$run/DONE" ]; then echo "[$(date +%T)] the run is DONE"
elif [ -n "$pid" ] && ! kill -0 "$pid" 2> /dev/null; then echo "[$(date +%T)] the run STOPPED without finishing: see the console below"
else echo "[$(date +%T)] still running"; fi
tail -n 60 /root/console.log 2>/dev/null
if [ -n "${OUT:-}" ] && [ -d "$run" ]; then
  (cd "$run" && tar czf "$OUT/run.tgz" dvc.lock metrics plots logs 2>/dev/null)
  cp /root/console.log "$OUT/" 2>/dev/null
  ls -la "$OUT"
fi
