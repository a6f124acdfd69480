"""Reads mt-run --profile's per-step line and fails when a step launches
more kernels or GEMMs than allowed: the ceilings only go down (issue #38)."""
import re
import sys

max_launches, max_gemms = int(sys.argv[1]), int(sys.argv[2])
text = sys.stdin.read()
m = re.search(r"generated kernels [0-9.]+ ms \(([0-9]+) launches\) \+ GEMMs [0-9.]+ ms "
              r"\(([0-9]+) calls\)", text)
if not m:
    sys.exit("no per-step line in the profile")
launches, gemms = int(m.group(1)), int(m.group(2))
print(f"{launches} launches and {gemms} GEMM calls a step")
if launches > max_launches or gemms > max_gemms:
    sys.exit(f"more than the ceiling of {max_launches} launches and {max_gemms} GEMM calls: "
             "a change added kernels to the step")
print("within the ceiling")
