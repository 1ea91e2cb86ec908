"""The frame hook's callback: per-frame policy (DESIGN.md data flow, seed "PEP 523").

For each new frame: skip library code; run the guards of each cache entry of the code
object, most recently used first as Dynamo's cache, and return the first entry whose
guards pass (moving it to the front); otherwise translate the frame
(`InstructionTranslator`), compile its graph, and add a cache entry. When translation
fails, the frame runs eagerly; past `config.recompile_limit` entries, a call that misses
the cache runs uncompiled, and so do the frames it calls (`past_recompile_limit`).
"""

from __future__ import annotations

import builtins
import collections
import dataclasses
import inspect
import logging
import os
import time
import traceback
import types
from collections.abc import Callable

from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

from minidynamo import code_table, config, eval_frame, events, logs, resume, trace_rules
from minidynamo.bytecode import dis_text, python_source
from minidynamo.code_table import CodeTable
from minidynamo.codegen import modified_code
from minidynamo.exc import (
    BackendCompilerFailed,
    RecompileLimitExceeded,
    RequiresGradOutput,
    SkipFrame,
    Unsupported,
)
from minidynamo.guards import CheckFunction
from minidynamo.output_graph import OutputGraph
from minidynamo.shapes import FrameShapeState, ShapePolicy
from minidynamo.symbolic_convert import InstructionTranslator

log = logging.getLogger("minidynamo")
guards_log = logs.get_logger("guards")
recompiles_log = logs.get_logger("recompiles")
bytecode_log = logs.get_logger("bytecode")
bytecode_source_log = logs.get_logger("bytecode_source")
graph_breaks_log = logs.get_logger("graph_breaks")
dynamic_log = logs.get_logger("dynamic")
trace_log = logs.get_logger("trace")

# Frames converted (`frames_compiled`), left to CPython because their trace recorded no
# operation (`frames_empty`), run eagerly after a failed conversion (`frames_failed`).
counters: collections.Counter[str] = collections.Counter()


@dataclasses.dataclass
class CacheEntry:
    """One compiled version of a code object (DESIGN.md: GuardedCode)."""

    check_fn: CheckFunction
    replacement: types.FunctionType
    code: types.CodeType

    def replacement_for(self, closure: tuple | None) -> Callable:
        """The modified code run with the calling frame's own closure cells: a closure
        made anew per call (same code, other cells) hits this entry with its values."""
        own = self.replacement.__closure__
        if closure is None or own is None or _same_cells(closure, own):
            return self.replacement
        fn = self.replacement
        return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, None, closure)


def _same_cells(a: tuple, b: tuple) -> bool:
    return a is b or (len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True)))


@dataclasses.dataclass
class CodeState:
    """What convert_frame keeps about one code object: its cache entries, whether it
    was warned about the recompile limit, and automatic dynamic's memory of the sizes
    and ints its compiles saw.

    `entries` is in Dynamo's cache order, most recently used first: a new entry goes to
    the front, and so does an entry a call hits. The order decides which entry runs when
    several guards pass (a static entry and a later dynamic one), and so which frames the
    entry's graph breaks call, and the order of the failures a recompile lists."""

    entries: list[CacheEntry] = dataclasses.field(default_factory=list)
    warned_limit: bool = False
    frame_state: FrameShapeState = dataclasses.field(default_factory=FrameShapeState)


# Code objects we skip-marked in C (`eval_frame.skip`), to unmark them on `reset()`. It
# holds nothing but weak references, so it can live here (code_table.py).
_skipped_by_us: CodeTable[bool] = CodeTable()


def _states(f_globals: dict) -> CodeTable[CodeState]:
    return code_table.in_globals(f_globals, "frames")


def _all_states() -> list[tuple[types.CodeType, CodeState]]:
    return [row for table in code_table.live_tables("frames") for row in table.items()]


def reset() -> None:
    """Forget every cache entry and every skip decision."""
    for code, _skipped in _skipped_by_us.items():
        eval_frame.skip(code, False)
    _skipped_by_us.clear()
    for table in code_table.live_tables("frames"):
        table.clear()
    resume.reset()
    counters.clear()


def cache_entries(code: types.CodeType) -> list[CacheEntry]:
    """The cache entries of `code`, most recently used first."""
    return [entry for other, state in _all_states() if other is code for entry in state.entries]


def cached_codes() -> list[types.CodeType]:
    """The live code objects with cache entries, oldest first."""
    return [code for code, state in _all_states() if state.entries]


def table_rows() -> int:
    """How many code objects convert_frame and resume keep state for."""
    return len(_all_states()) + len(_skipped_by_us) + resume.table_rows()


def _skip(code: types.CodeType) -> None:
    eval_frame.skip(code)
    _skipped_by_us.setdefault(code, bool)


def frame_locals(code: types.CodeType, args: tuple, closure: tuple | None) -> dict:
    """``L`` for the guards: the arguments, and the closure's cell contents."""
    f_locals = dict(zip(code.co_varnames, args, strict=False))
    for name, cell in zip(code.co_freevars, closure or (), strict=False):
        try:
            f_locals[name] = cell.cell_contents
        except ValueError:  # an empty cell: guards on it fail
            pass
    return f_locals


def flat_arguments(fn: types.FunctionType, args: tuple, kwargs: dict) -> tuple:
    """The values the frame hook would pass for this call: parameters in co_varnames
    order, defaults applied, then the ``*args`` tuple and the ``**kwargs`` dict. The
    signature is the code's own, not that of a function a decorator's ``__wrapped__``
    names (``functools.wraps``)."""
    code = fn.__code__
    if not kwargs and len(args) == code.co_argcount == eval_frame.param_count(code):
        return args  # the common case, without the cost of inspect.signature
    bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments[name] for name in code.co_varnames[: eval_frame.param_count(code)])


def _raising(error: Exception) -> Callable:
    """A replacement for the frame that raises `error` in the user's call."""

    def raise_error(*args: object) -> None:
        raise error

    return raise_error


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def failed_stage(error: BaseException) -> str:
    """The stage that raised `error`, for the log: `backend`, or the innermost module of
    ours in its traceback (`builder`, `opcodes.calls`, `guards`, `codegen`, `resume` ...)."""
    if isinstance(error, BackendCompilerFailed):
        return "backend"
    stage = "convert_frame"
    for frame, _line in traceback.walk_tb(error.__traceback__):
        filename = os.path.abspath(frame.f_code.co_filename)
        if filename.startswith(_PACKAGE_DIR):
            stage = os.path.splitext(filename[len(_PACKAGE_DIR) :])[0].replace(os.sep, ".")
    return stage


def _title(code: types.CodeType) -> str:
    """How bytecode logs name a code object: `fn script.py line 3`."""
    return f"{code.co_name} {os.path.basename(code.co_filename)} line {code.co_firstlineno}"


def where(code: types.CodeType) -> str:
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"


class ConvertFrame:
    """The callback installed by `minidynamo.compile`, holding its backend and options."""

    def __init__(
        self, backend: Callable, *, fullgraph: bool = False, dynamic: bool | None = None
    ) -> None:
        self.backend = backend
        self.fullgraph = fullgraph
        self.dynamic = dynamic

    def __call__(
        self,
        code: types.CodeType,
        args: tuple,
        f_globals: dict,
        f_builtins: dict,
        closure: tuple | None,
        entry: bool = False,
    ) -> Callable | None:
        # The warm path, inline (it runs on every call): the first cache entry whose
        # check passes, moved to the front. The check functions catch their own errors.
        state = _states(f_globals).get(code)
        if state is not None:
            entries = state.entries
            for i, cached in enumerate(entries):
                if cached.check_fn.check(args, f_globals, closure):
                    if i:
                        entries.insert(0, entries.pop(i))
                    if closure is None:
                        return cached.replacement
                    return cached.replacement_for(closure)
        try:
            return self.lookup_or_compile(code, args, f_globals, f_builtins, closure, entry)
        except ConstraintViolationError as e:  # a user error (mark_dynamic), not ours
            return _raising(e)
        except Exception as e:  # never raise into CPython: run the frame eagerly instead
            log.warning(
                "minidynamo: internal error in %s while converting %s (%s), running it "
                "eagerly: %s: %s%s",
                failed_stage(e),
                code.co_name,
                where(code),
                type(e).__name__,
                e,
                "\n" + traceback.format_exc() if config.verbose else "",
            )
            events.frame_failed(code, e)
            return None

    def call_entry(self, fn: types.FunctionType, args: tuple, kwargs: dict) -> object:
        """Call `fn` converting its frame even if it is library code (the `forward` of
        a compiled `nn.Linear`), as the hook would call the callback for it. Arguments
        that do not bind to `fn` (a user error) are left for `fn` itself to refuse."""
        try:
            flat = flat_arguments(fn, args, kwargs)
        except Exception as e:  # eager raises the user's error, if there is one
            log.warning(
                "minidynamo: cannot bind the arguments of %s, running it eagerly: %s: %s",
                fn.__qualname__,
                type(e).__name__,
                e,
            )
            return fn(*args, **kwargs)
        f_builtins = fn.__globals__.get("__builtins__", builtins.__dict__)
        if isinstance(f_builtins, types.ModuleType):
            f_builtins = f_builtins.__dict__
        # As in the C hook, frames run by the translation itself are not converted.
        previous = eval_frame.set_callback(None)
        try:
            replacement = self(fn.__code__, flat, fn.__globals__, f_builtins, fn.__closure__, True)
        finally:
            eval_frame.set_callback(previous)
        if replacement is None:
            return fn(*args, **kwargs)
        return replacement(*flat)

    def lookup_or_compile(
        self,
        code: types.CodeType,
        args: tuple,
        f_globals: dict,
        f_builtins: dict,
        closure: tuple | None,
        entry: bool = False,
    ) -> Callable | None:
        states = _states(f_globals)
        state = states.get(code)
        if state is None:  # first sight of this code object
            if trace_rules.disables_frames_under(code):
                return _run_with_callback(code, f_globals, closure, None)
            if closure and trace_rules.disables_frame_of_closure(code):
                _skip(closure[0].cell_contents.__code__)
        if (
            not entry
            and trace_rules.skip_code(code, f_builtins)
            and not trace_rules.is_hooked_builtin_forward(code, args)
        ):
            _skip(code)
            return None
        if state is None:
            state = states.setdefault(code, CodeState)
        entries = state.entries  # none of which `__call__` found to hold
        if not trace_rules.has_tensor_in_frame(code, frame_locals(code, args, closure), f_globals):
            return None  # as in Dynamo: nothing for a graph in sight, CPython runs it
        # The miss that first hits the limit is logged as a recompile too, as Dynamo logs
        # the guard failures before it checks the limit; later misses are not.
        if entries and not state.warned_limit and recompiles_log.isEnabledFor(logging.DEBUG):
            # In cache order, most recently used first, as Dynamo lists them.
            reasons = [e.check_fn.failure_reason(args, f_globals, closure) for e in entries]
            recompiles_log.debug(
                "Recompiling function %s in %s\n    triggered by the following guard "
                "failure(s):\n%s",
                code.co_name,
                where(code),
                "\n".join(f"    - {reason}" for reason in reasons),
            )
        if len(entries) >= config.recompile_limit:
            return self.past_recompile_limit(code, state, args, f_globals, closure)
        started = time.perf_counter()
        events.frame_started(code)
        try:
            entry = self.compile_frame(code, args, f_globals, f_builtins, closure)
        except Unsupported as e:
            events.frame_failed(code, e)
            return self.fall_back(code, f_globals, e)
        except SkipFrame as e:
            counters["frames_empty"] += 1
            trace_log.debug("Skipping frame %s (%s) for good: %s", code.co_name, where(code), e)
            _skip(code)
            return None
        entries.insert(0, entry)
        counters["frames_compiled"] += 1
        events.frame_compiled(code, entry.check_fn, time.perf_counter() - started)
        return entry.replacement

    def compile_frame(
        self,
        code: types.CodeType,
        args: tuple,
        f_globals: dict,
        f_builtins: dict,
        closure: tuple | None,
    ) -> CacheEntry:
        """Translate the frame and build its modified code and guards."""
        output, tx = self.translate(code, args, f_globals, f_builtins, closure)
        output.guards.add_shape_guards(output.shapes.produce_guards())
        output.guards.add_no_aliasing()
        new_code = modified_code(code, tx.output_instructions)
        check_fn = output.guards.compile(code)
        f_globals.update(output.installed_globals)
        replacement = eval_frame.make_replacement(new_code, f_globals, closure, code.co_name)
        if guards_log.isEnabledFor(logging.DEBUG):
            guards_log.debug("GUARDS:\n%s", output.guards.text())
        if bytecode_log.isEnabledFor(logging.DEBUG):
            title = _title(code)
            bytecode_log.debug("ORIGINAL BYTECODE %s\n%s", title, dis_text(code))
            bytecode_log.debug("MODIFIED BYTECODE %s\n%s", title, dis_text(new_code))
        if bytecode_source_log.isEnabledFor(logging.DEBUG):
            bytecode_source_log.debug(
                "MODIFIED BYTECODE AS PYTHON %s\n%s", _title(code), python_source(new_code)
            )
        return CacheEntry(check_fn, replacement, new_code)

    def translate(
        self,
        code: types.CodeType,
        args: tuple,
        f_globals: dict,
        f_builtins: dict,
        closure: tuple | None,
    ) -> tuple[OutputGraph, InstructionTranslator]:
        """Run the translator; where it meets something it can break the graph for, run
        it again from the start, stopping there (tracing is deterministic, and a fresh
        start leaves no half-traced state behind)."""
        break_span = None
        break_at_requires_grad = False
        while True:
            shapes = ShapePolicy(
                _states(f_globals).setdefault(code, CodeState).frame_state,
                dynamic=self.dynamic,
                log=dynamic_log,
                one_graph=self.fullgraph,
            )
            output = OutputGraph(
                f_globals,
                self.backend,
                shapes,
                break_at_requires_grad=break_at_requires_grad,
                one_graph=self.fullgraph,
            )
            tx = InstructionTranslator(
                output, code, args, f_globals, f_builtins, closure, break_span=break_span
            )
            try:
                tx.run()
                return output, tx
            except RequiresGradOutput:
                if self.fullgraph or break_at_requires_grad:
                    raise
                # From the start again: the break at requires_grad_() may come before
                # the one this translation stopped at.
                break_at_requires_grad = True
                break_span = None
            except Unsupported as e:
                if self.fullgraph or break_span is not None or e.break_span is None:
                    raise
                break_span = e.break_span
                counters["graph_breaks"] += 1
                events.graph_break(e)
                self.log_graph_break(e)

    def log_graph_break(self, error: Unsupported) -> None:
        if graph_breaks_log.isEnabledFor(logging.DEBUG):
            file, line, _name, _text = error.user_stack[-1]
            graph_breaks_log.debug(
                "Graph break in user code at %s:%d\n%s", file, line, error.describe()
            )

    def fall_back(
        self, code: types.CodeType, f_globals: dict, error: Unsupported
    ) -> Callable | None:
        """Translation failed: run this frame (and later ones of `code`) eagerly."""
        counters["frames_failed"] += 1
        if self.fullgraph:

            def raise_unsupported(*args: object) -> None:
                raise Unsupported(error.describe(), error.gb_id)

            return raise_unsupported
        if graph_breaks_log.isEnabledFor(logging.DEBUG):
            graph_breaks_log.debug(
                "Frame %s (%s) runs eagerly:\n%s", code.co_name, where(code), error.describe()
            )
        _skip(code)
        return None

    def past_recompile_limit(
        self,
        code: types.CodeType,
        state: CodeState,
        args: tuple,
        f_globals: dict,
        closure: tuple | None,
    ) -> Callable:
        """The frame needs a compile past `config.recompile_limit`: under fullgraph=True
        that raises; otherwise this call runs the original code with `run_only` as the
        callback, so the frames it calls run their cache entries but never compile
        (Dynamo's FrameAction.RUN_ONLY, for the frame and recursively). The next call
        of the frame looks its cache up again."""
        if not state.warned_limit:
            state.warned_limit = True
            # The failure of the front entry, as Dynamo's "last reason".
            reason = state.entries[0].check_fn.failure_reason(args, f_globals, closure)
            log.warning(
                "minidynamo: %s (%s) hit the recompile limit (%d); calls that miss its "
                "cache run uncompiled from now on, and so do the frames they call. "
                "Last guard failure: %s",
                code.co_name,
                where(code),
                config.recompile_limit,
                reason,
            )
        if self.fullgraph:
            return _raising(
                RecompileLimitExceeded(
                    f"{code.co_name} ({where(code)}) hit the recompile limit "
                    f"({config.recompile_limit}) under fullgraph=True"
                )
            )
        return _run_with_callback(code, f_globals, closure, run_only)


def _run_with_callback(
    code: types.CodeType, f_globals: dict, closure: tuple | None, callback: Callable | None
) -> Callable:
    """The frame of `code` run uncompiled, with `callback` deciding what the frames it
    calls do: None converts none of them (torch.compiler.disable), `run_only` keeps
    their compiled code but compiles nothing new (the recompile limit)."""
    original = eval_frame.make_replacement(code, f_globals, closure, code.co_name)

    def run_uncompiled(*args: object) -> object:
        previous = eval_frame.set_callback(callback)
        try:
            return original(*args)
        finally:
            eval_frame.set_callback(previous)

    return run_uncompiled


def _cache_hit(
    state: CodeState, args: tuple, f_globals: dict, closure: tuple | None
) -> Callable | None:
    """The replacement of the first cache entry whose guards pass (moved to the front, as
    in `ConvertFrame.__call__`), or None."""
    entries = state.entries
    for i, entry in enumerate(entries):
        if entry.check_fn(args, f_globals, closure):
            entries.insert(0, entries.pop(i))
            return entry.replacement_for(closure)
    return None


def run_only(
    code: types.CodeType,
    args: tuple,
    f_globals: dict,
    f_builtins: dict,
    closure: tuple | None,
) -> Callable | None:
    """The callback while a frame past its recompile limit runs: a frame it calls runs a
    cache entry whose guards pass, and otherwise CPython's code; nothing compiles."""
    state = _states(f_globals).get(code)
    if state is None or not state.entries:
        return None
    try:
        return _cache_hit(state, args, f_globals, closure)
    except Exception as e:  # never raise into CPython
        log.warning(
            "minidynamo: cache lookup of %s (%s) failed, running it uncompiled: %s: %s",
            code.co_name,
            where(code),
            type(e).__name__,
            e,
        )
        return None
