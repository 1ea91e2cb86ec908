"""Opcode handlers of the InstructionTranslator: one function per opcode, registered
with the CPython versions where that opcode exists (STYLE.md: versions as data).

``@handler("CALL", since=(3, 11), until=(3, 12))`` registers a handler only when the
running Python is within the (inclusive) range; the families live in the submodules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase

Handler = Callable[["InstructionTranslatorBase", "Instruction"], None]

HANDLERS: dict[str, Handler] = {}

_RUNNING = sys.version_info[:2]


def handler(
    opname: str, *, since: tuple[int, int] = (3, 10), until: tuple[int, int] = (3, 13)
) -> Callable[[Handler], Handler]:
    """Register `fn` as the handler of `opname` on CPython `since`..`until`."""

    def register(fn: Handler) -> Handler:
        if since <= _RUNNING <= until:
            if opname in HANDLERS:
                raise AssertionError(f"two handlers for {opname} on {_RUNNING}")
            HANDLERS[opname] = fn
        return fn

    return register


def load_all() -> dict[str, Handler]:
    """Import every handler family (registration happens at import)."""
    from minidynamo.opcodes import (  # noqa: F401
        build,
        calls,
        control_flow,
        exceptions,
        load_store,
        match,
        operators,
        stack,
    )

    return HANDLERS
