"""Per-code-object state kept by identity, dying with its code object (DESIGN.md:
"Cache entries live with their code object"), for convert_frame's cache and resume's
continuations.

Code objects compare and hash by value, so a dict or a WeakKeyDictionary would let two
functions with equal code share cache entries and recompile budgets: `CodeTable` keys by
identity and holds only a weak reference, whose callback drops the row when the code dies.
A table lives in the frame's globals dict (`in_globals`), not in a module of ours: a cache
entry holds those globals (its replacement function runs in them), and they often hold
the function whose code it is; a cycle through our own module would keep it alive forever,
a cycle through the globals dict is collected with it.
"""

from __future__ import annotations

import threading
import types
import weakref
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

V = TypeVar("V")

# A code object's key: an identity hash (its address, rotated: distinct for live objects),
# not `id()`, which raises the `builtins.id` audit event, several times slower once any
# audit hook is installed (torch.compile's backends install one), and this runs per call.
_identity = object.__hash__


class _CodeRef(weakref.ref):
    """A weak reference to a code object that remembers its row's key."""

    key: int


class CodeTable(Generic[V]):
    """A mapping from code objects, by identity, to values; rows die with their code."""

    def __init__(self) -> None:
        self._rows: dict[int, tuple[_CodeRef, V]] = {}
        # Reentrant: a collection run while the lock is held may call `_forget`.
        self._lock = threading.RLock()

    def get(self, code: types.CodeType) -> V | None:
        row = self._rows.get(_identity(code))
        return row[1] if row is not None and row[0]() is code else None

    def setdefault(self, code: types.CodeType, make: Callable[[], V]) -> V:
        with self._lock:
            row = self._rows.get(_identity(code))
            if row is None or row[0]() is not code:
                ref = _CodeRef(code, self._forget)
                ref.key = _identity(code)
                row = (ref, make())
                self._rows[_identity(code)] = row
            return row[1]

    def _forget(self, ref: _CodeRef) -> None:
        with self._lock:
            row = self._rows.get(ref.key)
            if row is not None and row[0] is ref:
                del self._rows[ref.key]

    def items(self) -> Iterator[tuple[types.CodeType, V]]:
        """The rows whose code is alive, oldest first."""
        for ref, value in list(self._rows.values()):
            code = ref()
            if code is not None:
                yield code, value

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()

    def __len__(self) -> int:
        return len(self._rows)


# Every table made by `in_globals`, for `reset()` and for tests that count rows.
_live: dict[str, weakref.WeakSet[CodeTable]] = {}
_live_lock = threading.Lock()


def in_globals(f_globals: dict, name: str) -> CodeTable:
    """The table called `name` of the functions running in `f_globals`."""
    key = f"__minidynamo_{name}__"
    table = f_globals.get(key)
    if table is None:
        with _live_lock:
            table = f_globals.setdefault(key, CodeTable())
            _live.setdefault(name, weakref.WeakSet()).add(table)
    return table


def live_tables(name: str) -> list[CodeTable]:
    """The tables called `name` whose globals are still alive."""
    with _live_lock:
        return list(_live.get(name, ()))
