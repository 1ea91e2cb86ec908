"""The command line: `python -m minidynamo demo` runs the seed's examples and prints what
they log; `python -m minidynamo explain script.py [args]` runs a user's script and prints
what it compiled (graphs, ops, graph breaks, guards), `--logs` naming channels to print
on the way, as MINIDYNAMO_LOGS does."""

from __future__ import annotations

import argparse
import runpy
import sys


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="python -m minidynamo")
    commands = main.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="print the seed's examples and their logs")
    explain = commands.add_parser("explain", help="run a script; report what it compiled")
    explain.add_argument("--logs", default="", help="log channels, e.g. graph_code,guards")
    explain.add_argument("script", help="the Python file to run")
    explain.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return main


def explain_script(script: str, args: list[str], logs: str) -> None:
    from minidynamo import events, set_logs
    from minidynamo.explain_report import Recorder

    set_logs(logs)
    saved_argv = sys.argv
    sys.argv = [script, *args]
    try:
        with events.listening(Recorder()) as recorder:
            runpy.run_path(script, run_name="__main__")
    finally:
        sys.argv = saved_argv
    print(recorder.output(), end="")


def main(argv: list[str]) -> int:
    options = parser().parse_args(argv)
    if options.command == "demo":
        from minidynamo import demo

        demo.main()
    else:
        explain_script(options.script, options.args, options.logs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
