#!/usr/bin/env python3
"""Checks that no source file (C/C++ in lib/, tools/ and include/, and the
ODS .td files) is over 600 lines and no function over 120 (issue #21: small
files with one job, functions that read in one screen). Functions are found
by their braces: a body that opens at the end of a `(...) {` line directly in
a namespace or a class, so member functions defined in a class count as well
as out-of-line ones; lambdas and control blocks are part of their function.
Prints each offender and exits 1.

usage: check_code_size.py ROOT
"""
import glob
import re
import sys

MAX_FILE, MAX_FUNCTION = 600, 120

HEADER = re.compile(r"\)\s*(const)?\s*(noexcept)?\s*(override|final)?\s*(->\s*[\w:<>,\s*&]+)?\{\s*$")
CONTROL = re.compile(r"^\s*(\}\s*)?(if|for|while|switch|else|do|catch|return)\b")
CLASS = re.compile(r"^\s*(template\s*<.*>\s*)?(struct|class|union|enum)\b")


def strip(line):
    """The line without comments, string and character literals."""
    code = re.sub(r"//.*", "", line)
    code = re.sub(r'"([^"\\]|\\.)*"', '""', code)
    return re.sub(r"'([^'\\]|\\.)*'", "''", code)


def kind_of_scope(code, line, outer):
    """What a `{` that ends `code` opens, inside a scope of kind `outer`."""
    if re.match(r"\s*(inline\s+)?namespace\b", code) or re.match(r'^extern "C" \{', line):
        return "namespace"
    if CLASS.match(code):
        return "class"
    if outer in ("top", "namespace", "class") and HEADER.search(code) and \
            not CONTROL.match(code) and "[" not in code.split("(")[0]:
        return "function"
    return "block"


def long_functions(lines):
    """(first line, length, header) of every function over MAX_FUNCTION."""
    scopes = [("top", 0, "")]
    found = []
    for i, line in enumerate(lines):
        code = strip(line)
        for j, ch in enumerate(code):
            if ch == "{":
                opens_line_end = code[j + 1:].strip() == ""
                kind = kind_of_scope(code[:j + 1], line, scopes[-1][0]) if opens_line_end else "block"
                scopes.append((kind, i, line.strip()))
            elif ch == "}" and len(scopes) > 1:
                kind, start, head = scopes.pop()
                if kind == "function" and i - start + 1 > MAX_FUNCTION:
                    found.append((start + 1, i - start + 1, head))
    return found


def main():
    root = sys.argv[1]
    patterns = ("lib/**/*.cpp", "lib/**/*.c", "lib/**/*.h", "tools/**/*.cpp", "tools/**/*.h",
                "include/**/*.h", "include/**/*.td")
    files = sorted(f for pattern in patterns
                   for f in glob.glob(f"{root}/{pattern}", recursive=True))
    problems = []
    for path in files:
        lines = open(path, encoding="utf-8").read().split("\n")
        name = path[len(root) + 1:]
        if len(lines) > MAX_FILE:
            problems.append(f"{name}: {len(lines)} lines (at most {MAX_FILE})")
        if path.endswith((".cpp", ".c", ".h")):
            for start, length, head in long_functions(lines):
                problems.append(f"{name}:{start}: a function of {length} lines "
                                f"(at most {MAX_FUNCTION}): {head[:60]}")
    for p in problems:
        print(p)
    print(f"{len(files)} files checked: " + ("ok" if not problems else f"{len(problems)} too long"))
    sys.exit(1 if problems else 0)


main()
