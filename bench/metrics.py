"""Reads what `mt-run --metrics-file PATH` writes (issue #37 item 5), so the
benches parse one stable format instead of patterns over the log lines.

The file holds one JSON object a line (include/mt/Runtime/Training/MetricsFile.h):
  {"kind": "train", "step", "loss", "lr", "grad_norm", "tokens_per_s",
   "elapsed_s", "skipped", "memory": {"peak_rss_mb", "arena_mb",
   "saved_activations_mb", "gpu_buffers_mb"}, "metrics": {...}}  (+ "loss_scale" with loss
   scaling, "exposed_comm_ms" and "in_step_comm_ms" on several ranks)
  {"kind": "valid", "step", "loss", "perplexity", "metrics": {...}}
A value that is not finite is null; it is left out of every list here, as
the log's "inf"/"nan" never matched the old patterns. mt-run truncates the
file when it starts, so one file is one run: where a bench runs ROUNDS
times it gives each run its own file, and `skip_first` leaves out the first
steps of each file (the warm-up of each run).

As a module (the benches run python3 with PYTHONPATH=bench):
  train_lines(path), valid_lines(path), field(line, key),
  values(paths, key, skip_first=0, from_step=1), columns(paths, keys, ...),
  tokens_per_s(paths, skip_first=0, from_step=1), mean_tokens_per_s(paths,
  skip_first=1), step_mean_tokens_per_s(rates), final_loss(path),
  elapsed_s(path)
From the shell:
  python3 bench/metrics.py tokens-per-s FILE... [--skip N] [--from-step S]
                           [--stat mean|median|step-mean|all]
  python3 bench/metrics.py values KEY FILE... [--skip N] [--from-step S]
  python3 bench/metrics.py final-loss FILE
  python3 bench/metrics.py elapsed FILE
KEY may name a nested field: memory.arena_mb, metrics.lm loss.
Standard library only.
"""
import argparse
import json
import math
import statistics
import sys


def records(path):
    """Every object of the file, in order. A last line without its newline
    (a run killed mid-write) that does not parse is left out."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            if i == len(lines) - 1:  # unterminated: cut off
                break
            raise ValueError(f"{path}:{i + 1}: not a JSON object: {line[:80]!r}") from None
    return out


def train_lines(path):
    return [r for r in records(path) if r.get("kind") == "train"]


def valid_lines(path):
    return [r for r in records(path) if r.get("kind") == "valid"]


def field(record, key):
    """record[key]; "a.b" for a nested field (memory.arena_mb). None when
    absent or not a finite number."""
    if key in record:
        value = record[key]
    else:
        outer, _, inner = key.partition(".")
        value = record.get(outer)
        value = value.get(inner) if inner and isinstance(value, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def _paths(paths):
    return [paths] if isinstance(paths, str) else list(paths)


def columns(paths, keys, skip_first=0, from_step=1):
    """One list per key of `keys`, of the train lines of one file or several
    (one run each), in order: each file's first `skip_first` train lines and
    every step before `from_step` left out, and so is a line where any of
    the keys is null or absent (the lists stay aligned)."""
    out = tuple([] for _ in keys)
    for path in _paths(paths):
        for r in train_lines(path)[skip_first:]:
            row = [field(r, key) for key in keys]
            if r.get("step", 0) >= from_step and None not in row:
                for column, v in zip(out, row):
                    column.append(v)
    return out


def values(paths, key, skip_first=0, from_step=1):
    """`key` of the train lines, as columns() takes them."""
    return columns(paths, (key,), skip_first, from_step)[0]


def tokens_per_s(paths, skip_first=0, from_step=1):
    return values(paths, "tokens_per_s", skip_first, from_step)


def mean_tokens_per_s(paths, skip_first=1):
    """The mean of the per-step rates, each file's first `skip_first` steps
    left out; a file with no more steps than that keeps them all (as
    bench/cpu-throughput.sh does)."""
    rates = []
    for path in _paths(paths):
        all_rates = tokens_per_s(path)
        rates += all_rates[skip_first:] if len(all_rates) > skip_first else all_rates
    return sum(rates) / len(rates)


def step_mean_tokens_per_s(rates):
    """Tokens/s of the mean step time: n / sum(1 / rate) (bench/gpu/mfu.py)."""
    return len(rates) / sum(1.0 / r for r in rates)


def final_loss(path):
    """The last train loss that is a number (a skipped step's may be null)."""
    lines = [r for r in train_lines(path) if field(r, "loss") is not None]
    return lines[-1]["loss"] if lines else None


def elapsed_s(path):
    """Seconds from the start to the last step: the "done: N steps in X s"
    of the log, unrounded."""
    lines = train_lines(path)
    return field(lines[-1], "elapsed_s") if lines else None


def main(argv=None):
    p = argparse.ArgumentParser(description="Reads mt-run --metrics-file JSON lines.")
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("tokens-per-s", help="tokens/s of the train lines")
    t.add_argument("files", nargs="+")
    t.add_argument("--skip", type=int, default=0, help="leave out each file's first N steps")
    t.add_argument("--from-step", type=int, default=1)
    t.add_argument("--stat", choices=("mean", "median", "step-mean", "all"), default="mean")
    v = sub.add_parser("values", help="one field of the train lines, one a line")
    v.add_argument("key")
    v.add_argument("files", nargs="+")
    v.add_argument("--skip", type=int, default=0)
    v.add_argument("--from-step", type=int, default=1)
    sub.add_parser("final-loss", help="the last train loss").add_argument("file")
    sub.add_parser("elapsed", help="seconds to the last step").add_argument("file")
    a = p.parse_args(argv)
    if a.command == "tokens-per-s":
        rates = tokens_per_s(a.files, a.skip, a.from_step)
        if not rates:
            sys.exit("no tokens/s in " + " ".join(a.files))
        if a.stat == "all":
            print("\n".join(repr(r) for r in rates))
        else:
            stat = {"mean": statistics.fmean, "median": statistics.median,
                    "step-mean": step_mean_tokens_per_s}[a.stat]
            print(f"{stat(rates):.1f}")
    elif a.command == "values":
        for x in values(a.files, a.key, a.skip, a.from_step):
            print(repr(x))
    elif a.command == "final-loss":
        print(final_loss(a.file))
    else:
        print(elapsed_s(a.file))


if __name__ == "__main__":
    main()
