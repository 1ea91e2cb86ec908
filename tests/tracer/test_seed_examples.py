"""The seed's examples print the seed's formats (acceptance of issue #3): graphs,
guards and recompiles as golden text shared by every CPython, and the modified bytecode
of `mse` as per-version golden text."""

from __future__ import annotations

import pytest
from minidynamo import demo
from minidynamo.demo import SEED_EXAMPLES, Example


@pytest.mark.parametrize("example", SEED_EXAMPLES, ids=lambda example: example.name)
def test_seed_example_output(example: Example, golden_common) -> None:
    assert demo.run_example(example) == golden_common


def test_mse_modified_bytecode(golden_version) -> None:
    mse = SEED_EXAMPLES[0]
    bytecode = Example("mse_bytecode", mse.filename, ("bytecode",), mse.source)
    assert demo.run_example(bytecode) == golden_version


def test_seed_mse_graph_has_seed_node_names() -> None:
    text = demo.run_example(SEED_EXAMPLES[0])
    assert "def forward(self, l_x_: torch.Tensor, l_y_: torch.Tensor):" in text
    assert "# File: example.py:5, code: z = (x - y) ** 2" in text
    assert "sub = l_x_ - l_y_\n    z = sub ** 2" in text
    assert "sum_1 = z.sum()\n    return (sum_1,)" in text


def test_seed_specialization_keeps_only_the_taken_path() -> None:
    text = demo.run_example(SEED_EXAMPLES[1])
    assert "mul = 3 * y" in text
    assert "truediv" not in text


def test_seed_guards_and_recompile_reason() -> None:
    guards = demo.run_example(SEED_EXAMPLES[3])
    assert "___check_type_id(L['b'], str)\nL['b'] == 'Hello'" in guards
    recompiles = demo.run_example(SEED_EXAMPLES[4])
    assert recompiles == (
        "Recompiling function fn in script.py:3\n"
        "    triggered by the following guard failure(s):\n"
        "    - L['b'] == 'Hello'\n"
    )
    getitem = demo.run_example(SEED_EXAMPLES[5])
    assert "len(L['l']) == 2" in getitem and "L['l'][0] == 'Hi'" in getitem
