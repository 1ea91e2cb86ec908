"""Globals: read through GlobalSource (`G['name']`), guarded, rebound between calls.

Module globals of this file are the cases' globals; `before=` functions rebind them
between calls (the same way in the eager and in the compiled run).
"""

import math

import torch

from conformance.spec import Call, Expect, T, case, one_graph

WEIGHT = torch.linspace(0.0, 1.0, 3)
FACTOR = 2.5
MODE = "sum"
OPTIONS = {"scale": 3, "shift": 1}
SIZES = [1, 2]
ENABLED = True


def use_max_mode():
    global MODE
    MODE = "max"


def bigger_weight():
    global WEIGHT
    WEIGHT = torch.linspace(0.0, 1.0, 6)


def same_shape_weight():
    global WEIGHT
    WEIGHT = torch.linspace(1.0, 2.0, 3)


def change_option():
    OPTIONS["scale"] = 4


def grow_sizes():
    SIZES.append(3)


def disable():
    global ENABLED
    ENABLED = False


def helper(t):
    return t * FACTOR


@case(tags=["globals"], calls=[Call(T(3))], expect=one_graph("mul"))
def global_tensor_is_graph_input(x):
    return x * WEIGHT


@case(tags=["globals"], calls=[Call(T(3))], expect=one_graph("mul"))
def global_float_is_constant(x):
    return x * FACTOR


@case(tags=["globals", "inlining"], calls=[Call(T(3))], expect=one_graph("mul"))
def global_read_in_inlined_function(x):
    return helper(x)


@case(tags=["globals"], calls=[Call(T(3))], expect=one_graph("mul", "add"))
def global_dict_items(x):
    return x * OPTIONS["scale"] + OPTIONS["shift"]


@case(tags=["globals"], calls=[Call(T(3))], expect=one_graph("mul"))
def module_attribute_constant(x):
    return x * math.pi


@case(
    tags=["globals", "recompiles"],
    calls=[Call(T(3)), Call(T(3), before=use_max_mode)],
    expect=Expect(frames=2, graphs=2, ops=[[".sum"], [".max"]], recompiles=["G['MODE'] == 'sum'"]),
)
def global_string_rebound(x):
    return x.sum() if MODE == "sum" else x.max()


@case(
    tags=["globals", "recompiles", "dynamic-shapes"],
    calls=[Call(T(3)), Call(T(3), before=bigger_weight)],
    expect=Expect(
        frames=2,
        graphs=2,
        recompiles=["tensor 'G['WEIGHT']' size mismatch at index 0. expected 3, actual 6"],
    ),
)
def global_tensor_rebound_new_shape(x):
    return x.sum() * WEIGHT


@case(
    tags=["globals", "recompiles"],
    calls=[Call(T(3)), Call(T(3), before=same_shape_weight)],
    expect=Expect(frames=1, graphs=1),
)
def global_tensor_rebound_same_metadata(x):
    """A new global tensor with the same metadata passes the guards: no recompile, and
    the new values are used."""
    return x * WEIGHT


@case(
    tags=["globals", "recompiles"],
    calls=[Call(T(3)), Call(T(3), before=change_option)],
    expect=Expect(frames=2, graphs=2, recompiles=["G['OPTIONS']['scale'] == 3"]),
)
def global_dict_item_mutated(x):
    return x * OPTIONS["scale"]


@case(
    tags=["globals", "recompiles"],
    calls=[Call(T(3)), Call(T(3), before=grow_sizes)],
    expect=Expect(frames=2, graphs=2, recompiles=["len(G['SIZES']) == 2"]),
)
def global_list_grown(x):
    return x * len(SIZES)


@case(
    tags=["globals", "recompiles", "control-flow"],
    calls=[Call(T(3)), Call(T(3), before=disable)],
    expect=Expect(frames=2, graphs=2, recompiles=["G['ENABLED'] == True"]),
)
def global_flag_toggled(x):
    if ENABLED:
        return x + 1
    return x - 1


@case(tags=["globals"], calls=[Call(T(3))], expect=one_graph("torch.sigmoid"))
def global_function_of_torch(x):
    return torch.sigmoid(x)


@case(tags=["globals"], calls=[Call(T(3))], expect=one_graph(".to", "add"))
def dtype_from_torch_module(x):
    return x.to(dtype=torch.float64) + 1


import types  # noqa: E402  (appended: the cases above keep their line numbers)

RUNTIME_CONFIG = types.ModuleType("runtime_config")  # a module made at run time: no file


def _runtime_scale_two() -> None:
    RUNTIME_CONFIG.SCALE = 2


def _runtime_scale_five() -> None:
    RUNTIME_CONFIG.SCALE = 5


@case(
    tags=["globals", "recompiles"],
    calls=[Call(T(3), before=_runtime_scale_two), Call(T(3), before=_runtime_scale_five)],
    expect=Expect(frames=2, graphs=2, recompiles=["G['RUNTIME_CONFIG'].SCALE == 2"]),
)
def runtime_module_attribute_changed(x):
    """A module made with ``types.ModuleType`` has no file, as a built-in module: its
    attributes are still the program's, guarded (before: taken as a library's constant,
    the second call returned x * 2 where eager returns x * 5)."""
    return x * RUNTIME_CONFIG.SCALE
