"""Checks mtc --search-layout's output against full compiles.

usage: check_search.py SEARCH_OUTPUT -- MTC MODEL [FLAGS...]

Every proposed layout's exact peak (the table's last memory column) is at
most the usable memory the header states; the best layout's flags (the
"best:" line), compiled with FLAGS and --report-memory, give the exact peak
--explain printed, byte for byte.
"""
import re
import subprocess
import sys

UNITS = {"MB": 1e6, "GB": 1e9}


def main():
    out = open(sys.argv[1]).read()
    command = sys.argv[sys.argv.index("--") + 1:]
    usable = re.search(r"([0-9.]+) (MB|GB) usable", out)
    usable = float(usable.group(1)) * UNITS[usable.group(2)]
    rows = re.findall(r"^\s+\d+\s+[0-9.]+\s+\d+\s+[0-9.]+%\s+[0-9.]+\s+[0-9.]+ (?:MB|GB)\s+([0-9.]+) (MB|GB)",
                      out, re.M)
    if not rows:
        sys.exit("no proposed layouts in the output")
    for value, unit in rows:
        if float(value) * UNITS[unit] > usable * 1.0001:
            sys.exit(f"a proposed layout takes {value} {unit}, over the {usable} bytes usable")
    best = re.search(r"^best: (.*)$", out, re.M).group(1).split()
    exact = int(re.search(r"compiled in full \(--report-memory\): peak (\d+) bytes", out).group(1))
    report = subprocess.run(command + best + ["--report-memory"], capture_output=True, text=True)
    if report.returncode != 0:
        sys.exit("the best layout does not compile: " + report.stderr)
    peaks = [int(p) for p in re.findall(r"^\s+peak: (\d+) ", report.stdout, re.M)]
    if max(peaks) != exact:
        sys.exit(f"--report-memory says {max(peaks)} bytes, the search {exact}")
    print(f"{len(rows)} layouts proposed, all within {usable:.0f} bytes; the best's peak "
          f"{exact} bytes is --report-memory's")


if __name__ == "__main__":
    main()
