#!/usr/bin/env bash
# `dvc repro` on an offline GPU host, from a copy of the working tree that has no .git
# (what a lent machine receives), then the figures a reviewer asks for.
#
#   bash benchmarks/gpu_repro.sh [TUNE_OP TUNE_IMPL [kpipe tune options]]
#   RESUME=1 bash benchmarks/gpu_repro.sh ...     go on where an earlier, cut-off run stopped
#   RESTORE=run.tgz bash benchmarks/gpu_repro.sh ...   the same on a fresh machine, from the
#                                 last archive gpu_watch.sh brought back (the lent machine went
#                                 back, and the run with it, when no call held it for 30 s)
#   NO_REPRO=1 bash benchmarks/gpu_repro.sh     when the tree sent already carries GPU evidence
#                                 for its code (`kpipe verify --strict HEAD` ok): no stages; the
#                                 lease goes, alone, to the loop, a try's latency, a judge's
#                                 fixed start (benchmarks/start_cost.py) and an MCP session,
#                                 then to the judge (every cheat, the correct fixtures, 20
#                                 checks of a softmax, the wrapped peers), the timing cheats
#                                 through the bench. A `dvc
#                                 repro` with its first steps takes ~20 minutes of a 30-minute
#                                 lease (2026-12-04), leaving none for them.
#   NO_REPRO=1 SKIP_TIMING_BENCHMARKS=1 bash benchmarks/gpu_repro.sh   one verdict in full, then
#                                 the judges alone (~17 min on 2026-12-05): what a change of the
#                                 judge must show on a GPU before its evidence is made again
#   STEPS="one-check cheats-gpu-only judge20 peers" ...   only the steps named (a short lease;
#                                 without one-check there is no canary)
#   CHEATS_FIRST="name ..."       cheats (file stems) that the cheats-gpu step checks first:
#                                 the ones no GPU has judged yet, before its time runs out
#   CHEATS_ONLY="name ..."        the cheats-gpu step checks these alone (the others' tests
#                                 skip, saying so): the ones whose verdict a change is about
#   EXTRA_FIXTURES="path ..."     correct kernels the peers step checks beside the wrapped
#                                 peers (NO_REPRO only): a new fixture no GPU has judged
#
# Run it from the copy's root, with dvc and friends on PATH/PYTHONPATH (DEVELOPERS.md:
# "An offline GPU host"). It copies the tree to $RUN_DIR (default /root/run), makes it a
# git repository with one commit ("the tree as sent"), and there, most wanted first:
#  -1. one `kpipe check` of the shipped Triton softmax, in full (logs/one-check.json): a canary
#      that stops the run unless it is accepted (CANARY=0: go on regardless)
#   0. the compile stages of every op side by side, and the test stages (judges in GPU slots);
#      then the judge lane, while the compiles last (they need no GPU): the GPU-only cheats
#      (tests/test_cheats_gpu.py), every cheat and correct fixture through
#      tests/test_check.py, a correct softmax checked 20 times
#   1. dvc repro                      every stage, GPU ones included, keeping what step 0
#                                     made for the same code; nothing else runs beside the
#                                     bench and profile stages
#   2. git commit                     the run's dvc.lock and metrics, as a version
#   3. kpipe status, kpipe report softmax, kpipe history, kpipe verify --strict HEAD~1..HEAD
#   4. unless SKIP_TIMING_BENCHMARKS is set, kpipe loop over six patches (when it is set,
#      the correct fixtures, the wrapped peers and the GPU-only cheats side by side first)
#      (benchmarks/loop_demo.sh); the GPU-only cheats if the lane did not finish them; the rest
#      of the lane; benchmarks/loop_latency.py and the clock against do_bench
#      (benchmarks/rounds_fidelity.py)
#   5. the other tests marked gpu (the timing cheats through the bench), the peers and
#      fixtures (benchmarks/gpu_judge_probe.sh); the clock for vector_add and an MCP session
#      (benchmarks/mcp_session.py) unless SKIP_TIMING_BENCHMARKS is set
#   6. kpipe tune TUNE_OP TUNE_IMPL   if asked: DVC experiments, stopping at roofline
# Each step logs to $RUN_DIR/logs/<step>.log and a failing step does not stop the others.
# A lent machine's call has a time limit: with RESUME=1 the copy is kept, steps that
# finished (logs/<step>.done) are skipped and dvc repro goes on from the stages it
# finished. At the end $RUN_DIR/results.tgz holds dvc.lock, metrics/, plots/, logs/ and the
# small files of reports/, and $RUN_DIR/DONE exists. Copy the results back by hand: the
# metrics then match the tree that was sent, so they can be committed on top of it.
set -u
src=$PWD
restore=${RESTORE:+$(realpath "$RESTORE")}
run=${RUN_DIR:-/root/run}
echo $$ > "$run.pid"    # benchmarks/gpu_watch.sh stops waiting once this process is gone
export PYTHONUNBUFFERED=1
export STEPS=${STEPS:-}
export GIT_AUTHOR_NAME=kpipe GIT_AUTHOR_EMAIL=kpipe@localhost
export GIT_COMMITTER_NAME=kpipe GIT_COMMITTER_EMAIL=kpipe@localhost
# dvc.yaml says `python`; some hosts only have python3.
command -v python > /dev/null || {
  mkdir -p /tmp/pybin && ln -sf "$(command -v python3)" /tmp/pybin/python && export PATH=/tmp/pybin:$PATH; }
# The wheelhouse first: on 2026-12-05 the machine went back between two staging calls, the
# fourth call's `eval "$(bash .../install.sh ...)"` evaluated nothing (no such file) and went
# on, and every step ran for six minutes without git, dvc or the DSLs.
missing=$(python - <<'PY'
import importlib.util
print(" ".join(m for m in ("git", "dvc", "yaml", "tabulate", "pytest") if importlib.util.find_spec(m) is None))
PY
)
if [ -n "$missing" ] || ! command -v dvc > /dev/null; then
  echo "gpu_repro: not installed here: ${missing:-dvc on PATH}. Stage the four wheelhouse parts and"
  echo "  eval the install script's output first (DEVELOPERS.md: An offline GPU host)"
  rm -f "$run.pid"; exit 1
fi

if [ -n "${RESUME:-}" ] && [ -d "$run/.git" ]; then
  cd "$run" || exit 1
  rm -f .dvc/tmp/rwlock .dvc/tmp/lock   # left by a dvc repro the call's time limit cut off
else
  rm -rf "$run" && mkdir -p "$run"
  # without .git: a lent machine's copy may carry one (2026-12-03, fifth session), and the
  # run's repository must hold exactly one commit, the tree as sent
  tar -C "$src" --exclude=./.git --exclude="./.gpu-wheels*" --exclude=./.gpu-carry -cf - . | tar -C "$run" -xf -
  cd "$run" || exit 1
  git init -q && git add -A && git commit -qm "the tree as sent" ||
    { echo "gpu_repro: could not commit the tree as sent in $run"; exit 1; }
  if [ -n "$restore" ]; then
    # dvc.lock, metrics/, plots/ and logs/ (the steps' .done marks) of the run that was lost.
    # What it committed in its own repository went with it: those steps run again. The
    # stages it finished are kept by `dvc repro --allow-missing` (their DVC-cached dumps
    # and reports did not come back; nothing else about them changed).
    tar -C "$run" -xzf "$restore" || { echo "gpu_repro: cannot read $restore"; exit 1; }
    rm -f logs/set-aside.done logs/commit.done logs/status.done logs/report-softmax.done \
      logs/history.done logs/verify.done
    echo "gpu_repro: restored from $restore: $(ls logs/*.done 2> /dev/null | wc -l) step(s) done before"
  fi
fi
mkdir -p logs
kpipe() { python -m pipeline.commands.cli "$@"; }
step() { local name=$1; shift; local t0=$SECONDS
  if [ -e "logs/$name.done" ]; then echo "== $name: done in an earlier call ($(cat "logs/$name.done"))"; return; fi
  if [ -n "${STEPS:-}" ] && [[ " $STEPS " != *" $name "* ]]; then echo "== $name: not in STEPS"; return 0; fi
  echo "== $name"; "$@" > "logs/$name.log" 2>&1; local rc=$?
  echo "exit $rc in $((SECONDS - t0)) s" > "logs/$name.done"
  echo "   exit $rc in $((SECONDS - t0)) s"; tail -n "${TAIL:-15}" "logs/$name.log"; }

# The stages' slow half runs first, side by side: every op's compile stage at once (they do
# no GPU work; TileLang's 21 specializations of a softmax take ~130 s alone), and the test
# stages too, their judges in slots of the GPU's memory (a softmax judge holds ~15 GB of it;
# ten side by side ran out of memory on 2026-12-03). `dvc repro` then keeps each candidate's compile result and
# verdict made here for the same code on this machine (the stages' own reuse, as after a
# one-file edit: "unchanged since the last run: kept"), judges again any "unverified", and
# runs the rest. On 2026-12-03 the compile and test stages one after another took ~7.5 min.
# A candidate the judge rejects here (or every TileLang one, where tilelang does not import)
# would stop `dvc repro` at its test stage: it is taken out of the run's tree in a commit of
# its own ("set aside") first, so the evidence is for a tree that can be rebuilt by hand (the
# same `git rm` on top of the sent commit) and the logs say why.
ops=$(python -c 'import yaml; print(" ".join(yaml.safe_load(open("params.yaml"))["ops"]))')
first_compiles() {
  # its own children only: a bare `wait` here waited for the judge lane too (2026-12-03, the
  # fourth session's run: dvc repro started 4 minutes late)
  local op pids=()
  for op in $ops; do
    (python -m pipeline.stages.compile "$op" > "logs/compile-$op.log" 2>&1; echo "exit $?" >> "logs/compile-$op.log") &
    pids+=($!)
  done
  wait "${pids[@]}"
}
first_tests() {
  # every op's test stage at once: each judge takes one of the GPU's memory slots first
  # (pipeline/core/lease.py: judge_slot, 16 GiB a judge), so they queue there, not in the
  # GPU's memory (2026-12-07, an H100: six judges of two ops ran it out of memory and a
  # correct softmax was rejected; the kernel witness runs one at a time anyway)
  local op
  for op in softmax vector_add rmsnorm matmul; do
    case " $ops " in *" $op "*) ;; *) continue ;; esac
    (python -m pipeline.stages.test "$op" > "logs/test-$op.log" 2>&1; echo "exit $?" >> "logs/test-$op.log") &
  done
  wait
  touch logs/first-tests.finished
}
set_aside() {
  local bad="" files site
  files=$(ls kernels/*/tilelang.py 2>/dev/null)
  if [ -n "$files" ] && ! site=$(python -c 'import tilelang' 2>&1); then
    echo "tilelang does not import: $site"; bad=$files
  fi
  tail -n 4 logs/test-*.log logs/compile-*.log
  bad="$bad $(python - <<'PY'
import json, pathlib
for rec in pathlib.Path("metrics/test").glob("*.json"):
    if rec.name.count(".") == 1:  # metrics/test/OP.json, not the .head.json summary
        for impl, c in (json.loads(rec.read_text()).get("candidates") or {}).items():
            if c.get("verdict") == "rejected":
                print(f"kernels/{rec.stem}/{impl}.py")
PY
)"
  bad=$(echo $bad | tr ' ' '\n' | sort -u | tr '\n' ' ')
  if [ -n "${bad// /}" ]; then
    git rm -q $bad && git commit -qm "set aside for this run, not accepted on this GPU: $bad" &&
      echo "set aside (removed in a commit of the run): $bad"
  fi
}
export PYTHONPATH=$run${PYTHONPATH:+:$PYTHONPATH}    # the benchmarks import pipeline/
# The judge lane: judges only (nothing timed), six side by side (a softmax judge holds ~15 GB
# of the GPU at its bench-scale case: ten side by side ran out of memory on 2026-12-03). It
# runs beside the first compile stages, which do no GPU work, once the first test stages are
# done, in a session of its own, and is stopped when the compiles end, so it never delays the evidence: whatever it did not finish runs
# again after the commit (a step that finished left logs/<step>.done and is skipped).
# Most wanted first: the GPU-only cheats, then the correct fixtures; beside them every cheat
# through tests/test_check.py (four at a time in its fixture); then a correct softmax 20 times.
# cheats-gpu checks every cheat in one module fixture, so pytest-timeout's 900 s (pyproject)
# is the whole set's limit: two judges side by side on an H100 ran past it (2026-12-05-f,
# 93 errors, no verdict recorded), hence --timeout 3600 there.
# How many judges fit beside N others on the GPU's free memory, ~16 GB a judge at its
# bench-scale case, WANT at most and 1 at least (an H100 has 80 GB: six side by side ran out
# of memory there on 2026-12-05, "no verdict"; an H200 has 141 GB).
judges_fit() { local want=$1 others=$2 free_mib n
  free_mib=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1)
  n=$(( free_mib / 16384 - others )); [ "$n" -gt "$want" ] && n=$want; [ "$n" -lt 1 ] && n=1
  echo "$n"; }
gpu_only_cheats() {
  TAIL=30 step cheats-gpu-only python -m pytest -q -n 2 --dist load -p no:cacheprovider -rs -m gpu \
    tests/test_cheats_gpu.py
}
judge_lane() {
  # after the first test stages: their judges and the lane's side by side are too many for the GPU
  while [ ! -e logs/first-tests.finished ] && [ ! -e logs/set-aside.done ]; do sleep 5; done
  { gpu_only_cheats
    TAIL=30 step correct-gpu python -m pytest -q -n 2 --dist load -p no:cacheprovider -rs \
      tests/test_correct_kernels.py
  } &
  { KPIPE_TEST_FIRST="${CHEATS_FIRST:-}" KPIPE_TEST_ONLY="${CHEATS_ONLY:-}" KPIPE_TEST_VERDICTS=$PWD/logs/cheat-verdicts KPIPE_TEST_JUDGES=$(judges_fit 4 2) TAIL=30 step cheats-gpu python -m pytest -q -n 0 -p no:cacheprovider -rs --timeout 3600 \
      tests/test_check.py -k "cheat"
  } &
  wait
  judge20
}
judge20() {
  # host memory every 5 s beside it (logs/judge20-memory.log): on 2026-12-05, 7 of 20 lost the
  # witness's target under ncu (exit 9, nothing printed) six side by side, none alone
  (while [ ! -e logs/judge20.done ]; do echo "$(date +%T) $(free -m | sed -n 2p)"; sleep 5; done \
    > logs/judge20-memory.log 2>&1 &)
  # side by side as the GPU's memory allows, ~16 GB a judge at its bench-scale case, 6 at most
  # (2026-12-05, an H100 of 80 GB: one of six side by side ran out of memory, "no verdict")
  local free_mib; free_mib=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1)
  export JUDGES=$(( free_mib / 16384 > 6 ? 6 : (free_mib / 16384 < 1 ? 1 : free_mib / 16384) ))
  echo "   $JUDGES judges side by side ($free_mib MiB free)"
  TAIL=25 step judge20 bash -c 'seq 20 | xargs -P "$JUDGES" -I{} sh -c "python -m pipeline check softmax \
    kernels/softmax/triton.py --device cuda > logs/judge20-{}.log 2>&1; echo run {} exit \$?"'
  sort -k4 -n logs/judge20-memory.log | tail -1 | sed 's/^/   most host memory used (free -m): /'
  dmesg 2> /dev/null | grep -i -E "out of memory|killed process" | tail -3
}
# racecheck over one call of each shipped kernel and the CuTe peers: data, no verdict (whether
# racecheck can be a rung: benchmarks/racecheck_probe.py), last, as the lease allows
racecheck_probe() {
  python benchmarks/racecheck_probe.py --out logs/racecheck.json kernels/*/*.py tests/fixtures/peers/quack_*.py
}
# two checks with the witness replaying every call: verdicts and phase_seconds in
# logs/every-call-*.json
every_call() {
  local op file
  # the cheat the one-call witness accepted, then correct kernels whose many launches cost
  # most under ncu (an autotuner's benchmark runs, CuTe, a split-K GEMM's two kernels)
  for op_file in "vector_add tests/cheats/witness_counts_calls.py" "softmax kernels/softmax/triton.py" \
      "vector_add tests/fixtures/correct/autotuned_vector_add.py" "softmax kernels/softmax/cute.py" \
      "matmul tests/fixtures/correct/split_k_matmul.py"; do
    read -r op file <<< "$op_file"
    KPIPE_WITNESS_CALLS=all python -m pipeline check "$op" "$file" --device cuda --json \
      > "logs/every-call-$(basename "$file" .py).json"
  done
  python - <<'PY'
import glob, json
for f in sorted(glob.glob("logs/every-call-*.json")):
    d = json.load(open(f))
    print(f, d["verdict"], d["reason"][:200])
    print("   ", {k: v for k, v in (d.get("phase_seconds") or {}).items() if v > 2})
PY
}
export -f step judges_fit every_call gpu_only_cheats judge_lane judge20 racecheck_probe
# One verdict in full before anything else (~35 s): what a change of the judge shows on a GPU
# (its rungs, phase_seconds), and a canary. On 2026-12-05 a judge written without a GPU
# crashed every verdict there; everything after it was spent for nothing. A correct Triton
# softmax that is not accepted stops the run here (CANARY=0 goes on regardless).
TAIL=0 step one-check bash -c 'python -m pipeline check softmax kernels/softmax/triton.py --device cuda \
  --json > logs/one-check.json'
[ -e logs/one-check.json ] && python -c 'import json; d = json.load(open("logs/one-check.json"));
print(d["verdict"], d["reason"]); print("witness", d["rungs"].get("kernel_witness"), "needs_gpu", d["needs_gpu"]);
print(d["phase_seconds"])'
if [ "${CANARY:-1}" != 0 ] && [ -e logs/one-check.json ] && ! grep -q '"verdict": "accepted"' logs/one-check.json; then
  echo "gpu_repro: STOPPED: the judge did not accept the shipped Triton softmax (logs/one-check.json)"
  tar czf results.tgz logs && touch DONE
  exit 1
fi
if [ -n "${NO_REPRO:-}" ]; then
  # What is timed first, alone: the loop (never run to its end on a GPU with its stop at the
  # target), a try's latency (tries only: the `dvc repro` column needs the compile stages'
  # dumps, which a fresh machine lacks), a judge's fixed start, an MCP session. Then the
  # judges, six at a time (ten side by side ran out of GPU memory on 2026-12-03): every cheat
  # and the correct fixtures (all passed on 2026-12-04-d), 20 checks of a softmax, the
  # wrapped peers, the timing cheats through the bench.
  # The witness replaying every call (the default since 2026-12-05-h; the step names it):
  # what it costs kernels of many launches, and the cheat the one-call witness accepted.
  # beside the judge lanes when the judges are alone (its replays wait for ncu's lock, its
  # other rungs need not): ~5 checks of ~60 s one after another
  if [ -n "${SKIP_TIMING_BENCHMARKS:-}" ]; then TAIL=6 step every-call every_call & else
    TAIL=6 step every-call every_call; fi
  if [ -z "${SKIP_TIMING_BENCHMARKS:-}" ]; then   # SKIP_TIMING_BENCHMARKS=1: the judges alone
    TAIL=40 step loop-demo bash benchmarks/loop_demo.sh /tmp/loop-demo
    TAIL=12 step loop-latency bash -c 'rm -rf /tmp/loop-latency && cp -a . /tmp/loop-latency &&
      cd /tmp/loop-latency && PYTHONPATH=$PWD:$PYTHONPATH python benchmarks/loop_latency.py --op softmax \
      --impl triton --repeat 3 --skip-repro'
    TAIL=8 step start-cost python benchmarks/start_cost.py --out logs/start-cost.json
    TAIL=20 step mcp-session bash -c 'rm -rf /tmp/mcp-copy && cp -a . /tmp/mcp-copy && cd /tmp/mcp-copy &&
      PYTHONPATH=$PWD:$PYTHONPATH python benchmarks/mcp_session.py --out '"$run"'/logs/mcp-session.json'
  fi
  { gpu_only_cheats
    TAIL=30 step correct-gpu python -m pytest -q -n 2 --dist load -p no:cacheprovider -rs \
      tests/test_correct_kernels.py
  } &
  others=2; [ -z "${STEPS:-}" ] || [[ " $STEPS " == *" every-call "* ]] && others=3  # every-call's judge
  echo "   cheats-gpu: $(judges_fit 4 $others) judges side by side, beside $((others - 1))-$others others"
  # the wrapped peers first (a false rejection there is the costlier news; on 2026-12-06 the
  # lease ran out before they started), then every cheat
  { TAIL=12 step peers env NO_STAGES=1 SHIPPED= CHEATS= FIXTURES="tests/fixtures/peers/*.py ${EXTRA_FIXTURES:-}" \
      bash benchmarks/gpu_judge_probe.sh logs/peers
    KPIPE_TEST_FIRST="${CHEATS_FIRST:-}" KPIPE_TEST_ONLY="${CHEATS_ONLY:-}" KPIPE_TEST_VERDICTS=$PWD/logs/cheat-verdicts KPIPE_TEST_JUDGES=$(judges_fit 4 $others) TAIL=30 step cheats-gpu python -m pytest -q -n 0 -p no:cacheprovider -rs --timeout 3600 \
      tests/test_check.py -k "cheat"
  } &
  wait
  judge20
  TAIL=12 step gpu-tests python -m pytest -q -m gpu -rs -p no:cacheprovider --ignore tests/test_cheats_gpu.py
  TAIL=16 step racecheck racecheck_probe
  tar czf results.tgz logs && touch DONE
  echo "== results: $run/results.tgz ($(du -h results.tgz | cut -f1))"
  exit 0
fi
[ -e logs/set-aside.done ] || [ -e logs/first-tests.finished ] || first_tests &
tests=$!
setsid bash -c judge_lane &
lane=$!
TAIL=0 step first-compiles first_compiles
wait "$tests"
# stopped before the set-aside commit: a judge sees kernels/ change under it as "no verdict"
kill -- -"$lane" 2> /dev/null && echo "== the judge lane stopped: what it did not finish runs after the commit"
wait "$lane" 2> /dev/null
TAIL=60 step set-aside set_aside
TAIL=40 step repro dvc repro ${restore:+--allow-missing}
commit_run() { git add -A dvc.lock metrics plots && git commit -qm "dvc repro on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"; }
step commit commit_run
TAIL=40 step status kpipe status
TAIL=0 step report-softmax kpipe report softmax
TAIL=12 step history kpipe history
TAIL=20 step verify kpipe verify --strict HEAD~1..HEAD
# Then, as the lent machine's time may run out, most wanted first: the loop (issue 15: on
# 2026-12-03-e it reached its fifth patch only, and its try now times the committed version
# side by side), the GPU-only cheats (7 of 7 rejected on 2026-12-03-e), the rest of the
# lane, the loop's latency, the bench's clock against do_bench, the timing cheats through the
# bench, the peers and fixtures as candidates (benchmarks/gpu_judge_probe.sh), an MCP
# session. Each runs alone.
[ -n "${SKIP_TIMING_BENCHMARKS:-}" ] || TAIL=40 step loop-demo bash benchmarks/loop_demo.sh /tmp/loop-demo
if [ -n "${SKIP_TIMING_BENCHMARKS:-}" ]; then
  # Judges only, five side by side: what a change of the judge must show first (the correct
  # fixtures, the wrapped peers) beside the GPU-only cheats; judge_lane below then skips them.
  TAIL=30 step correct-gpu python -m pytest -q -n 2 --dist load -p no:cacheprovider -rs \
    tests/test_correct_kernels.py &
  TAIL=12 step peers env NO_STAGES=1 SHIPPED= CHEATS= FIXTURES="tests/fixtures/peers/*.py" \
    bash benchmarks/gpu_judge_probe.sh logs/peers &
  gpu_only_cheats &
  wait
fi
gpu_only_cheats
judge_lane
if [ -z "${SKIP_TIMING_BENCHMARKS:-}" ]; then
  # in a copy: it edits the kernel and re-times it, and the run's tree stays the committed one
  TAIL=12 step loop-latency bash -c 'rm -rf /tmp/loop-latency && cp -a . /tmp/loop-latency &&
    cd /tmp/loop-latency && PYTHONPATH=$PWD:$PYTHONPATH python benchmarks/loop_latency.py --op softmax --impl triton'
  TAIL=12 step fidelity-softmax python benchmarks/rounds_fidelity.py --op softmax --quick --out logs/fidelity-softmax.json
fi
TAIL=12 step gpu-tests python -m pytest -q -m gpu -rs -p no:cacheprovider --ignore tests/test_cheats_gpu.py
TAIL=60 step judge-probe env NO_STAGES=1 bash benchmarks/gpu_judge_probe.sh logs/judge softmax
TAIL=16 step racecheck racecheck_probe
if [ -z "${SKIP_TIMING_BENCHMARKS:-}" ]; then
  TAIL=12 step fidelity-vector_add python benchmarks/rounds_fidelity.py --op vector_add --quick --out logs/fidelity-vector_add.json
  TAIL=20 step mcp-session python benchmarks/mcp_session.py --out logs/mcp-session.json
fi
if [ $# -ge 2 ]; then
  TAIL=25 step tune kpipe tune "$@"
  TAIL=30 step exp-show dvc exp show --md --only-changed
fi
find reports -type f -size -2M > logs/small-reports.txt 2>/dev/null
tar czf results.tgz dvc.lock metrics plots logs $(cat logs/small-reports.txt)
touch DONE
echo "== results: $run/results.tgz ($(du -h results.tgz | cut -f1))"
