"""Checks a --metrics-file against the log lines of the same run."""
import json
import math
import re
import sys

lines = [json.loads(l) for l in open(sys.argv[1])]
log = open(sys.argv[2]).read()
train = [l for l in lines if l["kind"] == "train"]
valid = [l for l in lines if l["kind"] == "valid"]
logged = [float(x) for x in re.findall(r"iteration +\d+/\d+ \| loss ([0-9.]+)", log)]
same = len(logged) == len(train) and all(
    abs(t["loss"] - x) <= 1e-6 * max(1.0, abs(x)) for t, x in zip(train, logged))
steps = [t["step"] for t in train]
print(f"{len(train)} train lines, steps {steps[0]}-{steps[-1]}, "
      f"losses {'as logged' if same else 'DIFFER'}")
ppl = all(abs(v["perplexity"] - math.exp(v["loss"])) <= 1e-6 * v["perplexity"] for v in valid)
print(f"{len(valid)} valid lines at steps {[v['step'] for v in valid]}, "
      f"perplexity {'= exp(loss)' if ppl else 'WRONG'}")
print("comm fields:", all("exposed_comm_ms" in t and "in_step_comm_ms" in t for t in train))
memory = [t["memory"] for t in train]
print("memory fields:", all(m["peak_rss_mb"] > 0 and m["arena_mb"] > 0 and
                            m["saved_activations_mb"] >= 0 for m in memory))
# A GPU plan's buffers: more than the arena (parameters, gradients, state
# besides); 0 on the CPU.
print("gpu buffers:", "yes" if all(m["gpu_buffers_mb"] > m["arena_mb"] for m in memory)
      else "none" if all(m["gpu_buffers_mb"] == 0 for m in memory) else "WRONG")
