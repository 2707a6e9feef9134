#!/bin/sh
# earnest's main job on the bundled example data (the README's first command runs it).
#
# The example data holds failures on purpose (replies with every verdict, transcripts that
# claim completion without effect), so several steps report findings and exit 1: that is the
# tool working. The job fails only when a step could not run (exit 2: bad input, or worse).
cd "$(dirname "$0")/.." || exit 2
if [ -x .venv/bin/earnest ]; then EARNEST=.venv/bin/earnest
elif command -v earnest >/dev/null 2>&1; then EARNEST=earnest
else EARNEST="python3 -m earnest"; fi
COLUMNS=${COLUMNS:-120}
export COLUMNS
broken=0

step() {
    printf '\n$ earnest %s\n' "$*"
    $EARNEST "$@"
    rc=$?
    if [ "$rc" -ge 2 ]; then broken=1; fi
    printf '(exit %s)\n' "$rc"
}

step check --suite examples/suite
step score --suite examples/suite examples/suite/recorded/replies.jsonl --format jsonl
step trajectory score examples/trajectories --dimensions all
step trajectory replay-gate examples/trajectories

# Everything above in one self-contained HTML file (EARNEST_OUT: where to write it).
out=${EARNEST_OUT:-out}
mkdir -p "$out" || exit 2
step report --suite examples/suite --trajectories examples/trajectories --dimensions all \
    --output "$out/report.html"

# Said versus did, offline: the agentic suite's recorded acted-out replies (each with what the
# agent did) judged again; then the suite acted out live by its scripted agents, each in a fresh
# copy of the fixture's workspace (they really run the tests, try to merge, edit a file); one
# verdict per agent, fail-action among them. Then its report, said and did side by side.
step check --suite examples/agentic
printf '\n$ earnest run --suite examples/agentic --act --store %s -y\n' "$out/agentic-runs.db"
$EARNEST run --suite examples/agentic --act --store "$out/agentic-runs.db" -y \
    >"$out/agentic-run.txt"
rc=$?
cat "$out/agentic-run.txt"
if [ "$rc" -ge 2 ]; then broken=1; fi
printf '(exit %s)\n' "$rc"
run_id=$(tail -n 1 "$out/agentic-run.txt")
if [ "$rc" -lt 2 ] && [ -n "$run_id" ]; then
    step report --run "$run_id" --store "$out/agentic-runs.db" --suite examples/agentic \
        --output "$out/agentic-report.html"
fi

if [ "$broken" -ne 0 ]; then
    echo "main job: a step could not run (exit 2 above)" >&2
    exit 2
fi
echo
echo "main job: done"
