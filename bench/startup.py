"""Start-up cost: `import skillshelf` (target < 100 ms) and `skillshelf --help`, best of N runs.

python bench/startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time


def _import_ms() -> float:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import skillshelf"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    ).stderr
    cumulative = [int(m.group(1)) for m in re.finditer(r"\|\s*(\d+) \| skillshelf$", out, re.M)]
    return max(cumulative) / 1000


def _wall_ms(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, capture_output=True, check=True)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    imports = min(_import_ms() for _ in range(runs))
    baseline = min(_wall_ms([sys.executable, "-c", "pass"]) for _ in range(runs))
    helps = min(_wall_ms([sys.executable, "-m", "skillshelf.cli.main", "--help"]) for _ in range(runs))
    print(f"{'measure':<42}{'best of ' + str(runs):>14}")
    print(f"{'import skillshelf (-X importtime)':<42}{imports:>11.1f} ms   target < 100 ms")
    print(f"{'python -c pass (interpreter alone)':<42}{baseline:>11.1f} ms")
    print(f"{'skillshelf --help (whole process)':<42}{helps:>11.1f} ms")


if __name__ == "__main__":
    main()
