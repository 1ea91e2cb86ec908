"""Why the translator stopped (DESIGN.md "Safe by default"; seed "Graph Breaks").

`Unsupported` is raised anywhere in the tracer when it meets something it does not
model, naming a reason of `graph_break_registry`. The translator turns it into a graph
break where it can (a call, a branch on a tensor); otherwise `convert_frame` runs the
frame eagerly. `fullgraph=True` raises it to the user with `describe`'s text.

`ObservedException` is the traced program's own exception (a `raise`, `l[3]` out of
range): the translator unwinds to the frame's handler, as CPython would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from minidynamo.graph_break_registry import REGISTRY, UNSUPPORTED

if TYPE_CHECKING:
    from minidynamo.variables.base import VariableTracker


class Unsupported(Exception):
    """The translator cannot trace this construct.

    `user_stack` lists (file, line, function, source line) from the innermost inlined
    frame outwards, filled in as the exception leaves each translator. `break_span`
    (first, last instruction index of the top-level frame) is set where the frame can
    break its graph instead: the instructions then run in CPython; `breakable` False
    says it may not (raised inside the ``__exit__`` of a manager that cannot be entered
    again)."""

    def __init__(self, reason: str, gb_id: str = UNSUPPORTED) -> None:
        super().__init__(reason)
        self.reason = reason
        self.gb_id = gb_id
        self.user_stack: list[tuple[str, int, str, str]] = []
        self.break_span: tuple[int, int] | None = None
        self.breakable = True

    def describe(self) -> str:
        """The reason with its id, explanation, hint and the user's stack."""
        gb = REGISTRY[self.gb_id]
        lines = [
            f"Graph Break Reason: {self.reason} [{gb.gb_id}: {gb.category}]",
            f"  Explanation: {gb.explanation}",
            f"  Hint: {gb.hint}",
            "User code traceback:",
        ]
        for file, line, name, text in reversed(self.user_stack):
            lines += [f'  File "{file}", line {line}, in {name}', f"    {text}"]
        return "\n".join(lines)


class RequiresGradOutput(Unsupported):
    """A graph output requires grad through requires_grad_() on a tensor the graph made:
    the frame is translated again, breaking at that call (`OutputGraph.check_requires_grad`);
    under fullgraph it is the frame's error."""


class BackendCompilerFailed(Exception):
    """The backend raised while compiling a graph (Dynamo's name): an internal failure
    like any other, so the frame runs eagerly, the log naming the backend."""


class RecompileLimitExceeded(Exception):
    """Under `fullgraph=True`, a call needs one more compile of a frame that has
    `config.recompile_limit` cache entries already: raised to the user, since the frame
    may not run uncompiled (Dynamo's FailOnRecompileLimitHit)."""


class SkipFrame(Exception):
    """The frame is left to CPython for good (not an error): its trace recorded no
    operation, so compiling it would only add guards (Dynamo: "no content in function
    call")."""


def unimplemented(reason: str, gb_id: str = UNSUPPORTED) -> NoReturn:
    """Stop tracing because of `reason` (a short sentence), of registry type `gb_id`."""
    raise Unsupported(reason, gb_id)


class ObservedException(Exception):
    """The traced code raised `exception` (an ExceptionVariable); `user_stack` as in
    `Unsupported`, filled in while it leaves translators without a handler."""

    def __init__(self, exception: VariableTracker) -> None:
        super().__init__(repr(exception))
        self.exception = exception
        self.user_stack: list[tuple[str, int, str, str]] = []
