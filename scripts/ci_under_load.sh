#!/usr/bin/env bash
# CI under load: `bash .ci/run` N times in a row, each in a fresh clone of one commit,
# while a CPU-bound process keeps every core busy; prints pass/fail and wall time of
# each run, then one JSON line. Exits 1 if any run failed. (docs/operations.md)
#
#   scripts/ci_under_load.sh [options] [COMMIT]        (COMMIT: default HEAD)
#
#   -n N            runs, one after another (default 3)
#   --dir PREFIX    clone into PREFIX1..PREFIXN (default: ci-load beside this checkout,
#                   e.g. /work/ci-load1). The clones' parent must hold `shared/`
#                   (the reference graphs the tests read from ../shared).
#   --select ARGS   a pytest selection for a smoke test, passed as PYTEST_ADDOPTS
#                   (e.g. --select "tests/test_config.py -x"); default: the whole suite
#   --run-timeout S one run's limit in seconds (default 5400)
#   --no-load       no CPU-bound process (a baseline to compare with)
#
# The load: one Python process per core, spinning on arithmetic. It opens no socket
# and no file, ends by itself at its deadline (the runs' total time limit), and is
# killed by its process-group id as soon as the runs are over, or on Ctrl-C.
set -euo pipefail

runs=3
prefix=""
select=""
run_timeout=5400
load=1
commit=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    --dir) prefix="$2"; shift 2 ;;
    --select) select="$2"; shift 2 ;;
    --run-timeout) run_timeout="$2"; shift 2 ;;
    --no-load) load=0; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "ci_under_load: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) commit="$1"; shift ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "ci_under_load: -n wants a positive number, not '$runs'" >&2; exit 2 ;; esac
case "$run_timeout" in ''|*[!0-9]*|0) echo "ci_under_load: --run-timeout wants seconds, not '$run_timeout'" >&2; exit 2 ;; esac

repo="$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)"
commit="$(git -C "$repo" rev-parse --verify "${commit:-HEAD}^{commit}")" \
  || { echo "ci_under_load: not a commit of $repo: ${commit:-HEAD}" >&2; exit 2; }
prefix="${prefix:-$(dirname "$repo")/ci-load}"
parent="$(dirname "$prefix")"
if [ ! -d "$parent/shared" ]; then
  echo "ci_under_load: $parent/shared not found: the clones must sit beside shared/ (--dir)" >&2
  exit 2
fi

cores="$(nproc)"
hog_pid=""
stop_load() {
  if [ -n "$hog_pid" ]; then
    kill -- "-$hog_pid" 2>/dev/null || true  # the whole group: the spinners too
    wait "$hog_pid" 2>/dev/null || true
    hog_pid=""
  fi
}
trap stop_load EXIT
trap 'exit 130' INT TERM

if [ "$load" = 1 ]; then
  # Its own process group (setsid), so one kill by its id ends every spinner; and a
  # deadline of its own, so it cannot outlive the runs even if this script is killed.
  deadline_s=$((runs * run_timeout + 60))
  setsid python3 -c '
import multiprocessing as mp, sys, time

def spin(deadline: float) -> None:
    x = 1
    while time.monotonic() < deadline:
        for _ in range(100_000):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF

if __name__ == "__main__":
    n, seconds = int(sys.argv[1]), float(sys.argv[2])
    deadline = time.monotonic() + seconds
    procs = [mp.Process(target=spin, args=(deadline,)) for _ in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
' "$cores" "$deadline_s" &
  hog_pid=$!
  echo "load: $cores CPU-bound processes (group $hog_pid), at most ${deadline_s}s" >&2
fi

rows="$(mktemp)"
failed=0
for i in $(seq 1 "$runs"); do
  dir="$prefix$i"
  if [ -e "$dir" ]; then
    # Only a clone this script made is removed (it leaves a marker in it).
    [ -f "$dir/.ci-under-load" ] || { echo "ci_under_load: $dir exists and is not ours" >&2; exit 2; }
    rm -rf "$dir"
  fi
  git clone --quiet --no-checkout "$repo" "$dir"
  git -C "$dir" checkout --quiet --detach "$commit"
  touch "$dir/.ci-under-load"
  log="$dir.log"
  echo "run $i/$runs: $dir at ${commit:0:12}, log $log" >&2
  t0="$(date +%s.%N)"
  set +e
  # timeout signals its whole process group (pytest and the servers it started).
  ( cd "$dir" && PYTEST_ADDOPTS="$select" timeout --kill-after=30 "$run_timeout" bash .ci/run ) \
    >"$log" 2>&1
  rc=$?
  set -e
  t1="$(date +%s.%N)"
  # pytest's last line: "== 580 passed in 884.1s ==" (or without the rules under -q).
  summary="$(grep -E '(passed|failed|errors?|no tests ran).* in [0-9.]+s' "$log" | tail -1 \
    | sed 's/=//g; s/^ *//; s/ *$//' || true)"
  [ "$rc" = 0 ] || failed=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$rc" "$t0" "$t1" "$summary" "$log" >>"$rows"
  echo "run $i: exit $rc: ${summary:-no pytest summary}" >&2
done
stop_load

python3 - "$rows" "$commit" "$((load * cores))" "$select" <<'PY'
import json, sys
rows_path, commit, load, select = sys.argv[1:5]
runs = []
for line in open(rows_path):
    i, rc, t0, t1, summary, log = line.rstrip("\n").split("\t")
    runs.append({
        "run": int(i), "verdict": "pass" if rc == "0" else "fail", "exit": int(rc),
        "wall_s": round(float(t1) - float(t0), 1), "pytest": summary, "log": log,
    })
loadavg = " ".join(open("/proc/loadavg").read().split()[:3])
print(json.dumps({"commit": commit, "load_processes": int(load), "select": select,
                  "loadavg_end": loadavg, "runs": runs}))
PY
rm -f "$rows"
exit "$failed"
