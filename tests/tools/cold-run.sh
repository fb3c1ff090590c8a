#!/usr/bin/env bash
# cold-run.sh [-n RUNS] [warm-mod|cold-mod]: time a first `make run` on this
# machine, from the command to the first answer to the AWS CLI, with an
# empty Go build cache (a fresh GOCACHE per run), and with cold-mod an empty
# module cache too (a fresh GOMODCACHE: every module through the proxy).
# Prints each run (with the build's CPU time and the load average) and the
# min and median. It rebuilds bin/dynamopg; the server runs on a free port
# against a throwaway SQLite file. Needs curl and the aws CLI.
set -u
runs=3
if [ "${1:-}" = -n ]; then runs=$2; shift 2; fi
mode=${1:-warm-mod}
cd "$(dirname "$0")/../.."
times=()
for ((i = 1; i <= runs; i++)); do
  tmp=$(mktemp -d)
  port=$((20000 + RANDOM % 20000))
  (
    export GOCACHE=$tmp/gocache GOFLAGS="-modcacherw ${GOFLAGS:-}"
    [ "$mode" = cold-mod ] && export GOMODCACHE=$tmp/gomod
    export DYNAMOPG_LISTEN=127.0.0.1:$port DYNAMOPG_DB=sqlite:$tmp/run.db
    rm -f bin/dynamopg
    exec setsid make run >"$tmp/make.log" 2>&1
  ) &
  pid=$!
  start=$(date +%s.%N)
  # curl until the port answers (an AWS CLI call costs about a second of
  # CPU, which would slow the build it waits for), then the AWS CLI.
  until curl -sf -o /dev/null "http://127.0.0.1:$port/health"; do
    kill -0 $pid 2>/dev/null || { echo "make run exited:"; cat "$tmp/make.log"; exit 1; }
    sleep 0.2
  done
  until AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_DEFAULT_REGION=us-east-1 \
    aws dynamodb list-tables --endpoint-url "http://127.0.0.1:$port" >/dev/null 2>&1; do
    kill -0 $pid 2>/dev/null || { echo "make run exited:"; cat "$tmp/make.log"; exit 1; }
    sleep 0.2
  done
  end=$(date +%s.%N)
  st=($(cat /proc/$pid/stat 2>/dev/null))
  cpu=$(echo "scale=1; (${st[15]:-0} + ${st[16]:-0}) / $(getconf CLK_TCK)" | bc)
  kill -TERM -- -$pid 2>/dev/null
  wait $pid 2>/dev/null
  t=$(echo "$end - $start" | bc)
  times+=("$t")
  printf '%s run %d: %.1f s to the first AWS CLI answer (build CPU %s s; load %s)\n' \
    "$mode" "$i" "$t" "$cpu" "$(cut -d' ' -f1-3 /proc/loadavg)"
  chmod -R u+w "$tmp" 2>/dev/null
  rm -rf "$tmp"
done
printf '%s\n' "${times[@]}" | sort -n | awk -v m="$mode" '{ a[NR] = $1 }
  END { printf "%s: min %.1f s, median %.1f s of %d runs\n", m, a[1], a[int((NR + 1) / 2)], NR }'
