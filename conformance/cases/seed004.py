"""Seed 004 (graph rebuild): capture, graph breaks and subgraphs, runtime rebuild, guards,
and "safe by default", each section as a case; `simulator_menu` is its Python demo
(mul 2, add 1, if_flag, mul 3, call_external, add 5) written as a real program.
"""

import torch

from conformance.spec import Break, Call, Expect, Make, T, case

PRINT = "GB0059"
DATA_DEPENDENT = "GB0170"
SPICY = True


def mild():
    global SPICY
    SPICY = False


@case(
    tags=["seed"],
    seed="004: Dynamic graph capture",
    calls=[Call(T(4), T(4))],
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add", "torch.relu", ".sum"]]),
)
def capture_whole_function(x, w):
    """Every step is fixed: the whole function is one FX graph."""
    return torch.relu(x * w + 1).sum()


@case(
    tags=["seed", "graph-breaks", "control-flow"],
    seed="004: Graph splitting",
    calls=[Call(Make(torch.ones, 4))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[["mul", ".sum", "gt"], ["add"]],
        breaks=[Break(DATA_DEPENDENT, "if y.sum() > 0:")],
    ),
)
def split_at_data_dependent_branch(x):
    """ "It depends" (a branch on data) ends the first subgraph; tracing resumes after."""
    y = x * 2
    if y.sum() > 0:
        return y + 1
    return y - 1


@case(
    tags=["seed", "graph-breaks", "side-effects"],
    seed="004: Graph splitting",
    calls=[Call(T(4), [])],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[["mul"], ["add"]],
        breaks=[Break(PRINT, 'print("[side effect] length:", len(log))')],
    ),
)
def split_at_side_effect(x, log):
    """A side effect (print) splits; the list mutation before it is replayed first."""
    y = x * 2
    log.append("scaled")
    print("[side effect] length:", len(log))
    return y + 1


@case(
    tags=["seed"],
    seed="004: Subgraph compilation",
    calls=[Call(T(8), 0.5, T(8))],
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add", "torch.relu"]]),
)
def scale_bias_activation_one_subgraph(x, scale, bias):
    """scale, bias and activation in one subgraph: what a backend can fuse."""
    return torch.relu(x * scale + bias)


@case(
    tags=["seed", "graph-breaks"],
    seed="004: Runtime graph rebuild",
    calls=[Call(T(4)), Call(T(4))],
    expect=Expect(frames=2, graphs=2, ops=[["mul"], ["add"]]),
)
def rebuild_passes_outputs_on(x):
    """Capture, run, capture again: the first graph's output is the second's input; the
    second call runs both cached graphs."""
    y = x * 3
    print("rebuild")
    return y + x


@case(
    tags=["seed", "guards", "recompiles", "globals"],
    seed="004: Guards",
    calls=[Call(T(4)), Call(T(4)), Call(T(4), before=mild), Call(T(4))],
    expect=Expect(frames=2, graphs=2, recompiles=["G['SPICY'] == True"]),
)
def guard_label_checked_before_reuse(x):
    """The "label" of a subgraph: reused while it holds, retraced when the global flips."""
    if SPICY:
        return x * 2
    return x + 0.5


@case(
    tags=["seed", "graph-breaks", "control-flow"],
    seed="004: Python demo (DynamoSimulator)",
    calls=[Call(Make(torch.ones, 4), Make(torch.ones, 1))],
    expect=Expect(
        frames=3,
        graphs=3,
        ops=[["mul", "add", ".sum", "gt"], ["add", "mul"], ["add"]],
        breaks=[
            Break(DATA_DEPENDENT, "if flag.sum() > 0:"),
            Break(PRINT, 'print("[side effect] current value:", x.shape)'),
        ],
    ),
)
def simulator_menu(x, flag):
    """The demo's ops: two breaks (if_flag, the printing call_external) make 3 graphs."""
    x = x * 2
    x = x + 1
    if flag.sum() > 0:
        x = x + 1
    else:
        x = x - 1
    x = x * 3
    print("[side effect] current value:", x.shape)
    x = x + 5
    return x


@case(
    tags=["seed", "graph-breaks"],
    seed="004: Correctness and robustness (safe by default)",
    calls=[Call(T(4)), Call(T(4))],
    expect=Expect(frames=0, graphs=0),
)
def safe_by_default_break_in_loop(x):
    """A break Dynamo cannot resume from (inside a loop): the frame runs eagerly, with
    the eager result, never a wrong one."""
    for i in range(2):
        x = x + i
        print("step", i)
    return x


@case(
    tags=["seed", "recompiles"],
    seed="004: Correctness and robustness (safe by default)",
    calls=[Call(T(4), key) for key in "abcdefghi"],
    expect=Expect(frames=8, graphs=8),
)
def safe_by_default_recompile_limit(x, key):
    """Each new string recompiles; past the recompile limit (8) the frame runs eagerly,
    still correct."""
    return x * ord(key)
