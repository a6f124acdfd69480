#!/usr/bin/env bash
# Writes the demo's corpus to $1: the license texts of /usr/share/common-licenses
# (package base-files, on every Debian machine; about 240 KB of English), one
# after another with a blank line between, links skipped (they repeat texts).
set -euo pipefail
: > "$1"
for f in /usr/share/common-licenses/*; do
  [ -L "$f" ] || { cat "$f"; printf '\n\n'; } >> "$1"
done
