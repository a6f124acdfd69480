#!/usr/bin/env bash
# Issue #25 item 5: keep lib/Data/Json.cpp or use llvm::json? Builds
# bench/json_lines_vs_llvm.cpp against this checkout's Json.cpp and LLVM 22,
# makes a JSON-lines file of WikiText-2 documents (../shared/data), and
# prints what each parser makes of the inputs where they differ and their
# speed. Usage: bench/json-lines.sh [TEXT_FILE]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
text="${1:-$root/../shared/data/wikitext2-valid.txt}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
g++ -O2 -std=c++17 -I"$root/include" -I/usr/lib/llvm-22/include \
  "$root/bench/json_lines_vs_llvm.cpp" "$root/lib/Data/Json.cpp" "$root/lib/Data/Utf8.cpp" \
  -L/usr/lib/llvm-22/lib -lLLVM -o "$work/json_lines_vs_llvm"
# Documents of 20 lines, each with an id and a nested field, four copies.
python3 - "$text" "$work/docs.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
docs = ["\n".join(lines[i:i + 20]) for i in range(0, len(lines), 20)]
with open(sys.argv[2], "w") as out:
    for i, d in enumerate(docs * 4):
        out.write(json.dumps({"id": i, "text": d, "meta": {"source": "wikitext", "tags": ["a", "b"]}}) + "\n")
PY
"$work/json_lines_vs_llvm" "$work/docs.jsonl"
