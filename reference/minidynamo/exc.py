"""Why a frame could not be converted (DESIGN.md "Safe by default"; seed "Graph Breaks").

`Unsupported` is raised anywhere in the tracer when it meets something it does not
model. `convert_frame` catches it, logs the reason with the user's source line and runs
the frame eagerly; a later issue turns most of these into graph breaks.
"""

from __future__ import annotations

from typing import NoReturn


class Unsupported(Exception):
    """The translator cannot trace this construct; the frame runs eagerly instead.

    `user_stack` lists (file, line, function, source line) from the innermost inlined
    frame outwards, filled in as the exception leaves each translator."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.user_stack: list[tuple[str, int, str, str]] = []


def unimplemented(reason: str) -> NoReturn:
    """Stop tracing this frame because of `reason` (a short, human-readable sentence)."""
    raise Unsupported(reason)
