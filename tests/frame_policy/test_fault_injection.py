"""Safe by default (DESIGN.md): an internal failure in any stage of converting a frame
runs the frame eagerly, with the same result, and the log names the stage."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo import builder, codegen, guards, resume
from minidynamo.opcodes import operators


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def fn(x, n):
    y = x + n
    print("between graphs")
    return y * 2


def injected(*args, **kwargs):
    raise RuntimeError("injected fault")


def failing_backend(gm, example_inputs):
    raise RuntimeError("injected fault")


STAGES = {
    "builder": (builder, "is_constant_value"),
    "opcodes.operators": (operators, "apply"),
    "guards": (guards.CheckFunction, "_compile"),
    "codegen": (codegen, "assemble"),
    "resume": (resume, "_resume_code"),
}


@pytest.mark.parametrize("stage", [*STAGES, "backend"])
def test_a_fault_in_each_stage_runs_the_frame_eagerly(stage, monkeypatch, capsys):
    backend = "eager"
    if stage == "backend":
        backend = failing_backend
    else:
        monkeypatch.setattr(*STAGES[stage], injected)
    x = torch.randn(3)
    result = minidynamo.compile(fn, backend=backend)(x, 2)
    assert torch.equal(result, (x + 2) * 2)
    printed = capsys.readouterr()
    assert printed.out == "between graphs\n"
    assert f"internal error in {stage} while converting fn" in printed.err, printed.err
    assert "RuntimeError: injected fault" in printed.err
