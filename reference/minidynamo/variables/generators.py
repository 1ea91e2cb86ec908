"""`GeneratorVariable`: a generator object made in the traced code, whose body runs one
``yield`` at a time (an `InliningGeneratorTranslator`) as the program asks for items,
``send``s, ``throw``s or ``close``s it.

Alive at a graph break, a generator (or a lazy ``map``/``zip``/``enumerate`` over one,
builtin_iterators.py) is run to its end in the graph and rebuilt as an iterator over the
items it had left, as Dynamo does: `run_to_end`, `rebuild_remaining`.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

import torch
import torch.fx
from minidynamo import graph_break_registry as gb
from minidynamo.bytecode import add_push_null
from minidynamo.exc import ObservedException, Unsupported, unimplemented
from minidynamo.output_graph import is_inplace, target_name
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, is_constant_none
from minidynamo.variables.lists import IteratorVariable
from torch.multiprocessing.reductions import StorageWeakRef

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import (
        InliningGeneratorTranslator,
        InstructionTranslatorBase,
    )
    from torch._guards import Source


class GeneratorVariable(IteratorVariable):
    """A generator object made in the traced code. Alive at a graph break, it is run to
    its end in the graph and rebuilt as an iterator over the items it had left (as
    Dynamo): `remaining`."""

    def __init__(self, tx: InliningGeneratorTranslator) -> None:
        super().__init__()
        self.tx = tx
        self.remaining: list[VariableTracker] | None = None

    def __repr__(self) -> str:
        return f"GeneratorVariable({self.tx.code.co_name})"

    def python_type(self) -> type:
        return types.GeneratorType

    def is_new_object(self) -> bool:
        return True

    def reconstruct(self, codegen: PyCodegen) -> None:
        """``iter((item, ...))``: the items it had left, computed by the graph."""
        if self.remaining is None:
            self.remaining = self.run_to_end()
        rebuild_remaining(codegen, self.remaining)

    def run_to_end(self) -> list[VariableTracker]:
        return run_to_end(self, self.tx, self.tx.code.co_name)

    def advancing(self, tx: InstructionTranslatorBase) -> None:
        """The body is about to run (or the generator to close): a generator made in the
        trace has nothing to record; `ExistingGeneratorVariable` has."""

    def next_variable(self) -> VariableTracker | None:
        self.advancing(self.tx)
        return self.tx.resume()

    def returned(self) -> VariableTracker:
        """What the body returned (None until it has)."""
        return self.tx.symbolic_result or ConstantVariable(None)

    def finished(self, item: VariableTracker | None) -> VariableTracker:
        """`item`, or StopIteration carrying the body's return value once it has returned."""
        if item is None:
            from minidynamo.variables.exceptions import ExceptionVariable

            raise ObservedException(ExceptionVariable(StopIteration, [self.returned()]))
        return item

    def method_next(self, tx: InstructionTranslatorBase) -> VariableTracker:
        self.advancing(tx)
        return self.finished(self.tx.resume())

    def method_send(self, tx: InstructionTranslatorBase, value: VariableTracker) -> VariableTracker:
        self.advancing(tx)
        return self.finished(self.tx.resume(sent=value))

    def method_throw(
        self,
        tx: InstructionTranslatorBase,
        value: VariableTracker,
        instance: VariableTracker | None = None,
        traceback: VariableTracker | None = None,
    ) -> VariableTracker:
        """``gen.throw(exc)``, or the older ``gen.throw(type, exc, tb)`` that contextlib
        calls on CPython 3.10 and 3.11 (`instance` is the exception when it is not None)."""
        from minidynamo.opcodes.exceptions import as_exception

        if instance is not None and not is_constant_none(instance):
            value = instance
        self.advancing(tx)
        return self.finished(self.tx.resume(thrown=ObservedException(as_exception(tx, value))))

    def method_close(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """GeneratorExit raised at the paused yield; the generator must not yield again."""
        from minidynamo.variables.exceptions import ExceptionVariable, raise_observed

        self.advancing(tx)
        if self.tx.paused_at is None or self.tx.done:
            self.tx.done = True
            return ConstantVariable(None)
        try:
            item = self.tx.resume(thrown=ObservedException(ExceptionVariable(GeneratorExit, [])))
        except ObservedException as e:
            if issubclass(e.exception.python_type(), (GeneratorExit, StopIteration)):
                return ConstantVariable(None)
            raise
        if item is not None:
            raise_observed(RuntimeError, "generator ignored GeneratorExit")
        return ConstantVariable(None)


class ExistingGeneratorVariable(GeneratorVariable):
    """A generator object the frame was given (an argument, a global, a
    ``@contextmanager`` object's ``gen``), not yet started: traced like one made in the
    trace, from its code and the values its frame holds (as Dynamo). The caller's object
    must end in the state eager leaves it in: run to its end, it is closed after the
    graph (``gen.close()`` runs none of its body); left paused, it cannot be, so the
    frame runs in CPython (Dynamo leaves the caller's generator unstarted)."""

    def __init__(self, tx: InliningGeneratorTranslator, source: Source) -> None:
        super().__init__(tx)
        self.source = source

    def __repr__(self) -> str:
        return f"ExistingGeneratorVariable({self.tx.code.co_name})"

    def is_new_object(self) -> bool:
        return False

    def advancing(self, tx: InstructionTranslatorBase) -> None:
        tx.output.side_effects.advance_generator(self)

    def paused(self) -> bool:
        return self.tx.paused_at is not None and not self.tx.done

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.paused():
            unimplemented_paused(self)
        self.source.reconstruct(codegen)


def unimplemented_paused(gen: ExistingGeneratorVariable) -> None:
    unimplemented(
        f"the generator {gen.source.name} ({gen.tx.code.co_name}) given to the frame is "
        "left paused: its state cannot be given back to the caller's object",
        gb.EXISTING_GENERATOR_PAUSED,
    )


def _storage(node: object) -> StorageWeakRef | None:
    """The memory of the tensor a node computes (a view shares its base's)."""
    example = node.meta.get("example_value") if isinstance(node, torch.fx.Node) else None
    if isinstance(example, torch.Tensor):
        return StorageWeakRef(example.untyped_storage())
    return None


def rebuild_remaining(codegen: PyCodegen, items: list[VariableTracker]) -> None:
    """``iter((item, ...))``: an iterator run to its end, rebuilt over its items."""
    codegen.load_builtin(iter)
    codegen.instructions[-1:] = add_push_null(codegen.instructions[-1:])
    for item in items:
        codegen(item)
    codegen.build(tuple, len(items))
    codegen.call(1)


def run_to_end(
    iterator: IteratorVariable, tx: InstructionTranslatorBase, name: str
) -> list[VariableTracker]:
    """The remaining items of `iterator` (a generator, or a lazy map/zip/enumerate over
    one), traced now, before the instruction that breaks the graph; `name` is the code
    the error names. That is only right if running them early changes nothing the
    instruction or the code after it sees (Dynamo checks the objects, minidynamo tensors
    in place too) and raises nothing: otherwise the frame runs in CPython."""
    output = tx.output
    before = set(output.graph.nodes)
    output.side_effects.frozen = True
    try:
        items = iterator.unpack_var_sequence(tx)
    except ObservedException as e:
        unimplemented(
            f"a generator run to its end at a graph break raises {e.exception!r}",
            gb.GENERATOR_REBUILT_WITH_SIDE_EFFECTS,
        )
    finally:
        output.side_effects.frozen = False
    older = {_storage(node) for node in before} - {None}
    for node in output.graph.nodes:
        if node not in before and is_inplace(node) and _storage(node.args[0]) in older:
            error = Unsupported(
                "a generator run to its end at a graph break changes a tensor in place "
                f"({target_name(node.target)})",
                gb.GENERATOR_REBUILT_WITH_SIDE_EFFECTS,
            )
            file, line, text = node.meta["source_location"]
            error.user_stack.append((file, line, name, text))
            raise error
    return items
