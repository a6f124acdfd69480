#!/bin/sh
# signal_run.sh SIGNAL LOG CMD...: runs CMD in the background with its output
# in LOG, sends SIGNAL once LOG shows iteration 2, and prints CMD's exit
# status ("exit=N"). Gives up (exit=timeout) after 120 s without that line.
sig="$1"; log="$2"; shift 2
"$@" > "$log" 2>&1 &
pid=$!
tries=0
until grep -q "^iteration *2/" "$log" 2>/dev/null; do
  tries=$((tries + 1))
  if [ "$tries" -gt 1200 ] || ! kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid" 2>/dev/null
    echo "exit=timeout"
    exit 1
  fi
  sleep 0.1
done
kill -s "$sig" "$pid"
wait "$pid"
echo "exit=$?"
