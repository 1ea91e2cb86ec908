"""Guards are sound: every change the compiled code depends on recompiles (and the
result stays right), and unchanged inputs hit the cache (seed "Guards", "Source")."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo import config, convert_frame
from tracer_harness import compile_count

SCALE = 2


def scaled(x):
    return x * SCALE


def helper(x, k=2):
    return x * k


def uses_helper(x):
    return helper(x)


class Config:
    def __init__(self, factor):
        self.factor = factor


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def calls(fn, *argument_lists):
    """Call compiled `fn` on each argument list; the compile count after each call."""
    compiled = minidynamo.compile(fn)
    counts = []
    for args in argument_lists:
        assert_same(compiled(*args), fn(*args))
        counts.append(compile_count())
    return counts


def assert_same(a, b):
    if isinstance(a, torch.Tensor):
        assert torch.equal(a, b)
    else:
        assert a == b


def test_same_inputs_hit_the_cache():
    x = torch.randn(3)
    assert calls(lambda x, n: x * n, (x, 2), (x, 2), (torch.randn(3), 2)) == [1, 1, 1]


def test_constant_argument_change_recompiles():
    x = torch.randn(3)
    assert calls(lambda x, n: x * n, (x, 2), (x, 3), (x, 2)) == [1, 2, 2]


def test_argument_type_change_recompiles():
    x = torch.randn(3)
    assert calls(lambda x, n: x * n, (x, 1), (x, 1.0), (x, True)) == [1, 2, 3]


def test_global_change_recompiles():
    global SCALE
    x = torch.randn(3)
    compiled = minidynamo.compile(scaled)
    assert torch.equal(compiled(x), x * 2)
    SCALE = 5
    try:
        assert torch.equal(compiled(x), x * 5)
        assert compile_count() == 2
    finally:
        SCALE = 2


def test_list_length_change_recompiles():
    # Items are guarded too (seed: `L['l'][1] == 'Hello'`), so only equal lists hit.
    x = torch.randn(3)
    fn = lambda x, items: x * len(items)  # noqa: E731
    assert calls(fn, (x, [1, 2]), (x, [1, 2, 3]), (x, [1, 2])) == [1, 2, 2]


def test_list_item_change_recompiles():
    x = torch.randn(3)
    assert calls(lambda x, items: x * items[0], (x, [1, 2]), (x, [5, 2])) == [1, 2]


def test_dict_keys_change_recompiles():
    x = torch.randn(3)
    fn = lambda x, d: x * len(d)  # noqa: E731
    assert calls(fn, (x, {"a": 1}), (x, {"b": 1}), (x, {"a": 1})) == [1, 2, 2]


@pytest.mark.parametrize(
    "other",
    [
        torch.randn(3, dtype=torch.float64),
        torch.randn(4),
        torch.randn(6)[::2],
        torch.randn(3, requires_grad=True),
        torch.nn.Parameter(torch.randn(3)),
    ],
    ids=["dtype", "shape", "stride", "requires_grad", "tensor_type"],
)
def test_tensor_property_change_recompiles(other):
    compiled = minidynamo.compile(lambda x: (x * 2).sum())
    compiled(torch.randn(3))
    result = compiled(other)
    assert compile_count() == 2
    assert torch.allclose(result, (other * 2).sum())


def test_object_attribute_change_recompiles():
    x = torch.randn(3)
    fn = lambda x, cfg: x * cfg.factor  # noqa: E731
    assert calls(fn, (x, Config(2)), (x, Config(2)), (x, Config(3))) == [1, 1, 2]


def test_function_default_change_recompiles():
    x = torch.randn(3)
    compiled = minidynamo.compile(uses_helper)
    compiled(x)
    helper.__defaults__ = (7,)
    try:
        assert torch.equal(compiled(x), x * 7)
        assert compile_count() == 2
    finally:
        helper.__defaults__ = (2,)


def test_closure_content_change_recompiles():
    factor = 2

    def fn(x):
        return x * factor

    compiled = minidynamo.compile(fn)
    x = torch.randn(3)
    compiled(x)
    factor = 4
    assert torch.equal(compiled(x), x * 4)
    assert compile_count() == 2


def test_aliased_inputs_recompile_when_no_longer_aliased():
    x, y = torch.randn(3), torch.randn(3)
    compiled = minidynamo.compile(lambda a, b: a + b)
    assert torch.equal(compiled(x, x), x + x)
    assert torch.equal(compiled(x, y), x + y)
    assert compile_count() == 2


def test_guard_text_in_seed_style():
    minidynamo.compile(lambda x, b, items: x * len(b) * items[0])(torch.randn(4, 3), "Hi", [2])
    (entry,) = convert_frame.cache_entries(convert_frame.cached_codes()[0])
    # Dynamo's order: locals by the length of their name, then the name; a source's own
    # guards before those of the sources reached from it. The ambient global-state guards,
    # not printed, come first.
    ambient = [guard.text for guard in entry.check_fn.guards if guard.ambient]
    assert entry.check_fn.guards[: len(ambient)] == [g for g in entry.check_fn.guards if g.ambient]
    assert ambient == [
        "GLOBAL_STATE changed: grad_mode",
        "GLOBAL_STATE changed: default_dtype",
        "GLOBAL_STATE changed: deterministic_algorithms",
        "GLOBAL_STATE changed: autocast(cpu)_enabled",
    ]
    assert [guard.text for guard in entry.check_fn.guards[len(ambient) :]] == [
        "___check_type_id(L['b'], str)",
        "L['b'] == 'Hi'",
        "check_tensor(L['x'], torch.float32, device=cpu, requires_grad=False, size=[4, 3], "
        "stride=[3, 1])",
        "___check_type_id(L['items'], list)",
        "len(L['items']) == 1",
        "___check_type_id(L['items'][0], int)",
        "L['items'][0] == 2",
    ]


def test_recompile_limit_runs_eagerly_with_a_warning(capsys):
    # dynamic=False: automatic dynamic would make `n` a symbol on the second compile.
    fn = minidynamo.compile(lambda x, n: x + n, dynamic=False)
    x = torch.randn(3)
    for n in range(config.recompile_limit + 3):
        assert torch.equal(fn(x, n), x + n)
    assert compile_count() == config.recompile_limit
    err = capsys.readouterr().err
    assert err.count("hit the recompile limit (8)") == 1
    assert "Last guard failure: L['n'] == 7" in err


def test_unused_arguments_add_no_guards():
    minidynamo.compile(lambda x, unused: x + 1)(torch.randn(3), "anything")
    (code,) = convert_frame.cached_codes()
    entries = convert_frame.cache_entries(code)
    assert all("unused" not in guard.text for guard in entries[0].check_fn.guards)


def test_instance_attribute_presence_change_recompiles():
    # hasattr / getattr with a default read whether the instance has the attribute.
    def fn(x, cfg):
        bonus = getattr(cfg, "bonus", 0)
        return x * cfg.factor + bonus if hasattr(cfg, "factor") else x

    with_bonus = Config(2)
    with_bonus.bonus = 5
    x = torch.randn(3)
    assert calls(fn, (x, Config(2)), (x, Config(2)), (x, with_bonus), (x, Config(2))) == [
        1,
        1,
        2,
        2,
    ]
    (entry, _) = convert_frame.cache_entries(fn.__code__)
    assert "not hasattr(L['cfg'], 'bonus')" in [guard.text for guard in entry.check_fn.guards]


def test_deleted_attribute_missing_on_next_call_is_not_deleted_again():
    def fn(x, cfg):
        del cfg.factor
        return x + 1

    compiled = minidynamo.compile(fn)
    x = torch.randn(3)
    first = Config(2)
    assert torch.equal(compiled(x, first), x + 1)
    assert not hasattr(first, "factor")
    with pytest.raises(AttributeError):  # as eagerly: the guard on cfg.factor fails
        compiled(x, first)


def test_namedtuple_class_change_recompiles():
    import collections

    first = collections.namedtuple("First", ["a", "b"])
    second = collections.namedtuple("Second", ["a", "b"])
    x = torch.randn(3)
    fn = lambda x, p: x * p.a + p.b  # noqa: E731
    assert calls(fn, (x, first(2, 3)), (x, first(2, 3)), (x, second(2, 3))) == [1, 1, 2]


class Scaled:
    factor = 2

    def __init__(self, x):
        self.x = x


def scaled_object(x):
    return Scaled(x).x * Scaled.factor + Scaled(x).factor


def test_class_attribute_read_through_new_object_change_recompiles():
    compiled = minidynamo.compile(scaled_object)
    x = torch.randn(3)
    assert torch.equal(compiled(x), scaled_object(x))
    Scaled.factor = 5
    try:
        assert torch.equal(compiled(x), scaled_object(x))
        assert compile_count() == 2
    finally:
        Scaled.factor = 2


def test_module_gaining_a_parameter_recompiles():
    # `parameters()` is answered at trace time: the registries it walked are guarded.
    model = torch.nn.Sequential(torch.nn.Linear(3, 3))

    def total(x, m):
        return x * sum(p.sum() for p in m.parameters())

    x = torch.randn(3)
    assert calls(total, (x, model), (x, model)) == [1, 1]
    model[0].register_parameter("extra", torch.nn.Parameter(torch.ones(2)))
    model.append(torch.nn.Linear(3, 1))
    assert calls(total, (x, model)) == [2]


# Lazily guarded scalars (variables/lazy.py): values rebuilt from a global after the graph
# must be the values the trace saw, whatever the replayed stores changed.

COUNT = 0


def keeps_global_in_returned_closure(x):
    global COUNT
    seen = COUNT
    COUNT = COUNT + 7

    def read():
        return seen

    return x + 1, read


def test_lazy_global_in_a_cell_stored_after_the_replay_keeps_its_old_value():
    global COUNT
    compiled = minidynamo.compile(keeps_global_in_returned_closure)
    for expected in (0, 7, 14):
        _, read = compiled(torch.ones(2))
        assert read() == expected
    assert COUNT == 21


def counts_and_branches(x):
    global COUNT
    COUNT += 1
    if COUNT % 2:
        return x + 1
    return x - 1


def test_lazy_global_read_by_a_branch_is_guarded_on_its_value():
    global COUNT
    COUNT = 0
    compiled = minidynamo.compile(counts_and_branches)
    x = torch.ones(2)
    results = [compiled(x) for _ in range(4)]
    assert [float(r[0]) for r in results] == [2.0, 0.0, 2.0, 0.0]
    assert COUNT == 4
    assert compile_count() == 4  # guarded on the count it read: one entry per count
