#!/bin/sh
# during_run.sh ACTION LOG CMD...: runs CMD in the background with its output
# in LOG; once LOG shows iteration 2, runs the shell command ACTION (with
# $PID, CMD's process id) and prints CMD's exit status as "exit=N". Gives up
# (exit=timeout) after 120 s without that line.
action="$1"; log="$2"; shift 2
"$@" > "$log" 2>&1 &
PID=$!
export PID
tries=0
until grep -q "^iteration *2/" "$log" 2>/dev/null; do
  tries=$((tries + 1))
  if [ "$tries" -gt 1200 ] || ! kill -0 "$PID" 2>/dev/null; then
    kill -9 "$PID" 2>/dev/null
    echo "exit=timeout"
    exit 1
  fi
  sleep 0.1
done
sh -c "$action"
wait "$PID"
echo "exit=$?"
