"""Checks that the training loss of an mt-run log falls by at least FACTOR
(first logged loss / mean of the last five)."""
import re
import sys

path, factor = sys.argv[1], float(sys.argv[2])
losses = [float(m.group(1)) for m in re.finditer(r"\| loss ([0-9.]+) \| lr", open(path).read())]
if len(losses) < 10:
    sys.exit(f"only {len(losses)} training losses in {path}")
first, last = losses[0], sum(losses[-5:]) / 5
print(f"first loss {first:.4f}, last five {last:.4f}, ratio {first / last:.2f}")
if first / last < factor:
    sys.exit(f"the loss fell by a factor {first / last:.2f} < {factor}")
