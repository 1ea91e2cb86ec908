"""`OutputGraph`: the FX graph of one frame, built through proxies (seed "Generating the
output graph"), and `compile_subgraph`, which hands it to the backend and generates the
bytecode that calls it (DESIGN.md data flow: "at RETURN ... compile_subgraph").

Example values are FakeTensors: every node is run on fakes as it is recorded, so shapes
and dtypes are known at trace time without touching real data.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import linecache
import logging
import operator
import types
import weakref
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any

import torch
import torch.fx
from torch._dispatch.python import enable_python_dispatcher
from torch._guards import Source
from torch._subclasses.fake_tensor import (
    DataDependentOutputException,
    DynamicOutputShapeException,
    FakeTensorDeviceMismatchError,
    UnsupportedFakeTensorException,
    UnsupportedOperatorException,
)
from torch.fx.experimental.symbolic_shapes import (
    GuardOnDataDependentSymNode,
    compute_unbacked_bindings,
    free_symbols,
)
from torch.fx.node import map_aggregate
from torch.fx.passes.runtime_assert import insert_deferred_runtime_asserts
from torch.utils._sympy.value_ranges import ValueRangeError

from minidynamo import events, logs
from minidynamo import graph_break_registry as gb
from minidynamo.exc import BackendCompilerFailed, RequiresGradOutput, unimplemented
from minidynamo.guards import GuardSet
from minidynamo.shapes import FrameShapeState, ShapePolicy, TensorPropertySource, format_graph_sizes
from minidynamo.side_effects import SideEffects

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker
    from minidynamo.variables.misc import CellVariable

graph_code_log = logs.get_logger("graph_code")
graph_sizes_log = logs.get_logger("graph_sizes")

# Nodes that compute numbers or sizes, not tensors: dropped when unused (`ge = l_n_ >= 0`
# only served an `if`, whose guard the ShapePolicy keeps).
_SYMBOLIC_RESULTS = (torch.SymInt, torch.SymBool, torch.SymFloat, torch.Size)
# The nodes insert_deferred_runtime_asserts rewrites even in a graph without symbols.
# Nodes that change the grad mode besides ``torch._C._set_grad_enabled``.
_GRAD_MODE_CHANGERS = (
    torch.autograd.grad_mode._enter_inference_mode,
    torch.autograd.grad_mode._exit_inference_mode,
)

_ASSERTION_TARGETS = (
    torch._check,
    torch._assert_scalar,
    torch.ops.aten._assert_scalar.default,
    torch.ops.aten.sym_constrain_range.default,
    torch.ops.aten.sym_constrain_range_for_size.default,
)

# RuntimeErrors that say what fake tensors cannot do, not what the op refuses: a graph
# break, never an exception of the traced program.
_FAKE_LIMITS = (
    NotImplementedError,  # no meta kernel
    DataDependentOutputException,
    DynamicOutputShapeException,
    UnsupportedOperatorException,
    UnsupportedFakeTensorException,
    FakeTensorDeviceMismatchError,
    GuardOnDataDependentSymNode,
    ValueRangeError,
)


def _is_program_error(error: Exception) -> bool:
    """An op's RuntimeError on example values that eager raises too (Dynamo's
    get_fake_value turns the same ones into an exception of the traced program)."""
    cause = error.__cause__ or error
    return (
        isinstance(error, RuntimeError)
        and not isinstance(error, _FAKE_LIMITS)
        and not isinstance(cause, _FAKE_LIMITS)
        and "fake impl" not in str(error)
    )


# Numbers `__compiled_fn_N` (and later `__resume_at_..._N`); `reset()` restarts it.
_unique_ids = itertools.count()


def next_unique_id() -> int:
    return next(_unique_ids)


def reset_unique_ids() -> None:
    global _unique_ids
    _unique_ids = itertools.count()


@dataclasses.dataclass
class GraphArg:
    """A graph input: where it comes from in the frame, and its value at compile time."""

    source: Source
    example: Any
    proxy: torch.fx.Proxy


class OutputGraph:
    """The graph under construction, its inputs, its guards and the globals it needs."""

    def __init__(
        self,
        f_globals: dict,
        backend: Callable,
        shapes: ShapePolicy | None = None,
        *,
        break_at_requires_grad: bool = False,
        one_graph: bool = False,
    ) -> None:
        self.graph = torch.fx.Graph()
        # fullgraph=True: `.item()` is a graph node (a captured scalar output), as in Dynamo.
        self.one_graph = one_graph
        self.tracer = torch.fx.proxy.GraphAppendingTracer(self.graph)
        # The frame's graph; `graph` is a subgraph's while a higher-order op's function
        # is traced (`subgraph`), and those subgraphs, by attribute name, once traced.
        self.root_graph = self.graph
        self.root_tracer = self.tracer
        self.subtracers: list[SubgraphTracer] = []
        self.submodules: dict[str, torch.fx.GraphModule] = {}
        self.subgraph_names: set[str] = set()  # of all its subgraphs, nested ones too
        self.shapes = shapes if shapes is not None else ShapePolicy(FrameShapeState())
        self.fake_mode = self.shapes.fake_mode
        self.guards = GuardSet()
        self.input_by_id: dict[int, VariableTracker] = {}
        # Each input tensor, by id of its tracker: what `id(x)` of an input is.
        self.input_tensors: dict[int, torch.Tensor] = {}
        # Dynamic ints and floats, by source: one read again (`p.a` twice) is the same
        # graph input (values cannot be told apart by id: small ints are shared).
        self.input_by_source: dict[Source, VariableTracker] = {}
        # Modules the trace made (`nn.ReLU()`), by id: one reached again through the
        # container holding it is the same VariableTracker, so `is` and stores agree.
        self.new_modules: dict[int, VariableTracker] = {}
        # Where the trace found nn.Modules: their int attributes stay constants.
        self.module_sources: set[Source] = set()
        self.root_globals = f_globals
        self.installed_globals: dict[str, Any] = {}
        self.backend = backend
        # Set when the translation starts again because requires_grad_() on a tensor
        # made in the graph reached its outputs: that call then breaks the graph.
        self.break_at_requires_grad = break_at_requires_grad
        # The nodes of tensors made in the graph that requires_grad_() turned into leaves.
        self.requires_grad_leaves: set[torch.fx.Node] = set()
        self.side_effects = SideEffects()
        self.temp_count = 0
        self.real_cells: dict[int, CellVariable] = {}  # by id(cell); each keeps its cell alive
        self.initial_grad_mode = torch.is_grad_enabled()  # the frame's, when the graph starts
        self.guards.add_global_state()
        # The frame's, which `torch.set_default_dtype` in the trace changes for its rest.
        self.initial_default_dtype = torch.get_default_dtype()
        self.instructions_run = 0  # by this trace, inlined functions included (the budget)
        # How to undo the global state the trace switched (an autocast block entered):
        # the innermost last; what is left when the trace stops is undone then.
        self.global_state_undo: list[Callable[[], None]] = []
        # False inside ``with torch._C.DisableTorchFunctionSubclass()``: no tensor
        # subclass decides the class of a result (`tensor_subclass.result_class`).
        self.initial_torch_function_enabled = torch._C._is_torch_function_enabled()
        self.torch_function_subclass_enabled = self.initial_torch_function_enabled

    def switch_global_state(self, undo: Callable[[], None]) -> Callable[[], None]:
        """The trace switched a global state (a torch manager entered for real); `undo`
        switches it back, at the block's exit or when the trace stops before it."""
        self.global_state_undo.append(undo)
        return undo

    def restore_global_state(self, undo: Callable[[], None] | None = None) -> None:
        """Undo one switch (`undo`, at its block's exit), or all those left, innermost
        first."""
        if undo is not None:
            self.global_state_undo.remove(undo)
            undo()
            return
        while self.global_state_undo:
            self.global_state_undo.pop()()

    def cell_variable(self, cell: types.CellType, source: Source | None) -> CellVariable:
        """The one CellVariable of a real closure cell, however the trace reaches it (the
        frame's free variable, a called function's ``__closure__``): each sees the
        trace's writes to the cell."""
        from minidynamo.variables.misc import CellVariable

        if id(cell) not in self.real_cells:
            self.real_cells[id(cell)] = CellVariable(source=source, real_cell=cell)
        return self.real_cells[id(cell)]

    def import_source_variable(self, tx: Any, module: types.ModuleType) -> Any:
        """A module the traced code imported, loaded again as ``__import_<name>``."""
        from minidynamo.builder import VariableBuilder
        from minidynamo.source import GlobalSource

        alias = self.install_import(module, module.__name__)
        return VariableBuilder(tx, GlobalSource(alias))(module)

    def install_import(self, value: Any, qualified: str) -> str:
        """`value` installed as the global ``__import_<qualified name>``; that name."""
        name = "__import_" + qualified.replace(".", "_dot_")
        self.install_global(name, value)
        return name

    def install_global(self, name: str, value: Any) -> None:
        """`name` will be set in the frame's globals when the compiled code is installed."""
        self.installed_globals[name] = value

    # Building the graph.

    def create_graph_input(
        self, name: str, value: Any, example: Any, source: Source
    ) -> torch.fx.Proxy:
        """A placeholder of the frame's graph (also while a subgraph is traced: the
        subgraph lifts it), kept before every other node whenever it is created."""
        node = add_placeholder(self.root_graph, name, example)
        proxy = torch.fx.Proxy(node, self.root_tracer)
        node.meta["grapharg"] = GraphArg(source, value, proxy)
        return proxy

    @property
    def graphargs(self) -> list[GraphArg]:
        """The graph's inputs, in placeholder order."""
        return [n.meta["grapharg"] for n in self.root_graph.nodes if n.op == "placeholder"]

    @contextlib.contextmanager
    def subgraph(self) -> Iterator[SubgraphTracer]:
        """Nodes recorded inside go to a new graph (the function of a higher-order op,
        traced as Dynamo's speculate_subgraph), which lifts the values of enclosing
        graphs it uses."""
        sub = SubgraphTracer(self.subtracers[-1] if self.subtracers else None)
        outer = self.graph, self.tracer
        self.subtracers.append(sub)
        self.graph, self.tracer = sub.graph, sub.tracer
        try:
            yield sub
        finally:
            self.subtracers.pop()
            self.graph, self.tracer = outer

    def install_subgraph(
        self, tx: InstructionTranslatorBase, prefix: str, sub: SubgraphTracer
    ) -> torch.fx.Proxy:
        """A traced subgraph as an attribute (``cond_true_0``) of the module of the graph
        that calls it; its get_attr node."""
        owner = self.subtracers[-1].submodules if self.subtracers else self.submodules
        # Numbered across the frame's graph, as Dynamo: an inner cond's is cond_true_0.
        name = next(
            f"{prefix}_{i}" for i in itertools.count() if f"{prefix}_{i}" not in self.subgraph_names
        )
        self.subgraph_names.add(name)
        owner[name] = _graph_module(sub.graph, sub.submodules)
        return self.create_proxy(tx, "get_attr", name, (), {}, example=owner[name])

    def create_proxy(
        self,
        tx: InstructionTranslatorBase,
        kind: str,
        target: Any,
        args: tuple,
        kwargs: dict,
        *,
        example: Any,
    ) -> torch.fx.Proxy:
        if self.subtracers:
            args, kwargs = self.subtracers[-1].lift((args, kwargs))
        elif self.submodules:
            _check_no_escape(self.graph, (args, kwargs))
        proxy = self.tracer.create_proxy(kind, target, args, kwargs)
        proxy.node.meta["example_value"] = example
        proxy.node.meta["source_location"] = tx.source_location()
        if self.shapes.shape_env.pending_fresh_unbacked_symbols:
            # The node binds new unbacked symbols (`x[mask]`'s u0, `.item()`'s): the
            # runtime-assert pass checks their ranges right after it (u0 >= 0), as Dynamo.
            bindings = compute_unbacked_bindings(self.shapes.shape_env, example)
            if bindings:
                proxy.node.meta["unbacked_bindings"] = bindings
        return proxy

    def count_calls(self) -> int:
        """The operations recorded so far (nodes other than inputs and outputs)."""
        return sum(node.op.startswith("call_") for node in self.graph.nodes)

    def run_fake(self, kind: str, target: Any, args: tuple, kwargs: dict) -> Any:
        """Run one operation on the FakeTensor example values of its arguments."""
        # FX's own map over its argument structures (tuples, lists, dicts, slices, whose
        # bounds may be symbolic): a C loop, where pytree's per-node Python was a tenth of
        # a cheap op's fake run.
        args, kwargs = map_aggregate((args, kwargs), _example_value)
        try:
            # The Python dispatcher, as Dynamo runs it: composite kernels that take plain
            # ints (baddbmm's meta expanding `self`) then decompose with symbolic sizes.
            with self.fake_mode, enable_python_dispatcher():
                if kind == "call_method":
                    return getattr(args[0], target)(*args[1:], **kwargs)
                return target(*args, **kwargs)
        except DynamicOutputShapeException:
            reason = f"{target_name(target)}: its output shape depends on the data"
            unimplemented(reason, gb.DYNAMIC_SHAPE)
        except UnsupportedOperatorException as e:
            reason = f"operator {e.func} has no fake kernel (not PT2 compliant)"
            unimplemented(reason, gb.NO_FAKE_KERNEL)
        except Exception as e:
            if _is_program_error(e):
                # The op itself refuses these arguments (`torch.mm` of 1-D tensors), as
                # eager would: the program's own `except RuntimeError` may catch it.
                from minidynamo.variables.exceptions import raise_observed

                raise_observed(RuntimeError, str(e))
            unimplemented(f"{target_name(target)} raised {type(e).__name__} on example values: {e}")

    def call(
        self,
        tx: InstructionTranslatorBase,
        kind: str,
        target: Any,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker] | None = None,
    ) -> VariableTracker:
        """Record ``target(*args, **kwargs)`` in the graph; its VariableTracker. Of
        tensors of a subclass, the result is the class ``__torch_function__`` makes it."""
        from minidynamo.variables import tensor_subclass as subclass

        types = subclass.overriding_types(tx, args, kwargs)
        if types:  # a class's own __torch_function__ runs the operation
            func, tf_args = subclass.eager_func(kind, target, args)
            return subclass.dispatch_torch_function(tx, types, func, tf_args, kwargs)
        cls = subclass.result_class(tx, getattr(target, "__name__", str(target)), args, kwargs)
        proxy_args = tuple(arg.as_proxy() for arg in args)
        proxy_kwargs = {key: arg.as_proxy() for key, arg in (kwargs or {}).items()}
        result = self.call_proxies(tx, kind, target, proxy_args, proxy_kwargs)
        return subclass.convert_result(result, cls)

    def call_proxies(
        self,
        tx: InstructionTranslatorBase,
        kind: str,
        target: Any,
        proxy_args: tuple,
        proxy_kwargs: dict[str, Any],
    ) -> VariableTracker:
        """`call` with arguments already in their graph form (proxies, constants, and
        structures of them: a higher-order op's subgraph and operand tuple)."""
        from minidynamo.graph_values import wrap_fx_proxy

        filename, lineno, _line = tx.source_location()
        with self.shapes.guards_added_at(f"{filename}:{lineno} in {tx.code.co_name}"):
            example = self.run_fake(kind, target, proxy_args, proxy_kwargs)
        proxy = self.create_proxy(tx, kind, target, proxy_args, proxy_kwargs, example=example)
        return wrap_fx_proxy(tx, proxy, example)

    # Finishing the graph.

    def compile_subgraph(
        self,
        tx: InstructionTranslatorBase,
        stack_values: list[VariableTracker],
        stored_locals: dict[str, VariableTracker] | None = None,
        stored_cells: dict[str, VariableTracker] | None = None,
        continuation_cells: Collection[str] = (),
        value_from_graph: bool = False,
    ) -> list[Instruction]:
        """Compile the graph and return the bytecode that runs it: call `__compiled_fn_N`,
        store `graph_out_0`, push `stack_values`, store `stored_locals` (at a graph break:
        the locals the continuation needs that the trace computed), replay side effects.
        Of `stored_cells`, the frame's cells the trace assigned, those that a rebuilt
        function or the continuation (`continuation_cells`) closes over are stored.

        Every local's value is rebuilt before any local is stored, and side effects are
        replayed in between: a value is reloaded from its source (``L['b']``), which a
        store to that local (``a, b = b, a``) or a replayed mutation would change. With
        `value_from_graph` the one stack value, a tensor, is a graph output even when it
        is an input (Dynamo's common case, see `returns_graph_tensor`)."""
        from minidynamo.codegen import PyCodegen
        from minidynamo.variables.lazy import realize_within
        from minidynamo.variables.tensor_subclass import (
            is_subclass_tensor,
            without_subclass_dispatch,
        )

        def rebuild_values(shared: frozenset[int]) -> PyCodegen:
            rebuild = PyCodegen(self, graph_output_var="graph_out_0", shared=shared)
            for value in stack_values:
                if value_from_graph:
                    rebuild.load_graph_output(value.as_proxy().node)
                else:
                    rebuild(value)
            local_names = list(stored_locals or {})
            for name in local_names:
                rebuild(stored_locals[name])  # type: ignore[index]
            self.side_effects.codegen(rebuild)
            for name in reversed(local_names):
                rebuild.store_fast(name)
            for name, value in (stored_cells or {}).items():
                if name in rebuild.closures or name in continuation_cells:
                    realize_within(value)  # its global or cell may be replayed already
                    rebuild(value)
                    rebuild.store_deref(name)
            return rebuild

        # A first pass finds the new objects rebuilt more than once; the second builds
        # each of them once.
        temp_count = self.temp_count
        shared = rebuild_values(frozenset()).shared_objects()
        self.temp_count = temp_count
        rebuild = rebuild_values(shared)
        outputs = list(rebuild.graph_outputs)
        if self.submodules:
            _check_no_escape(self.graph, outputs)
        self.graph.output(tuple(outputs))
        self.check_requires_grad(outputs)
        self.remove_redundant_grad_switches()
        self.compute_sizes_from_inputs()
        self.remove_unused_graphargs()
        call_graph = PyCodegen(self, graph_output_var="graph_out_0")
        # A graph without operations is still called when the code after it reads its
        # outputs (a size input it passes through: ``print(x.shape)`` of a dynamic x).
        if outputs or any(node.op not in ("placeholder", "output") for node in self.graph.nodes):
            name = f"__compiled_fn_{next_unique_id()}"
            compiled = self.compile_and_call_fx_graph(name)
            if any(is_subclass_tensor(arg.example) for arg in self.graphargs):
                # Its tensor-subclass inputs are plain tensors to the graph: the codegen
                # makes the results the subclass the trace found.
                compiled = without_subclass_dispatch(compiled)
            self.install_global(name, compiled)
            call_graph.call_compiled_graph(name, [arg.source for arg in self.graphargs])
        return call_graph.instructions + rebuild.instructions

    def check_requires_grad(self, outputs: list[torch.fx.Node]) -> None:
        """Dynamo's backend (AOTAutograd) loses the flag that requires_grad_() sets on a
        tensor made in the graph once that tensor, or one computed from it, is an output
        that requires grad: Dynamo then translates the frame again and breaks the graph
        at requires_grad_() (under fullgraph it refuses the frame). minidynamo does the
        same (its own backend would keep the flag), so that both make the same graphs."""
        tainted = set(self.requires_grad_leaves)
        for node in self.graph.nodes:
            if any(arg in tainted for arg in node.all_input_nodes):
                tainted.add(node)
        for node in outputs:
            example = node.meta.get("example_value")
            if node in tainted and isinstance(example, torch.Tensor) and example.requires_grad:
                raise RequiresGradOutput(
                    "a graph output requires grad through requires_grad_() on a tensor the "
                    "graph made",
                    gb.REQUIRES_GRAD_LEAKED,
                )

    def remove_redundant_grad_switches(self) -> None:
        """Of consecutive ``_set_grad_enabled`` nodes only the last counts; it goes too
        where it sets the mode already in force (as Dynamo: a graph that only entered and
        left grad-mode blocks is no graph)."""
        mode = self.initial_grad_mode
        run: list[torch.fx.Node] = []
        for node in list(self.graph.nodes):
            if node.op == "call_function" and node.target is torch._C._set_grad_enabled:
                run.append(node)
                continue
            if run:
                *earlier, last = run
                if last.args[0] == mode:
                    earlier.append(last)
                mode = last.args[0]
                for switch in earlier:
                    self.graph.erase_node(switch)
                run = []
            if node.op == "call_function" and node.target in _GRAD_MODE_CHANGERS:
                mode = None  # inference mode switches grad mode too, without a switch node

    def compute_sizes_from_inputs(self) -> None:
        """Size arithmetic in terms of the graph's size inputs, as Dynamo: torch.fx's
        `insert_deferred_runtime_asserts` pass rewrites each size query (`y.size()[0]`,
        `y.size(0)`) whose value the ShapeEnv knows as an expression of input symbols
        into that expression over the `s0` placeholders (`mul = 2 * s0`), and dedups
        equal expressions, so the queries themselves become dead code.

        A trace that made no symbol and recorded no assertion gives the pass nothing to
        do; it is skipped then, as its GraphModule (FX code generation) is a tenth of a
        static compile's time."""
        if not self.shapes.shape_env.var_to_range and not any(
            node.target in _ASSERTION_TARGETS for node in self.graph.nodes
        ):
            return
        gm = _graph_module(self.graph, self.submodules)
        insert_deferred_runtime_asserts(gm, self.shapes.shape_env, "minidynamo")
        # A node the pass added is reported at the line of the operation that uses it.
        for node in reversed(self.graph.nodes):
            if node.op != "placeholder" and "source_location" not in node.meta:
                located = [u for u in node.users if "source_location" in u.meta]
                if located:
                    node.meta["source_location"] = located[0].meta["source_location"]

    def remove_unused_graphargs(self) -> None:
        """Drop unused `getitem` nodes, size arithmetic and placeholders (as Dynamo does
        before compiling). A size symbol (`s0`) stays while a tensor input's size uses it, once:
        two symbols proven equal are passed as one input."""
        for node in reversed(list(self.graph.nodes)):
            if node.users or node.op not in ("call_function", "call_method"):
                continue
            if node.target is operator.getitem or isinstance(
                node.meta.get("example_value"), _SYMBOLIC_RESULTS
            ):
                self.graph.erase_node(node)
        for arg in self.graphargs:
            if not arg.proxy.node.users and not isinstance(arg.source, TensorPropertySource):
                self.graph.erase_node(arg.proxy.node)
        examples = [arg.proxy.node.meta["example_value"] for arg in self.graphargs]
        used = set().union(*(free_symbols(e) for e in examples if isinstance(e, torch.Tensor)))
        for arg in self.graphargs:
            node = arg.proxy.node
            if isinstance(arg.source, TensorPropertySource) and not node.users:
                # The symbol the input binds, after the replacements proven while tracing
                # (`x * y` proves s1 == s0): the first placeholder binding a used symbol
                # stays, a later one binding the same symbol is a duplicate input.
                bound = node.meta["example_value"].node.expr
                if bound in used:
                    used.discard(bound)
                else:
                    self.graph.erase_node(node)

    def compile_and_call_fx_graph(self, name: str) -> Callable:
        gm = _graph_module(self.graph, self.submodules)
        if graph_code_log.isEnabledFor(logging.DEBUG):
            code = graph_code(self.graph) + "".join(
                subgraph_code(sub_name, sub) for sub_name, sub in self.submodules.items()
            )
            graph_code_log.debug("TRACED GRAPH\n ===== %s =====\n%s", name, code)
        if graph_sizes_log.isEnabledFor(logging.DEBUG):
            values = [(n.name, n.meta.get("example_value")) for n in self.graph.nodes]
            graph_sizes_log.debug("%s", format_graph_sizes(name, values))
        events.graph_compiled(name, gm)
        try:
            compiled = self.backend(gm, [arg.example for arg in self.graphargs])
        except Exception as e:
            raise BackendCompilerFailed(f"{type(e).__name__}: {e}") from e
        if not callable(compiled):
            unimplemented(f"backend returned a non-callable {type(compiled).__name__}")
        # Frames the compiled graph runs (a backend's lazy compile, its Python helpers)
        # are not user code: converting them would recurse into the compiler.
        from minidynamo import disable

        return disable(compiled)


# The graph's text in the seed's format (`graph_code` channel).


def _repr_arg(arg: Any) -> str:
    if isinstance(arg, torch.fx.Node):
        return arg.name
    if isinstance(arg, tuple):
        inner = ", ".join(map(_repr_arg, arg))
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    if isinstance(arg, list):
        return "[" + ", ".join(map(_repr_arg, arg)) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {_repr_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, slice):
        return f"slice({_repr_arg(arg.start)}, {_repr_arg(arg.stop)}, {_repr_arg(arg.step)})"
    return repr(arg)


def _call_args(args: tuple, kwargs: dict) -> str:
    parts = [_repr_arg(a) for a in args] + [f"{k} = {_repr_arg(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _node_line(node: torch.fx.Node) -> str:
    args = node.args
    if node.op == "get_attr":
        return f"{node.name} = self.{node.target}"
    if node.op == "call_method":
        return (
            f"{node.name} = {_repr_arg(args[0])}.{node.target}({_call_args(args[1:], node.kwargs)})"
        )
    operator_name = getattr(node.target, "__name__", "")
    if getattr(node.target, "__module__", "") == "_operator":
        if operator_name in torch.fx.graph.magic_methods:
            return f"{node.name} = " + torch.fx.graph.magic_methods[operator_name].format(
                *map(_repr_arg, args)
            )
        if operator_name in torch.fx.graph.inplace_methods:
            statement = torch.fx.graph.inplace_methods[operator_name].format(*map(_repr_arg, args))
            return f"{statement};  {node.name} = {_repr_arg(args[0])}"
    if node.target is getattr and len(args) == 2:
        return f"{node.name} = {_repr_arg(args[0])}.{args[1]}"
    target = torch.fx.node._get_qualified_name(node.target)
    return f"{node.name} = {target}({_call_args(args, node.kwargs)})"


def _graph_module(
    graph: torch.fx.Graph, submodules: dict[str, torch.fx.GraphModule] | None = None
) -> torch.fx.GraphModule:
    """A GraphModule of `graph` (with the subgraphs its get_attr nodes name) that gives
    its generated source back when it dies."""
    root = torch.nn.Module()
    for name, module in (submodules or {}).items():
        root.add_module(name, module)
    gm = torch.fx.GraphModule(root, graph)
    weakref.finalize(gm, _forget_source, type(gm).forward.__code__.co_filename)
    return gm


def _forget_source(filename: str) -> None:
    """FX keeps the source of every generated `forward` for the life of the process (for
    tracebacks); a graph of ours gives it back when it dies, so that compiling and dropping
    functions leaves nothing behind (benchmarks/code_cache.py)."""
    torch.fx.graph_module._loader.eval_cache.pop(filename, None)
    linecache.cache.pop(filename, None)


def _placeholder_type(node: torch.fx.Node) -> str:
    symbolic = isinstance(node.meta["example_value"], torch.SymInt)
    return "torch.SymInt" if symbolic else "torch.Tensor"


def graph_code(graph: torch.fx.Graph) -> str:
    """``def forward(self, l_x_: torch.Tensor): ...`` with `# File:` comments."""
    params = ["self"] + [
        f"{n.name}: {_placeholder_type(n)}" for n in graph.nodes if n.op == "placeholder"
    ]
    lines = [f"def forward({', '.join(params)}):"]
    location = None
    for node in graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            lines.append(f"    return {_repr_arg(node.args[0])}")
            continue
        if node.meta.get("source_location", location) != location:
            location = node.meta["source_location"]
            if len(lines) > 1:
                lines.append("")
            lines.append("    # File: {}:{}, code: {}".format(*location))
        lines.append("    " + _node_line(node))
    return "\n".join(lines) + "\n"


def subgraph_code(name: str, gm: torch.fx.GraphModule) -> str:
    """A subgraph's code after its graph's, as a nested class (Dynamo's layout)."""
    code = graph_code(gm.graph) + "".join(
        subgraph_code(sub_name, sub) for sub_name, sub in gm.named_children()
    )
    body = "\n".join("    " + line if line else line for line in code.splitlines())
    return f"class {name}(torch.nn.Module):\n{body}\n"


def add_placeholder(graph: torch.fx.Graph, name: str, example: Any) -> torch.fx.Node:
    """A placeholder after `graph`'s others, before every other node."""
    first_op = next((n for n in graph.nodes if n.op != "placeholder"), None)
    if first_op is None:
        node = graph.placeholder(name)
    else:
        with graph.inserting_before(first_op):
            node = graph.placeholder(name)
    node.meta["example_value"] = example
    return node


class SubgraphTracer:
    """The graph of a higher-order op's function, traced inside the frame's graph: its
    inputs first, then each value of an enclosing graph that it uses, lifted (a
    placeholder here, an extra operand of the op there; Dynamo's lifted free
    variables)."""

    def __init__(self, parent: SubgraphTracer | None) -> None:
        self.graph = torch.fx.Graph()
        self.tracer = torch.fx.proxy.GraphAppendingTracer(self.graph)
        self.parent = parent
        self.submodules: dict[str, torch.fx.GraphModule] = {}  # its own subgraphs
        # The enclosing graph's node -> (its placeholder here, its proxy there).
        self.lifted: dict[torch.fx.Node, tuple[torch.fx.Proxy, torch.fx.Proxy]] = {}

    def add_input(self, name: str, example: Any) -> torch.fx.Proxy:
        return torch.fx.Proxy(add_placeholder(self.graph, name, example), self.tracer)

    def lift(self, value: Any) -> Any:
        """`value` (arguments of a node: proxies in tuples, lists, dicts) with the proxies
        of enclosing graphs replaced by placeholders of this one."""
        return map_aggregate(value, self._lift_proxy)

    def _lift_proxy(self, value: Any) -> Any:
        if not isinstance(value, torch.fx.Proxy) or value.node.graph is self.graph:
            return value
        outer = self.parent._lift_proxy(value) if self.parent is not None else value
        if outer.node not in self.lifted:
            node = outer.node
            self.lifted[node] = (self.add_input(node.name, node.meta.get("example_value")), outer)
        return self.lifted[outer.node][0]

    def order_lifted(self, operands: list[torch.fx.Proxy]) -> None:
        """Lift each of `operands` (values of the enclosing graph), and order the lifted
        inputs as they are."""
        for proxy in operands:
            self._lift_proxy(proxy)
        anchor = next(n for n in self.graph.nodes if n.op != "placeholder")
        for proxy in operands:
            anchor.prepend(self.lifted[proxy.node][0].node)
        self.lifted = {p.node: self.lifted[p.node] for p in operands}

    @property
    def lifted_operands(self) -> list[torch.fx.Proxy]:
        """What the enclosing graph passes for the lifted inputs, in their order."""
        return [outer for _inner, outer in self.lifted.values()]


def is_inplace(node: torch.fx.Node) -> bool:
    """A call that changes its first argument (``add_``, ``+=``, ``t[i] = v``)."""
    if not node.op.startswith("call_") or not node.args:
        return False
    name = target_name(node.target)
    return name in torch.fx.graph.inplace_methods or (
        name.endswith("_") and not name.startswith("_")
    )


def _check_no_escape(graph: torch.fx.Graph, values: Any) -> None:
    """A value computed inside a higher-order op's function is only seen through the op's
    outputs; one that reached the enclosing graph otherwise (stored in a list the
    function mutated) cannot be used there."""

    def check(value: Any) -> Any:
        node = value.node if isinstance(value, torch.fx.Proxy) else value
        if isinstance(node, torch.fx.Node) and node.graph is not graph:
            unimplemented(f"a value of a higher-order op's function ({node.name}) escaped it")
        return value

    map_aggregate(values, check)


def _example_value(value: Any) -> Any:
    """The example value of a proxy argument; other arguments stay as they are."""
    return value.node.meta["example_value"] if isinstance(value, torch.fx.Proxy) else value


def target_name(target: Any) -> str:
    """What a node calls, by name (`add_`, `sin`)."""
    return target if isinstance(target, str) else getattr(target, "__name__", str(target))
