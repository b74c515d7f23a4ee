#!/usr/bin/env bash
# Run README's test command N times (default 5) while two CPU-burning
# processes run alongside, as on a busy 2-core CI box; print pass/fail per
# run and the total.  The burners are always killed on exit (trap).
#
#   benchmarks/stress_tests.sh        # 5 runs
#   benchmarks/stress_tests.sh 2      # 2 runs
#
# Run it from an environment where the project is installed (the command's
# own `pip install -e ".[test]"` step then only checks it).  Exit code 0 only
# when every run passed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cmd=$(awk '/<!-- test-command -->/{getline; getline; print; exit}' README.md)
if [ -z "$cmd" ]; then echo "README.md has no test command" >&2; exit 1; fi

burners=()
cleanup() {
    for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null; done
    wait "${burners[@]}" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in 1 2; do
    python3 -c 'while True: pass' &
    burners+=("$!")
done
echo "stress: 2 CPU burners (pids ${burners[*]}); running $runs x: $cmd"

passed=0
for i in $(seq 1 "$runs"); do
    log=$(mktemp)
    start=$(date +%s)
    bash -c "$cmd" >"$log" 2>&1
    status=$?
    took=$(( $(date +%s) - start ))
    summary=$(grep -E '^=*\s*[0-9]+ (passed|failed|error)' "$log" | tail -n 1)
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        echo "run $i/$runs: PASS in ${took}s: $summary"
    else
        echo "run $i/$runs: FAIL (exit $status) in ${took}s: $summary"
        grep -E '^(FAILED|ERROR) ' "$log" | head -n 20
        cp "$log" "stress-run-$i.log" && echo "  full log: stress-run-$i.log"
    fi
    rm -f "$log"
done
echo "stress: $passed/$runs runs passed"
[ "$passed" -eq "$runs" ]
