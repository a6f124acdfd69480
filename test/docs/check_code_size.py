#!/usr/bin/env python3
"""Checks that no source file in lib/ or tools/ is over 600 lines and no
function over 120 (issue #21: small files with one job, functions that read
in one screen). Functions are found by their braces at namespace level, the
way clang-format lays them out; prints each offender and exits 1.

usage: check_code_size.py ROOT
"""
import glob
import re
import sys

MAX_FILE, MAX_FUNCTION = 600, 120

root = sys.argv[1]
files = sorted(f for pattern in ("lib/**/*.cpp", "lib/**/*.c", "lib/**/*.h", "tools/**/*.cpp",
                                 "tools/**/*.h", "include/**/*.h")
               for f in glob.glob(f"{root}/{pattern}", recursive=True))
problems = []
for path in files:
    lines = open(path, encoding="utf-8").read().split("\n")
    name = path[len(root) + 1:]
    if len(lines) > MAX_FILE:
        problems.append(f"{name}: {len(lines)} lines (at most {MAX_FILE})")
    if not path.endswith((".cpp", ".c")):
        continue
    depth, start, head = 0, None, ""
    for i, line in enumerate(lines):
        code = re.sub(r"//.*", "", line)
        code = re.sub(r'"([^"\\]|\\.)*"', '""', code)
        code = re.sub(r"'([^'\\]|\\.)*'", "''", code)
        if re.match(r"\s*namespace\b.*\{", code) or re.match(r'^extern "C" \{', line) or \
           re.match(r"^\}\s*//\s*(namespace|end)", line):
            continue
        if depth == 0 and re.search(r"\)\s*(const)?\s*(override)?\s*\{\s*$", code) and \
           not re.match(r"\s*(struct|class|enum)\b", code):
            start, head = i, line.strip()
        depth += code.count("{") - code.count("}")
        if depth == 0 and start is not None:
            if i - start + 1 > MAX_FUNCTION:
                problems.append(f"{name}:{start + 1}: a function of {i - start + 1} lines "
                                f"(at most {MAX_FUNCTION}): {head[:60]}")
            start = None
for p in problems:
    print(p)
print(f"{len(files)} files checked: " + ("ok" if not problems else f"{len(problems)} too long"))
sys.exit(1 if problems else 0)
