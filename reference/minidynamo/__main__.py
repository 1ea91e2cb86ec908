"""`python -m minidynamo demo`: run the seed's examples and print what they log."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if argv[:1] != ["demo"]:
        print("usage: python -m minidynamo demo", file=sys.stderr)
        return 2
    from minidynamo import demo

    demo.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
