"""The modified bytecode as Python source, for the `bytecode_source` log channel.

The `bytecode` channel prints `dis_text` listings; next to them this module gives what a
reader wants first: the same code as Python. depyf's decompiler (an optional dependency,
`pip install 'minidynamo[readable]'`) writes it where it can; where it cannot (depyf 0.20
does not know CPython 3.13's bytecode, nor some 3.12 forms), the text says so in one line
and the listing stays the code to read.
"""

from __future__ import annotations

from types import CodeType


def python_source(code: CodeType) -> str:
    """depyf's source for `code`, or one line saying why there is none."""
    try:
        import depyf
    except ImportError:
        return "# depyf is not installed (pip install 'minidynamo[readable]')\n"
    try:
        source = depyf.decompile(code)
    except Exception as error:  # noqa: BLE001 - depyf's failures are many kinds; none is ours
        # Only the exception's kind: its message quotes instructions in depyf's own form.
        return f"# depyf cannot decompile this code ({type(error).__name__}): see the listing\n"
    return source.rstrip("\n") + "\n"
