"""The suite's own machinery: expectation files, structural forms, comparisons, adapters.

Independent of `--impl`; the example adapter test shows what an adapter for another
implementation gets from the suite (see conformance/README.md).
"""

from __future__ import annotations

import json
import operator
import sys
from pathlib import Path

import pytest
import torch
import torch.fx

from conformance import expectations
from conformance.adapters import AdapterUnavailable, load
from conformance.adapters.eager_example import EagerExampleAdapter
from conformance.adapters.minidynamo import _failures, dynamo_reason_id
from conformance.adapters.torch_dynamo import failure_reason, guard_lines
from conformance.cases import load_all
from conformance.checks import DIFFERS, KNOWN, NOT_AVAILABLE, PASSED, STALE, CheckResult
from conformance.observations import canonical, structure_of
from conformance.report import summary_tables
from conformance.runner import differences, same_exception, snapshot
from conformance.spec import TAGS, Call, Expect, T, case, materialize
from conformance.suite import Suite

SAMPLE = """\
# a comment

["group.case_a"]
eager = "a reason with \\"quotes\\" and ünïcode"
guards = "another reason"

["group.case_b"]
frames = "why"
"""


def test_expectation_file_round_trips() -> None:
    known = expectations.parse(SAMPLE)
    assert known == {
        "group.case_a": {"eager": 'a reason with "quotes" and ünïcode', "guards": "another reason"},
        "group.case_b": {"frames": "why"},
    }
    assert expectations.parse(expectations.render("impl", known)) == known


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is new in CPython 3.11")
@pytest.mark.parametrize("impl", ["torch_dynamo", "eager_example", "minidynamo"])
def test_expectation_files_are_toml(impl: str) -> None:
    import tomllib

    path = expectations.path_for(impl)
    if path.exists():
        text = path.read_text(encoding="utf-8")
        assert tomllib.loads(text) == expectations.parse(text)
        assert expectations.render(impl, expectations.parse(text)) == text


def test_expectation_file_rejects_other_toml() -> None:
    with pytest.raises(ValueError, match="line 2"):
        expectations.parse('["a.b"]\nframes = 3\n')


def test_updated_expectations_keep_reasons_and_drop_fixed_entries() -> None:
    known = {"g.kept": {"ops": "why"}, "g.fixed": {"ops": "why"}, "g.gone": {"ops": "why"}}
    known["g.not_run"] = {"frames": "why"}
    results = {
        "g.kept": {"ops": (True, "new detail")},
        "g.fixed": {"ops": (False, "")},
        "g.new": {"guards": (True, "expected x\nobserved y")},
    }
    registered = {"g.kept", "g.fixed", "g.new", "g.not_run"}
    assert expectations.updated(known, results, registered) == {
        "g.kept": {"ops": "why"},
        "g.new": {"guards": expectations.TODO + "expected x / observed y"},
        "g.not_run": {"frames": "why"},
    }


def test_per_cpython_entries_apply_to_their_version_only() -> None:
    this, other = expectations.VERSION, "py39"
    checks = {f"golden_{this}": "this CPython", f"golden_{other}": "another", "ops": "all"}
    assert expectations.reason_for(checks, "golden") == "this CPython"
    assert expectations.reason_for(checks, "ops") == "all"
    assert expectations.reason_for({f"golden_{other}": "another"}, "golden") is None
    text = f'["g.a"]\ngolden_{this} = "why"\n'
    assert expectations.parse(text) == {"g.a": {f"golden_{this}": "why"}}
    known = {"g.a": dict(checks)}
    results = {"g.a": {"golden": (False, ""), "ops": (True, "detail")}}
    assert expectations.updated(known, results, {"g.a"}) == {
        "g.a": {f"golden_{other}": "another", "ops": "all"}
    }


def test_structure_is_independent_of_node_names() -> None:
    gm = torch.fx.symbolic_trace(lambda x, y: ((x - y) ** 2).sum())
    assert structure_of(gm) == (
        "%0 = placeholder x",
        "%1 = placeholder y",
        "%2 = call_function sub(%0, %1)",
        "%3 = call_function pow(%2, 2)",
        "%4 = call_method sum(%3)",
        "output %4",
    )


def test_structure_renumbers_symbols() -> None:
    graph = torch.fx.Graph()
    size = graph.placeholder("s97")
    x = graph.placeholder("L_x_")
    graph.output((graph.call_function(operator.mul, (size, x)),))
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)
    assert structure_of(gm) == (
        "%0 = placeholder s0",
        "%1 = placeholder l_x_",
        "%2 = call_function mul(%0, %1)",
        "output (%2,)",
    )


def test_canonical_structure_orders_placeholders_by_first_use() -> None:
    # Made in argument order (an eager builder) or in order of use (a lazy one, as
    # Dynamo's): the same structure.
    def graph_with_inputs(*names: str) -> torch.fx.GraphModule:
        graph = torch.fx.Graph()
        inputs = {name: graph.placeholder(name) for name in names}
        product = graph.call_function(operator.mul, (inputs["L_w_"], inputs["L_x_"]))
        graph.output((graph.call_function(operator.add, (product, inputs["L_b_"])),))
        return torch.fx.GraphModule(torch.nn.Module(), graph)

    eager_order = structure_of(graph_with_inputs("L_w_", "L_b_", "L_x_", "L_unused_"))
    lazy_order = structure_of(graph_with_inputs("L_unused_", "L_w_", "L_x_", "L_b_"))
    assert eager_order != lazy_order
    assert canonical(eager_order) == canonical(lazy_order) == (
        "%0 = placeholder l_w_",
        "%1 = placeholder l_x_",
        "%2 = placeholder l_b_",
        "%3 = placeholder l_unused_",
        "%4 = call_function mul(%0, %1)",
        "%5 = call_function add(%4, %2)",
        "output (%5,)",
    )


def test_differences_name_the_place() -> None:
    expected = snapshot({"a": [torch.ones(2), 3]})
    assert differences(expected, snapshot({"a": [torch.ones(2), 3]})) == []
    assert differences(expected, snapshot({"a": [torch.zeros(2), 3]}))[0].startswith(
        "['a'][0]: tensor values differ"
    )
    assert differences(expected, snapshot({"a": [torch.ones(2, dtype=torch.int64), 3]})) == [
        "['a'][0]: tensor torch.float32[2] != torch.int64[2]"
    ]
    assert differences(expected, snapshot({"a": [torch.ones(2), 4]})) == ["['a'][1]: 3 != 4"]


def test_snapshot_marks_cycles_only() -> None:
    """A tuple reached twice is its snapshot twice (it read ``"<cycle>"`` the second
    time, unlike an equal tuple that is not the same object); a list in itself is a cycle."""
    pair = (torch.ones(2), 1)
    assert differences(snapshot([pair, pair]), snapshot([pair, (torch.ones(2), 1)])) == []
    looped: list = [1]
    looped.append(looped)
    assert snapshot(looped) == [1, "<cycle>"]


class WrappedError(RuntimeError):
    """Like Dynamo's TorchRuntimeError: a RuntimeError with its own message."""


def test_exceptions_compare_by_class_and_message_or_by_subclass() -> None:
    eager = (RuntimeError, "shape '[4]' is invalid for input of size 6")
    assert same_exception(eager, (RuntimeError, "shape '[4]' is invalid for input of size 6"))
    assert not same_exception(eager, (RuntimeError, "another message"))
    assert same_exception(eager, (WrappedError, "Dynamo's own message"))
    assert not same_exception(eager, (ValueError, eager[1]))
    assert not same_exception((WrappedError, "m"), (RuntimeError, "m"))  # a base is not enough
    assert not same_exception(eager, None)
    assert not same_exception(None, eager)
    assert same_exception(None, None)


def test_declared_inputs_are_fresh_and_identical() -> None:
    marks: list[tuple[torch.Tensor, int]] = []
    torch.manual_seed(0)
    first = materialize((T(2, 3, mark_dynamic=(0,)), [T(2)], {"k": 1}), marks)
    torch.manual_seed(0)
    second = materialize((T(2, 3), [T(2)], {"k": 1}), [])
    assert torch.equal(first[0], second[0]) and first[0] is not second[0]
    assert first[2] == {"k": 1} and first[2] is not second[2]
    assert marks == [(first[0], 0)]


def test_case_declarations_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown tags"):
        case(tags=["no-such-tag"], calls=[Call(1)])
    with pytest.raises(ValueError, match="outcome"):
        Expect(outcome="crashes")


def test_every_case_is_well_formed() -> None:
    for case_id, registered in load_all().items():
        assert registered.doc or registered.expect != Expect(), f"{case_id} shows nothing"
        assert set(registered.tags) <= TAGS


def test_dynamo_divergence_tag_marks_exactly_where_dynamo_differs_from_eager() -> None:
    """The oracle passes the eager check on every case except those tagged
    `dynamo-divergence` (eager semantics where Dynamo itself is wrong, on some version):
    the tag and torch_dynamo's `eager` expectation entries must name the same cases."""
    entries = expectations.parse(expectations.path_for("torch_dynamo").read_text())
    differs = {
        case_id for case_id, checks in entries.items() if any(c.startswith("eager") for c in checks)
    }
    tagged = {case_id for case_id, c in load_all().items() if "dynamo-divergence" in c.tags}
    assert differs == tagged


def test_dynamo_guard_tree_is_rewritten_into_our_format() -> None:
    tree = """TREE_GUARD_MANAGER:
+- RootGuardManager
| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None        # _dynamo/output_graph.py:1181
| +- GuardManager: source=L['l'], accessed_by=FrameLocalsGuardAccessor(key='l'), type=<class 'list'>
| | +- TYPE_MATCH: ___check_type_id(L['l'], 140163511845920), type=<class 'list'>  # x  # f.py:3
| | +- LENGTH_CHECK: len(L['l']) == 2                                 # return x  # f.py:3 in fn
| | | +- EQUALS_MATCH: L['l'][0] == 'Hi'                             # return x  # f.py:3 in fn
| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect), \
torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # return x  # f.py:3
+- LAMBDA_GUARD: 2 <= L['x'].size()[0]  # return x  # f.py:3 in fn (user code shown is ...)"""
    assert guard_lines(tree) == [
        "___check_type_id(L['l'], list)",
        "len(L['l']) == 2",
        "L['l'][0] == 'Hi'",
        "check_tensor(L['x'], torch.float32, device=cpu, requires_grad=False, size=[8], "
        "stride=[1])",
        "2 <= L['x'].size()[0]",
    ]


def test_dynamo_failure_reasons_get_their_local_scope_back() -> None:
    def fn(b, l, x):  # noqa: E741
        return b, l, x

    code = fn.__code__
    assert failure_reason("0/0: b == 'Hello'    # return a  # f.py:3 in fn", code) == (
        "L['b'] == 'Hello'"
    )
    assert failure_reason("0/1: len(l) == 2", code) == "len(L['l']) == 2"
    assert failure_reason("0/0: x.size()[0] == l[0]", code) == "L['x'].size()[0] == L['l'][0]"
    reason = "0/0: tensor 'l[0]' size mismatch at index 0. expected 4, actual 8"
    assert failure_reason(reason, code) == (
        "tensor 'L['l'][0]' size mismatch at index 0. expected 4, actual 8"
    )


def test_minidynamo_recompile_message_is_read() -> None:
    message = (
        "Recompiling function fn in script.py:3\n    triggered by the following guard "
        "failure(s):\n    - L['b'] == 'Hi'\n    - L['b'] == 'Hello'"
    )
    assert _failures(message) == "L['b'] == 'Hi'; L['b'] == 'Hello'"


def test_minidynamo_break_ids_are_reported_as_dynamos() -> None:
    from minidynamo.graph_break_registry import REGISTRY

    registry = Path(torch.__file__).parent / "_dynamo" / "graph_break_registry.json"
    dynamo_types = json.loads(registry.read_text())
    named = [gb for gb in REGISTRY.values() if gb.dynamo_id is not None]
    assert named, "no reason names Dynamo's id"
    for gb in named:
        assert gb.dynamo_id in dynamo_types, f"{gb.gb_id}: {gb.dynamo_id} is not Dynamo's"
        assert dynamo_reason_id(gb.gb_id) == gb.dynamo_id
    assert dynamo_reason_id("GB0002") == "GB0059"  # print: "Failed to trace builtin operator"
    assert dynamo_reason_id("GB0001") == "GB0001 (minidynamo)"


def test_unknown_implementation_is_reported() -> None:
    with pytest.raises(AdapterUnavailable, match="no adapter named 'nothing'"):
        load("nothing")


def test_summary_table_counts_cases_per_tag() -> None:
    results = {
        "g.a": {"tags": ["guards"], "checks": [["eager", PASSED, ""], ["guards", KNOWN, ""]]},
        "g.b": {"tags": ["guards", "loops"], "checks": [["eager", DIFFERS, ""]]},
        "g.c": {
            "tags": ["loops"],
            "checks": [["eager", PASSED, ""], ["frames", NOT_AVAILABLE, ""]],
        },
    }
    lines = summary_tables(results)
    assert lines[1].split() == ["guards", "2", "0", "1", "1", "0"]
    assert lines[2].split() == ["loops", "2", "1", "0", "1", "1"]
    assert lines[3].split() == ["all", "3", "1", "1", "1", "1"]


def test_example_adapter_passes_eager_checks_and_reports_nothing_else() -> None:
    """What the suite gives an adapter for another implementation (README: "Writing an
    adapter"): the eager check runs, observations it cannot report are "n/a"."""
    cases = load_all()
    suite = Suite(EagerExampleAdapter())
    report = suite.run(cases["seed000.guards_string_recompile"])
    statuses = {r.check: r.status for r in report.results}
    assert statuses == {
        "eager": PASSED,
        "frames": NOT_AVAILABLE,
        "graphs": NOT_AVAILABLE,
        "guards": NOT_AVAILABLE,
        "recompiles": NOT_AVAILABLE,
    }
    assert not report.failures()
    refused = suite.run(cases["graph_breaks.fullgraph_turns_break_into_error"])
    assert [r.status for r in refused.results] == [KNOWN]  # listed in eager_example.toml


def test_listed_difference_that_passes_is_stale() -> None:
    suite = Suite(EagerExampleAdapter())
    suite.known = {"g.case": {"eager": "why"}}
    assert suite.judge("g.case", CheckResult("eager", PASSED)).status == STALE
    assert suite.judge("g.case", CheckResult("eager", DIFFERS, "d")).status == KNOWN
    assert suite.judge("g.other", CheckResult("eager", DIFFERS)).status == DIFFERS


def test_per_torch_entries_apply_on_that_torch_only() -> None:
    known = expectations.parse('["g.case"]\neager_torch99 = "fixed later"\nops = "why"\n')
    assert known == {"g.case": {"eager_torch99": "fixed later", "ops": "why"}}
    assert expectations.reason_for(known["g.case"], "ops") == "why"
    here = {f"eager_{expectations.TORCH}": "here", "eager": "elsewhere"}
    assert expectations.reason_for(here, "eager") == "here"
    assert expectations.reason_for(known["g.case"], "eager") is None  # not this torch
