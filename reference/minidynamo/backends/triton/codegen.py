"""Codegen: one scheduled kernel -> Triton source.

After the scheduler, before the wrapper (wrapper.py). A kernel program handles XBLOCK rows
(`xindex`, masked by `xmask`). A reduction kernel also walks the reduced elements of its
rows (`rindex`): all of them at once when they fit in one RBLOCK ("persistent"), else in
`for roffset` loops, one loop per stage of dependent reductions (softmax's sum needs its
max first). Every sub-expression is computed once (CSE) into a `tmpN`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .indexing import Index
from .ir import (
    Buffer,
    Constant,
    Expr,
    IndexValue,
    Load,
    Masked,
    Op,
    ReductionNode,
    ReductionResult,
    iter_exprs,
    reduction_identity,
)
from .scheduler import Kernel, NodeCode


@dataclass
class CodegenConfig:
    """Block-size policy; tests lower the persistent limit to exercise looped reductions."""

    max_xblock: int = 1024
    persistent_reduction_limit: int = 1024
    looped_rblock: int = 1024
    tile_elements: int = 4096


config = CodegenConfig()

TL_DTYPES = {
    torch.bool: "tl.int1",
    torch.uint8: "tl.uint8",
    torch.int8: "tl.int8",
    torch.int16: "tl.int16",
    torch.int32: "tl.int32",
    torch.int64: "tl.int64",
    torch.float16: "tl.float16",
    torch.bfloat16: "tl.bfloat16",
    torch.float32: "tl.float32",
    torch.float64: "tl.float64",
}

OP_TEMPLATES = {
    "add": "{0} + {1}",
    "sub": "{0} - {1}",
    "mul": "{0} * {1}",
    "truediv": "{0} / {1}",
    "truncdiv": "{0} // {1}",
    "truncmod": "{0} % {1}",
    "neg": "-{0}",
    "maximum": "tl.maximum({0}, {1}, propagate_nan=tl.PropagateNan.ALL)",
    "minimum": "tl.minimum({0}, {1}, propagate_nan=tl.PropagateNan.ALL)",
    "eq": "{0} == {1}",
    "ne": "{0} != {1}",
    "lt": "{0} < {1}",
    "le": "{0} <= {1}",
    "gt": "{0} > {1}",
    "ge": "{0} >= {1}",
    "and": "{0} & {1}",
    "or": "{0} | {1}",
    "xor": "{0} ^ {1}",
    "not": "{0} == 0",
    "bitnot": "~{0}",
    "where": "tl.where({0}, {1}, {2})",
    "abs": "tl.abs({0})",
    "exp": "tl.exp({0})",
    "exp2": "tl.exp2({0})",
    "log": "tl.log({0})",
    "log2": "tl.log2({0})",
    "sqrt": "tl.sqrt({0})",
    "rsqrt": "tl.rsqrt({0})",
    "sin": "tl.sin({0})",
    "cos": "tl.cos({0})",
    "erf": "tl.erf({0})",
    "floor": "tl.floor({0})",
    "ceil": "tl.ceil({0})",
    "sigmoid": "tl.sigmoid({0})",
}


@dataclass(frozen=True)
class ReductionKind:
    """Templates: fold a block into the accumulator (looped kernels), finish over axis 1.

    Fields: {acc} and {value}, and for arg reductions {acc_index} and {index}.
    """

    combine: str
    finish: str

    @property
    def with_index(self) -> bool:
        return "{acc_index}" in self.finish


REDUCTIONS = {
    "sum": ReductionKind("{acc} + {value}", "tl.sum({acc}, 1, keep_dims=True)"),
    "prod": ReductionKind("{acc} * {value}", "helpers.prod({acc}, 1)"),
    "max": ReductionKind(OP_TEMPLATES["maximum"].format("{acc}", "{value}"),
                         "helpers.max_with_nan({acc}, 1)"),
    "min": ReductionKind(OP_TEMPLATES["minimum"].format("{acc}", "{value}"),
                         "helpers.min_with_nan({acc}, 1)"),
    "argmax": ReductionKind("helpers.argmax_combine({acc}, {acc_index}, {value}, {index})",
                            "helpers.argmax({acc}, {acc_index}, 1)"),
    "argmin": ReductionKind("helpers.argmin_combine({acc}, {acc_index}, {value}, {index})",
                            "helpers.argmin({acc}, {acc_index}, 1)"),
}


def literal(value: bool | int | float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'
    return repr(value)


@dataclass
class KernelSource:
    """Generated source of one kernel, and how the wrapper launches it."""

    name: str
    source: str
    arguments: list[str]
    outputs: list[str]
    xnumel: int
    rnumel: int | None
    xblock: int
    rblock: int | None
    num_warps: int


def fit(head: str, args: list[str], indent: str = "", tail: str = "") -> str:
    """`head(args)tail`, wrapped like black would when longer than 100 columns."""
    line = f"{indent}{head}({', '.join(args)}){tail}"
    if len(line) <= 100:
        return line
    rows, row = [], ""
    for arg in args:
        if row and len(indent) + 4 + len(row) + len(arg) + 2 > 100:
            rows.append(row.rstrip())
            row = ""
        row += arg + ", "
    rows.append(row.rstrip().rstrip(","))
    body = "\n".join(f"{indent}    {r}" for r in rows)
    return f"{indent}{head}(\n{body}\n{indent}){tail}"


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


class KernelCodegen:
    """Writes one kernel: loads, CSE'd temporaries, reductions, masked stores."""

    def __init__(self, kernel: Kernel, name: str, buffers: dict[str, Buffer]) -> None:
        self.kernel = kernel
        self.name = name
        self.buffers = buffers
        shape = kernel.shape
        self.is_reduction = shape.is_reduction
        self.persistent = shape.rnumel <= config.persistent_reduction_limit
        self.inputs: dict[str, str] = {}
        self.outputs: dict[str, str] = {}
        self.lines: list[str] = []
        self.indent = 1
        self.scopes: list[dict[Expr, str]] = [{}]
        self.results: dict[str, str] = {}
        self.load_masks: list[str] = []
        self.reductions = {c.name: c for c in kernel.codes if isinstance(c.node, ReductionNode)}
        self.count = 0
        self.accumulators = 0

    def generate(self) -> KernelSource:
        if self.is_reduction and not self.persistent:
            self._looped()
        else:
            self._stores(self.kernel.codes)
        return self._assemble()

    # -- statements ---------------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def _stores(self, codes: list[NodeCode]) -> None:
        for code in codes:
            if code.name in self.kernel.stored:
                self._store(code)

    def _store(self, code: NodeCode) -> None:
        text = self._tensor(code.value)
        pointer = self._pointer(self._output(code.name), code.store_index, code.over_r)
        mask = "xmask & rmask" if code.over_r else "xmask"
        self.emit(f"tl.store({pointer}, {text}, {mask})")

    def _looped(self) -> None:
        """One `for roffset` loop per stage; row-wise stores after the last loop."""
        stages = self._stages()
        for stage in range(max(stages.values(), default=0) + 1):
            reductions = [self.reductions[n] for n in self.reductions if stages[n] == stage]
            stores = [
                c for c in self.kernel.codes
                if c.over_r and c.name in self.kernel.stored and stages[c.name] == stage
            ]
            self._loop(reductions, stores)
        self._stores([c for c in self.kernel.codes if not c.over_r])

    def _loop(self, reductions: list[NodeCode], stores: list[NodeCode]) -> None:
        accumulators = {code.name: self._accumulator(code) for code in reductions}
        self.emit("for roffset in range(0, rnumel, RBLOCK):")
        self.indent += 1
        self.scopes.append({})
        self.emit("rindex = roffset + tl.arange(0, RBLOCK)[None, :]")
        self.emit("rmask = rindex < rnumel")
        for code in reductions:
            kind = REDUCTIONS[code.node.kind]
            acc, acc_index = accumulators[code.name]
            fields = {"acc": acc, "acc_index": acc_index, "index": "rindex"}
            combined = kind.combine.format(value=self._masked_for_reduction(code), **fields)
            self.emit(f"{acc}, {acc_index} = {combined}" if kind.with_index
                      else f"{acc} = {combined}")
        for code in stores:
            self._store(code)
        self.scopes.pop()
        self.indent -= 1
        for code in reductions:
            acc, acc_index = accumulators[code.name]
            finish = REDUCTIONS[code.node.kind].finish.format(acc=acc, acc_index=acc_index)
            self.results[code.name] = self._assign(finish)

    def _accumulator(self, code: NodeCode) -> tuple[str, str]:
        """Names of the accumulator (and of its index, for arg reductions), initialized."""
        node = code.node
        assert isinstance(node, ReductionNode)
        acc, acc_index = f"acc{self.accumulators}", f"acc{self.accumulators}_index"
        start = literal(reduction_identity(node.kind, node.acc_dtype))
        self.emit(f"{acc} = tl.full([XBLOCK, RBLOCK], {start}, {TL_DTYPES[node.acc_dtype]})")
        if REDUCTIONS[node.kind].with_index:
            # Ties go to the lower index: the start value must lose every tie.
            self.emit(f"{acc_index} = tl.full([XBLOCK, RBLOCK], {2**31 - 1}, tl.int32)")
        self.accumulators += 1
        return acc, acc_index

    def _stages(self) -> dict[str, int]:
        """Loop of each node: a reduction runs after the reductions it reads."""
        stages: dict[str, int] = {}

        def stage_of(expr: Expr) -> int:
            reads = [e.buffer for e in iter_exprs(expr) if isinstance(e, ReductionResult)]
            return max((stages[b] + 1 for b in reads), default=0)

        for code in self.kernel.codes:
            body = code.reduced if code.reduced is not None else code.value
            stages[code.name] = stage_of(body)
        return stages

    def _masked_for_reduction(self, code: NodeCode) -> str:
        node = code.node
        assert code.reduced is not None and isinstance(node, ReductionNode)
        text = self._tensor(code.reduced)
        start = literal(reduction_identity(node.kind, node.acc_dtype))
        return self._assign(f"tl.where(xmask & rmask, {text}, {start})")

    def _reduction_result(self, name: str) -> str:
        if name not in self.results:
            # Persistent kernels reduce on first use; looped ones did it after their loop.
            # A first use under a Masked (a cat) must not mask the whole row's loads.
            code = self.reductions[name]
            finish = REDUCTIONS[code.node.kind].finish
            outer_masks, self.load_masks = self.load_masks, []
            masked = self._masked_for_reduction(code)
            self.results[name] = self._assign(finish.format(acc=masked, acc_index="rindex"))
            self.load_masks = outer_masks
        return self.results[name]

    # -- expressions --------------------------------------------------------------

    def expr(self, value: Expr) -> str:
        if isinstance(value, Constant):
            return literal(value.value)
        for scope in reversed(self.scopes):
            if value in scope:
                return scope[value]
        if isinstance(value, ReductionResult):
            return self._reduction_result(value.buffer)
        if isinstance(value, Masked):
            name = self._masked(value)
        else:
            name = self._assign(self._text(value))
        self.scopes[-1][value] = name
        return name

    def _masked(self, value: Masked) -> str:
        """Loads under the mask only; a fresh scope keeps them apart from unmasked ones."""
        mask = self.expr(value.mask)
        self.scopes.append({})
        self.load_masks.append(mask)
        text = self._tensor(value.value)
        self.load_masks.pop()
        self.scopes.pop()
        return self._assign(f"tl.where({mask}, {text}, {literal(value.other.value)})")

    def _text(self, value: Expr) -> str:
        if isinstance(value, Load):
            pointer = f"{self._input(value.buffer)} + {_parenthesized(value.index)}"
            mask = self._mask(value.index)
            return f"tl.load({pointer}, {mask})" if mask else f"tl.load({pointer})"
        if isinstance(value, IndexValue):
            return f"{self._index_tensor(value.index)}.to({TL_DTYPES[value.dtype]})"
        assert isinstance(value, Op)
        if value.name == "cast":
            arg = self.expr(value.args[0])
            if value.dtype == torch.bool:
                return f"{arg} != 0"
            return f"{arg}.to({TL_DTYPES[value.dtype]})"
        args = [self.expr(a) for a in value.args]
        if all(isinstance(a, Constant) for a in value.args):
            # Only constants: make one a tensor, so the result is a typed tensor too.
            args[0] = self._tensor_constant(value.args[0])  # type: ignore[arg-type]
        return OP_TEMPLATES[value.name].format(*args)

    def _assign(self, text: str) -> str:
        name = f"tmp{self.count}"
        self.count += 1
        self.emit(f"{name} = {text}")
        return name

    def _tensor(self, value: Expr) -> str:
        """A value that must be a tensor (stored, reduced, selected), even if constant."""
        return self._tensor_constant(value) if isinstance(value, Constant) else self.expr(value)

    def _tensor_constant(self, value: Constant) -> str:
        return f"tl.full([1], {literal(value.value)}, {TL_DTYPES[value.dtype]})"

    def _input(self, buffer: str) -> str:
        return self.inputs.setdefault(buffer, f"in_ptr{len(self.inputs)}")

    def _output(self, buffer: str) -> str:
        return self.outputs.setdefault(buffer, f"out_ptr{len(self.outputs)}")

    def _index_tensor(self, index: Index) -> str:
        if index.variables():
            return f"({index})"
        return f"tl.full([1], {index.const}, tl.int32)"

    def _mask(self, index: Index) -> str | None:
        names = index.variables()
        if not names:
            return None  # one fixed element: always in bounds, and a scalar pointer
        masks = [m for v, m in (("xindex", "xmask"), ("rindex", "rmask")) if v in names]
        return " & ".join(masks + self.load_masks) or None

    def _pointer(self, arg: str, index: Index, over_r: bool) -> str:
        """A pointer block as large as the stored values, even where the index is constant."""
        pointer = f"{arg} + {_parenthesized(index)}"
        needed = {"xindex", "rindex"} if over_r else {"xindex"}
        if needed <= index.variables():
            return pointer
        if not self.is_reduction:
            shape = "[XBLOCK]"
        else:
            shape = "[XBLOCK, RBLOCK]" if over_r else "[XBLOCK, 1]"
        return f"tl.broadcast_to({pointer}, {shape})"

    # -- signature and launch -----------------------------------------------------

    def _assemble(self) -> KernelSource:
        shape = self.kernel.shape
        arguments = list(self.inputs) + list(self.outputs)
        pointers = list(self.inputs.values()) + list(self.outputs.values())
        xblock, rblock, warps = self._blocks()
        params = [*pointers, "xnumel"]
        constexprs = ["XBLOCK: tl.constexpr"]
        if self.is_reduction:
            params.append("rnumel")
            constexprs.append("RBLOCK: tl.constexpr")
        header = ["@triton.jit", fit(f"def {self.name}", params + constexprs, tail=":")]
        header += self._prologue()
        return KernelSource(
            self.name,
            "\n".join(header + self.lines) + "\n",
            arguments,
            list(self.outputs),
            shape.xnumel,
            shape.rnumel if self.is_reduction else None,
            xblock,
            rblock,
            warps,
        )

    def _prologue(self) -> list[str]:
        start = "tl.program_id(0)"
        if self._needs_int64():
            start += ".to(tl.int64)"
        lines = [f"xoffset = {start} * XBLOCK"]
        if self.is_reduction:
            lines += [
                "xindex = (xoffset + tl.arange(0, XBLOCK))[:, None]",
                "xmask = xindex < xnumel",
            ]
            if self.persistent:
                lines += ["rindex = tl.arange(0, RBLOCK)[None, :]", "rmask = rindex < rnumel"]
        else:
            lines += ["xindex = xoffset + tl.arange(0, XBLOCK)", "xmask = xindex < xnumel"]
        return ["    " + line for line in lines]

    def _needs_int64(self) -> bool:
        """32-bit offsets overflow past 2**31 elements of any buffer this kernel touches."""
        limit = 2**31 - 1
        names = set(self.inputs) | set(self.outputs)
        extents = [
            1 + sum((s - 1) * abs(st) for s, st in zip(b.sizes, b.strides, strict=True))
            for b in (self.buffers[n] for n in names)
        ]
        shape = self.kernel.shape
        return max(extents + [shape.xnumel * shape.rnumel]) > limit

    def _blocks(self) -> tuple[int, int | None, int]:
        shape = self.kernel.shape
        if not self.is_reduction:
            xblock = min(next_power_of_2(shape.xnumel), config.max_xblock)
            return xblock, None, 4
        if self.persistent:
            rblock = next_power_of_2(shape.rnumel)
        else:
            rblock = config.looped_rblock
        xblock = min(next_power_of_2(shape.xnumel), max(config.tile_elements // rblock, 1))
        return xblock, rblock, 8 if xblock * rblock >= 2048 else 4


def _parenthesized(index: Index) -> str:
    """Index text ready to follow `ptr +`: single div/mod atoms print their own parentheses."""
    text = str(index)
    single_atom = index.const == 0 and len(index.terms) == 1 and index.terms[0][1] == 1
    return text if single_atom and text.startswith("(") else f"({text})"


def kernel_name(kernel: Kernel, index: int) -> str:
    if not kernel.shape.is_reduction:
        prefix = "poi"
    elif kernel.shape.rnumel <= config.persistent_reduction_limit:
        prefix = "per"
    else:
        prefix = "red"
    origins = sorted({o.lstrip("_") for code in kernel.codes for o in code.node.origins})
    return f"triton_{prefix}_fused_{'_'.join(origins[:5])}_{index}"
