"""Long differential-fuzzing campaigns (tests/fuzz): random programs run eagerly and
compiled by minidynamo, compared call by call; a summary per feature class.

Programs are drawn from seeds `--start` .. `--start + --n - 1` (a plain random.Random per
seed, no shrinking: rerun one seed under tests/fuzz to see it, or paste the case printed).
Run from the repository root:

    PYTHONPATH=reference:tests/fuzz python benchmarks/fuzz.py --n 100000 [--start 0] [--show 5]
"""

from __future__ import annotations

import argparse
import collections
import time

from fuzz_differential import check
from fuzz_programs import FEATURES, RandomChooser, build_program
from minidynamo import convert_frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="how many programs")
    parser.add_argument("--start", type=int, default=0, help="the first seed")
    parser.add_argument("--show", type=int, default=5, help="failing programs to print")
    options = parser.parse_args()
    runs: collections.Counter[str] = collections.Counter()
    failures: collections.Counter[str] = collections.Counter()
    fell_back: collections.Counter[str] = collections.Counter()
    shown, failed, started = 0, 0, time.perf_counter()
    for number in range(options.start, options.start + options.n):
        program = build_program(RandomChooser(number))
        difference = check(program)
        failed += difference is not None
        for feature in program.features:
            runs[feature] += 1
            failures[feature] += difference is not None
            fell_back[feature] += convert_frame.counters["frames_failed"] > 0
        if difference is not None and shown < options.show:
            shown += 1
            print(f"--- seed {number}: {difference}\n")
    elapsed = time.perf_counter() - started
    print(f"{options.n} programs, {failed} with a difference, {elapsed / options.n:.3f} s each")
    print(f"{'feature':16} {'programs':>9} {'differ':>7} {'fell back':>10}")
    for feature in FEATURES:
        print(f"{feature:16} {runs[feature]:9} {failures[feature]:7} {fell_back[feature]:10}")


if __name__ == "__main__":
    main()
