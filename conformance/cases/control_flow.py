"""Control flow on constants and metadata: decided while tracing, guarded, never in graphs.

Only the branch taken is traced (seed: "Dynamo removed the if statement from the trace");
the condition's inputs are guarded, so another value recompiles (see guards.py).
"""

import torch

from conformance.spec import Call, T, case, one_graph


@case(tags=["control-flow"], calls=[Call(T(2), True)], expect=one_graph("add"))
def if_on_bool_argument(x, flag):
    if flag:
        return x + 1
    return x - 1


@case(tags=["control-flow"], calls=[Call(T(2), None)], expect=one_graph("mul"))
def if_none_check(x, bias):
    if bias is None:
        return x * 2
    return x * 2 + bias


@case(tags=["control-flow"], calls=[Call(T(2), T(2))], expect=one_graph("mul", "add"))
def if_not_none_tensor(x, bias):
    if bias is not None:
        return x * 2 + bias
    return x * 2


@case(tags=["control-flow"], calls=[Call(T(2), "relu")], expect=one_graph("torch.relu"))
def if_on_string_mode(x, mode):
    if mode == "relu":
        return torch.relu(x)
    elif mode == "tanh":
        return torch.tanh(x)
    return x


@case(tags=["control-flow"], calls=[Call(T(2), 5)], expect=one_graph("mul"))
def conditional_expression(x, n):
    k = 2 if n > 3 else 3
    return x * k


@case(tags=["control-flow"], calls=[Call(T(2), 0, 7)], expect=one_graph("add"))
def short_circuit_or(x, a, b):
    return x + (a or b)


@case(tags=["control-flow"], calls=[Call(T(2), 3, 0)], expect=one_graph("add"))
def short_circuit_and(x, a, b):
    return x + (a and b)


@case(tags=["control-flow"], calls=[Call(T(2), 1)], expect=one_graph("add"))
def early_return(x, n):
    if n == 1:
        return x + 1
    x = x * 2
    return x - 1


@case(tags=["control-flow"], calls=[Call(T(2, 3))], expect=one_graph(".sum"))
def if_on_tensor_rank(x):
    if x.dim() == 2:
        return x.sum(1)
    return x


@case(tags=["control-flow"], calls=[Call(T(4, 3))], expect=one_graph("getitem"))
def if_on_static_shape(x):
    if x.shape[0] > 2:
        return x[:2]
    return x


@case(tags=["control-flow"], calls=[Call(T(2), [1])], expect=one_graph("add"))
def if_on_list_truthiness(x, l):  # noqa: E741
    if l:
        return x + l[0]
    return x


@case(tags=["control-flow"], calls=[Call(T(2), ("add", 3))], expect=one_graph("add"))
def match_statement(x, op):
    match op:
        case ("add", n):
            return x + n
        case ("mul", n):
            return x * n
        case _:
            return x


@case(tags=["control-flow"], calls=[Call(T(2), 2)], expect=one_graph("mul"))
def assert_on_constant(x, n):
    assert n > 0, "n must be positive"
    return x * n


@case(tags=["control-flow"], calls=[Call(T(2), 3)], expect=one_graph("sub"))
def nested_if(x, n):
    if n > 0:
        if n > 5:
            return x + 1
        return x - 1
    return x


@case(tags=["control-flow"], calls=[Call(T(2), {"scale": 3, "bias": 1})], expect=one_graph("mul"))
def match_mapping_pattern(x, cfg):
    match cfg:
        case {"scale": s}:
            return x * s
        case _:
            return x


@case(tags=["control-flow"], calls=[Call(T(2), 4)], expect=one_graph("sub"))
def match_class_pattern_with_guard(x, n):
    match n:
        case str():
            return x
        case int(v) if v > 2:
            return x - v
        case _:
            return x + 1
