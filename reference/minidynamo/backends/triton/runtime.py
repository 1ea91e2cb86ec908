"""Runtime: the callable the backend returns; compiles per input signature and runs.

Top of the backend (see __init__.py). On each call, a CompiledGraph looks up the
specialization for the arguments' shapes, strides, dtypes and scalar values; on a miss it
runs the pipeline (to_aten_graph -> GraphLowering -> schedule -> generate), writes the
output code to the cache dir (triton.jit reads kernel source from a real file), imports it
and keeps its `call`. Whatever it cannot compile runs the graph eagerly, and says why.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from torch import fx
from torch.utils import _pytree as pytree

from . import pointwise_ops, reduction_ops, view_ops  # noqa: F401  (they fill LOWERINGS)
from .ir import View
from .lowering import GraphLowering, to_aten_graph
from .scheduler import schedule
from .wrapper import OutputCode, generate

log = logging.getLogger("minidynamo.output_code")


@dataclass
class Stats:
    """Counters over every graph compiled in this process (reset() between experiments)."""

    graphs_compiled: int = 0
    kernels: int = 0
    extern_calls: int = 0
    eager_fallbacks: int = 0

    def reset(self) -> None:
        self.graphs_compiled = self.kernels = self.extern_calls = self.eager_fallbacks = 0


stats = Stats()


def reinterpret(t: torch.Tensor, size: Sequence[int], stride: Sequence[int], offset: int):
    """A strided view of `t`'s memory; offset counts elements from t's first element."""
    return torch.as_strided(t, size, stride, t.storage_offset() + offset)


def with_layout(t: torch.Tensor, size: Sequence[int], stride: Sequence[int]) -> torch.Tensor:
    """`t` itself if it has the predicted layout, else a copy that has it."""
    if tuple(t.shape) != tuple(size):
        raise RuntimeError(f"extern result has shape {tuple(t.shape)}, expected {tuple(size)}")
    if tuple(t.stride()) == tuple(stride) or t.numel() <= 1:
        return t
    return torch.empty_strided(size, stride, dtype=t.dtype, device=t.device).copy_(t)


def cache_dir() -> Path:
    default = Path(tempfile.gettempdir()) / f"minidynamo_triton_{os.getuid()}"
    path = Path(os.environ.get("MINIDYNAMO_TRITON_CACHE", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


def load_module(source: str) -> ModuleType:
    """Import output code from <cache>/<sha256 of source>.py (written once, atomically)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:32]
    path = cache_dir() / f"out_{digest}.py"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(source)
        os.replace(partial, path)
    spec = importlib.util.spec_from_file_location(f"minidynamo_output_{digest}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_graph(gm: fx.GraphModule, args: Sequence[object]) -> tuple[OutputCode, Callable]:
    """The whole pipeline for one input signature."""
    aten_graph, out_spec = to_aten_graph(gm, args)
    graph = GraphLowering(aten_graph)
    graph.run(args)
    for reason in graph.extern_reasons:
        log.debug("extern call: %s", reason)
    steps = schedule(graph.nodes, _output_views(graph.outputs))
    code = generate(graph, steps)
    module = load_module(code.source)
    for name, value in code.constants.items():
        setattr(module, name, value)
    log.debug("output code (%d kernels):\n%s", code.kernel_count, code.source)
    call = module.call
    return code, lambda *inputs: pytree.tree_unflatten(call(*inputs), out_spec)


def _output_views(outputs: Any) -> list[View]:
    return [leaf for leaf in pytree.tree_leaves(outputs) if isinstance(leaf, View)]


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on")


def why_not_compile(args: Sequence[object]) -> str | None:
    """A reason to run these arguments eagerly, or None."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        return "inputs require grad (the backend compiles inference graphs)"
    devices = {t.device.type for t in tensors}
    if len(devices) > 1:
        return f"inputs on several devices: {sorted(devices)}"
    if devices - {"cuda"} and not (devices == {"cpu"} and interpreting()):
        return f"no Triton device for {sorted(devices)} (TRITON_INTERPRET=1 runs on the CPU)"
    return None


def signature(args: Sequence[object]) -> tuple:
    """What a specialization depends on: layouts of tensors, values of everything else."""
    key: list[object] = []
    for a in args:
        if isinstance(a, torch.Tensor):
            key.append((tuple(a.shape), a.stride(), a.dtype, a.device, a.requires_grad))
        else:
            key.append((type(a), a))
    return tuple(key)


class CompiledGraph:
    """The backend's result: call it like the graph; it specializes on first sight."""

    def __init__(self, gm: fx.GraphModule) -> None:
        self.gm = gm
        self.specializations: dict[tuple, Callable] = {}
        self.output_code: OutputCode | None = None
        self.fallback_reason: str | None = None

    @property
    def kernel_count(self) -> int | None:
        """Kernels launched per call by the most recent specialization (None: eager)."""
        return self.output_code.kernel_count if self.output_code else None

    def __call__(self, *args: object) -> Any:
        key = signature(args)
        run = self.specializations.get(key)
        if run is None:
            run = self.specializations[key] = self._specialize(args)
        return run(*args)

    def _specialize(self, args: Sequence[object]) -> Callable:
        reason = why_not_compile(args)
        if reason is not None:
            return self._eager(reason)
        try:
            code, call = compile_graph(self.gm, args)
        except Exception as error:  # noqa: BLE001  (safe by default: never crash, run eagerly)
            return self._eager(f"compilation failed: {type(error).__name__}: {error}")
        self.output_code = code
        self.fallback_reason = None
        stats.graphs_compiled += 1
        stats.kernels += code.kernel_count
        stats.extern_calls += code.extern_count
        return self._checked_first_call(call)

    def _eager(self, reason: str) -> Callable:
        log.info("running the graph eagerly: %s", reason)
        stats.eager_fallbacks += 1
        self.fallback_reason = reason
        self.output_code = None
        return self.gm

    def _checked_first_call(self, call: Callable) -> Callable:
        """Run the output code; if its first run fails (a kernel that does not build), go eager."""
        checked = False

        def run(*args: object) -> Any:
            nonlocal checked
            if checked:
                return call(*args)
            try:
                result = call(*args)
            except Exception as error:  # noqa: BLE001
                eager = self._eager(f"first run failed: {type(error).__name__}: {error}")
                self.specializations[signature(args)] = eager
                return eager(*args)
            checked = True
            return result

        return run
