"""The flat check function a cache entry's guards compile to (issue 15): it reads each
source once, evaluates type checks before values and tensors, checks all tensors in one
call, and stays sound: every change it must see still recompiles."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo import convert_frame
from minidynamo.guards import CheckFunction, GuardSet
from tracer_harness import compile_count


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def only_entry() -> CheckFunction:
    (code,) = convert_frame.cached_codes()
    (entry,) = convert_frame.cache_entries(code)
    return entry.check_fn


class MLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin1 = torch.nn.Linear(4, 8)
        self.lin2 = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.lin2(torch.relu(self.lin1(x)))


def run_model(model, x):
    return model(x)


def test_an_empty_guard_list_makes_a_valid_function():
    check = GuardSet().compile(run_model.__code__)
    assert check.guards == []
    assert check((None, None), {}, None)


def test_each_source_is_read_once():
    minidynamo.compile(run_model)(MLP(), torch.randn(3, 4))
    source = only_entry().source
    assert source.count("args[0]") == 1
    assert source.count("._modules\n") == 1  # L['model']._modules, shared by both layers
    assert source.count("._parameters\n") == 2  # one per layer
    assert source.count("___tensors.check(") == 1  # input and four parameters, one call


def test_type_checks_come_before_values_and_tensors():
    minidynamo.compile(lambda x, n: x * n)(torch.randn(3), 2)
    lines = only_entry().source.splitlines()
    type_line = next(i for i, line in enumerate(lines) if "type(" in line)
    value_line = next(i for i, line in enumerate(lines) if " == " in line)
    tensor_line = next(i for i, line in enumerate(lines) if "___tensors" in line)
    assert type_line < value_line < tensor_line


def test_log_text_is_unchanged_by_the_compiled_order():
    minidynamo.compile(lambda x, n: x * n)(torch.randn(3), 2)
    guards = [guard for guard in only_entry().guards if not guard.ambient]
    assert [guard.text for guard in guards] == [
        "___check_type_id(L['n'], int)",
        "L['n'] == 2",
        "check_tensor(L['x'], torch.float32, device=cpu, requires_grad=False, size=[3], "
        "stride=[1])",
    ]


def test_failure_reason_names_the_tensor_that_changed():
    x = torch.randn(3)
    minidynamo.compile(lambda x, y: x + y)(x, torch.randn(3))
    reason = only_entry().failure_reason((x, torch.randn(4)), {}, None)
    assert reason is not None and reason.startswith("check_tensor(L['y']")


def calls(fn, *argument_lists):
    compiled = minidynamo.compile(fn)
    counts = []
    for args in argument_lists:
        assert torch.allclose(compiled(*args), fn(*args))
        counts.append(compile_count())
    return counts


def test_parameter_swapped_for_one_alike_hits_and_uses_the_new_values():
    model, x = MLP(), torch.randn(3, 4)
    compiled = minidynamo.compile(run_model)
    compiled(model, x)
    model.lin1.weight = torch.nn.Parameter(torch.randn(8, 4))
    assert torch.allclose(compiled(model, x), model(x))
    assert compile_count() == 1


@pytest.mark.parametrize(
    "change",
    [
        lambda m: setattr(m.lin1, "weight", torch.nn.Parameter(torch.randn(4, 8).t())),
        lambda m: m.lin2.bias.requires_grad_(False),
        lambda m: setattr(m, "lin2", torch.nn.Linear(8, 2, bias=False)),
        lambda m: setattr(m, "lin1", torch.nn.Sequential(torch.nn.Linear(4, 8))),
    ],
    ids=["parameter_stride", "requires_grad_in_place", "bias_removed", "submodule_type"],
)
def test_module_argument_change_recompiles(change):
    model, x = MLP(), torch.randn(3, 4)
    compiled = minidynamo.compile(run_model)
    compiled(model, x)
    change(model)
    assert torch.allclose(compiled(model, x), model(x))
    assert compile_count() == 2


def test_another_module_instance_alike_hits():
    x = torch.randn(3, 4)
    assert calls(run_model, (MLP(), x), (MLP(), x)) == [1, 1]


def test_tensors_in_a_list_recompile_on_any_change_and_on_aliasing():
    def total(xs):
        return torch.stack(xs).sum(0)

    xs = [torch.randn(3) for _ in range(8)]
    changed = [*xs[:5], torch.randn(3, dtype=torch.float64), *xs[6:]]
    aliased = [*xs[:7], xs[0]]
    assert calls(total, (xs,), ([x.clone() for x in xs],), (changed,), (aliased,)) == [1, 1, 2, 3]


def test_mark_dynamic_after_compiling_recompiles():
    fn = lambda x: x * 2  # noqa: E731
    compiled = minidynamo.compile(fn)
    compiled(torch.randn(3))
    marked = torch.randn(3)
    minidynamo.mark_dynamic(marked, 0)
    assert torch.equal(compiled(marked), marked * 2)
    assert compile_count() == 2


def test_closure_cell_and_global_are_read_where_they_live():
    factor = 2

    def fn(x):
        return x * factor + torch.ones(1)

    minidynamo.compile(fn)(torch.randn(3))
    source = only_entry().source
    assert "closure[0].cell_contents" in source
    assert "G['torch']" in source
