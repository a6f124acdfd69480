"""Checks that every numbered constraint in docs/spec.md has a failing-IR test.

For op `mt.foo` constraint Cn, test/Dialect/MT/invalid.mlir must contain a
function named `@foo_c<n>_...` whose chunk expects an error citing
`violates C<n>` (attribute `#mt.foo` likewise: `@foo_c<n>_...`).
Model constraints Mn must be expected in test/Transforms/mt-verify-model.mlir;
the discardable attributes' Dn in invalid.mlir, as `@discardable_d<n>_...`.
"""
import re
import sys

root = sys.argv[1]
spec = open(f"{root}/docs/spec.md").read()
invalid = open(f"{root}/test/Dialect/MT/invalid.mlir").read()
model_tests = open(f"{root}/test/Transforms/mt-verify-model.mlir").read()

# (prefix, n) pairs the spec requires.
required = set()
current = []
common = []  # constraints listed for every op of the "Common to ..." paragraph
for line in spec.splitlines():
    if line.startswith("### "):
        names = re.findall(r"`(#?mt\.\w+)`", line)
        current = [n.split(".", 1)[1] for n in names]
        continue
    if line.startswith("Common to "):
        common = re.findall(r"`mt\.(\w+)`", line)
        current = []
        continue
    m = re.match(r"- C(\d+):", line)
    if m:
        for prefix in (current or common):
            required.add((prefix, int(m.group(1))))
    if line.startswith("## ") and "Collectives" not in line:
        common = []

chunks = invalid.split("// -----")
missing = []
for prefix, n in sorted(required):
    pattern = re.compile(r"@%s_c%d_\w*" % (re.escape(prefix), n))
    ok = any(pattern.search(c) and ("violates C%d:" % n) in c for c in chunks)
    if not ok:
        missing.append(f"{prefix} C{n}")

for n in sorted(set(int(x) for x in re.findall(r"^- D(\d+):", spec, re.M))):
    pattern = re.compile(r"@discardable_d%d_\w*" % n)
    if not any(pattern.search(c) and ("violates D%d:" % n) in c for c in chunks):
        missing.append(f"discardable attributes D{n}")

for n in sorted(set(int(x) for x in re.findall(r"^- M(\d+):", spec, re.M))):
    if f"violates M{n}:" not in model_tests:
        missing.append(f"model M{n}")

# Every op of the generated reference has a spec section and a round-trip test.
reference = open(f"{root}/docs/reference/MTOps.md").read()
roundtrip = open(f"{root}/test/Dialect/MT/ops.mlir").read()
for op in re.findall(r"^### `mt\.(\w+)`", reference, re.M):
    if not re.search(r"^### .*`mt\.%s`" % op, spec, re.M):
        missing.append(f"spec section for mt.{op}")
    if not re.search(r"\bmt\.%s\b" % op, roundtrip):
        missing.append(f"round-trip test of mt.{op}")

if not required:
    sys.exit("no constraints found in docs/spec.md")
if missing:
    sys.exit("constraints without a failing-IR test: " + ", ".join(missing))
print(f"{len(required)} op and attribute constraints covered")
