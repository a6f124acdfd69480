#!/usr/bin/env python3
"""Kills mt-run with SIGKILL at random moments while it saves, then resumes.

usage: kill_saves.py PLAN DATA DIR [--kills N] [--seed S] [--max-wait SECONDS] [--async-save]

Each round starts `mt-run PLAN --save DIR --save-interval 1 --save-keep 3`
(with --async-save: writing in the background)
(resuming with --load DIR once DIR has a checkpoint), waits a random time
and kills the process outright. After every kill each iter_* directory in
DIR must verify (mt-ckpt verify: every byte against its checksum), and the
newest must be at least as new as the one before the kill (none lost);
the next round's --load proves it resumes. Goes on until N kills have
landed in the middle of a save (a .partial directory left behind; at most
20 N rounds: the share of a step spent saving varies with the load). Prints one
summary line; exits 1 on the first failure.
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import time


def checkpoints(d):
    if not os.path.isdir(d):
        return []
    return sorted(int(m.group(1)) for n in os.listdir(d)
                  if (m := re.fullmatch(r"iter_(\d+)", n)) and os.path.exists(os.path.join(d, n, "manifest.pb")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plan")
    ap.add_argument("data")
    ap.add_argument("dir")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-wait", type=float, default=0.6)
    ap.add_argument("--async-save", action="store_true", help="save in the background")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    mid_save, newest, k = 0, -1, 0
    while mid_save < args.kills:
        k += 1
        if k > 20 * args.kills:
            print(f"FAIL: only {mid_save} of {k - 1} kills landed in a save")
            sys.exit(1)
        cmd = ["mt-run", args.plan, "--data", args.data, "--save", args.dir, "--save-interval", "1",
               "--save-keep", "3", "--log-interval", "1000000"]
        if checkpoints(args.dir):
            cmd += ["--load", args.dir]
        if args.async_save:
            cmd.append("--async-save")
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # Wait until this run has finished a save of its own (start-up, plan
        # load and resume take longer than max-wait on a loaded machine, and
        # a kill during start-up never lands in a save); from then on it
        # saves every step, so kill at a random moment.
        deadline = time.time() + 120
        while (checkpoints(args.dir)[-1:] or [-1])[0] <= newest and proc.poll() is None \
                and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, args.max_wait))
        if proc.poll() is not None:
            print(f"FAIL round {k}: mt-run exited before the kill: {proc.stderr.read().decode()}")
            sys.exit(1)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if any(n.startswith(".partial.") for n in os.listdir(args.dir)):
            mid_save += 1
        have = checkpoints(args.dir)
        if not have or have[-1] < newest:
            print(f"FAIL round {k}: checkpoints {have} after the kill, {newest} before")
            sys.exit(1)
        newest = have[-1]
        for it in have:
            path = os.path.join(args.dir, f"iter_{it:07d}")
            r = subprocess.run(["mt-ckpt", "verify", path], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL round {k}: {path} does not verify: {r.stderr.strip()}")
                sys.exit(1)
    # The last one resumes too.
    r = subprocess.run(["mt-run", args.plan, "--data", args.data, "--load", args.dir,
                        "--train-iters", str(newest + 1)], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: the newest checkpoint does not resume: {r.stderr.strip()}")
        sys.exit(1)
    print(f"ok: {mid_save} kills in the middle of a save ({k} in all): every checkpoint left "
          f"verified and the newest resumed each time (last at iteration {newest})")


if __name__ == "__main__":
    main()
