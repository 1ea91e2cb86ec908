"""Wrapper codegen: the schedule -> one Python module, the "output code" of a graph.

After codegen of each kernel. The module holds the Triton kernels and `call(arg0, ...)`,
which allocates each stored buffer, launches the kernels, calls extern aten ops, frees
buffers after their last use (the memory plan), replays input mutations and returns the
outputs. It is exactly what the output_code log prints and what runtime.py imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch.utils import _pytree as pytree

from .codegen import KernelCodegen, KernelSource, fit, kernel_name, literal
from .ir import Buffer, ExternNode, View
from .lowering import GraphLowering, Unsupported
from .scheduler import Kernel

HEADER = """\
# minidynamo Triton backend: {kernels} kernel(s), {externs} extern call(s)
import torch
import triton
import triton.language as tl

from minidynamo.backends.triton import helpers
from minidynamo.backends.triton.runtime import reinterpret, with_layout
"""


@dataclass
class OutputCode:
    source: str
    kernel_count: int
    extern_count: int
    constants: dict[str, torch.Tensor]


def generate(graph: GraphLowering, steps: list[Kernel | ExternNode]) -> OutputCode:
    buffers = graph.buffers
    kernels: dict[int, KernelSource] = {}
    for index, step in enumerate(steps):
        if isinstance(step, Kernel) and step.stored:
            name = kernel_name(step, len(kernels))
            kernels[index] = KernelCodegen(step, name, buffers).generate()
    externs = sum(isinstance(s, ExternNode) for s in steps)
    wrapper = WrapperCodegen(graph, steps, kernels, buffers).generate()
    parts = [HEADER.format(kernels=len(kernels), externs=externs)]
    parts += [k.source for k in kernels.values()]
    parts.append(wrapper)
    launched = sum(1 for k in kernels.values() if k.xnumel > 0)
    return OutputCode("\n\n".join(parts), launched, externs, dict(graph.constants))


def _views(tree: Any) -> list[View]:
    return [leaf for leaf in pytree.tree_leaves(tree) if isinstance(leaf, View)]


class WrapperCodegen:
    def __init__(
        self,
        graph: GraphLowering,
        steps: list[Kernel | ExternNode],
        kernels: dict[int, KernelSource],
        buffers: dict[str, Buffer],
    ) -> None:
        self.graph = graph
        self.steps = steps
        self.kernels = kernels
        self.buffers = buffers
        self.lines: list[str] = []

    def generate(self) -> str:
        last_use = self._last_uses()
        kept = {v.buffer.name for v in _views(self.graph.outputs)}
        inputs = set(self.graph.input_names) | set(self.graph.constants)
        for index, step in enumerate(self.steps):
            if isinstance(step, ExternNode):
                self._extern(step)
            elif index in self.kernels:
                self._launch(self.kernels[index])
            dead = sorted(
                (b for b, last in last_use.items() if last == index and b not in kept | inputs),
                key=_buffer_order,
            )
            if dead:
                self.emit(f"del {', '.join(dead)}")
        self.emit(f"return {self._output(self.graph.outputs)}")
        signature = fit("def call", self.graph.input_names, tail=":")
        return "\n".join([signature, *self.lines]) + "\n"

    def emit(self, head: str, args: list[str] | None = None, tail: str = "") -> None:
        """One statement of `call`'s body; with args, a call wrapped to 100 columns."""
        self.lines.append("    " + head if args is None else fit(head, args, "    ", tail))

    def _last_uses(self) -> dict[str, int]:
        last: dict[str, int] = {}
        for index, step in enumerate(self.steps):
            if isinstance(step, ExternNode):
                used = step.reads() | {b.name for b in step.outputs}
            elif index in self.kernels:
                used = set(self.kernels[index].arguments)
            else:
                used = set()
            for name in used:
                last[name] = index
        return last

    def _launch(self, kernel: KernelSource) -> None:
        for name in kernel.outputs:
            buffer = self.buffers[name]
            self.emit(
                f"{name} = torch.empty_strided",
                [str(buffer.sizes), str(buffer.strides), f"dtype={buffer.dtype}",
                 f"device={_device(buffer.device)}"],
            )
        if kernel.xnumel == 0:
            return
        grid = -(-kernel.xnumel // kernel.xblock)
        args = [*kernel.arguments, str(kernel.xnumel)]
        blocks = [f"XBLOCK={kernel.xblock}"]
        if kernel.rnumel is not None:
            args.append(str(kernel.rnumel))
            blocks.append(f"RBLOCK={kernel.rblock}")
        blocks.append(f"num_warps={kernel.num_warps}")
        self.emit(f"{kernel.name}[({grid},)]", args + blocks)

    def _extern(self, node: ExternNode) -> None:
        args = [self._arg(a) for a in node.args]
        args += [f"{k}={self._arg(v)}" for k, v in node.kwargs.items()]
        names = [b.name for b in node.outputs]
        if not names:
            self.emit(_target(node.target), args)
            return
        targets = ", ".join(names) + ("," if len(names) == 1 and node.tuple_output else "")
        self.emit(f"{targets} = {_target(node.target)}", args)
        for buffer in node.outputs:
            # Kernels index extern results with the strides fake tensors predicted for them.
            self.emit(f"{buffer.name} = with_layout",
                      [buffer.name, str(buffer.sizes), str(buffer.strides)])

    def _arg(self, value: object) -> str:
        if isinstance(value, View):
            return self._view(value)
        if isinstance(value, list):
            return "[" + ", ".join(self._arg(v) for v in value) + "]"
        if isinstance(value, tuple):
            return "(" + "".join(self._arg(v) + ", " for v in value) + ")"
        if isinstance(value, torch.device):
            return _device(value)
        if isinstance(value, torch.dtype | torch.layout | torch.memory_format):
            return str(value)
        if value is None or isinstance(value, bool | int | float | str):
            return literal(value) if isinstance(value, float) else repr(value)
        raise Unsupported(f"cannot write {type(value).__name__} into the wrapper")

    def _view(self, view: View) -> str:
        if view.is_whole_buffer():
            return view.buffer.name
        return f"reinterpret({view.buffer.name}, {view.sizes}, {view.strides}, {view.offset})"

    def _output(self, outputs: Any) -> str:
        if isinstance(outputs, View):
            return self._view(outputs)
        if isinstance(outputs, tuple):
            return "(" + "".join(self._output(o) + ", " for o in outputs) + ")"
        if isinstance(outputs, list):
            return "[" + ", ".join(self._output(o) for o in outputs) + "]"
        return self._arg(outputs)


def _target(target: object) -> str:
    return f"torch.ops.{target}"


def _device(device: torch.device) -> str:
    return f"torch.device({str(device)!r})"


def _buffer_order(name: str) -> tuple[int, str]:
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else -1, name)
