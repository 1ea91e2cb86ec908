"""Context managers other than the grad modes: a class with ``__enter__``/``__exit__``
(its methods inlined), contextlib's managers (contextlib is traced like user code), an
exception leaving the block (``__exit__`` called with it), and a graph break inside such
a block, where the frame runs eagerly as in Dynamo (the manager cannot be re-entered).
"""

import contextlib

from conformance.spec import Call, Expect, T, case, one_graph

FULLGRAPH = {"fullgraph": True}


class Scale:
    def __init__(self, k):
        self.k = k
        self.entered = False

    def __enter__(self):
        self.entered = True
        return self.k

    def __exit__(self, *exc):
        self.entered = False
        return False


class Doubled(Scale):
    def __enter__(self):
        return super().__enter__() * 2


class Swallow(Scale):
    def __exit__(self, exc_type, exc, tb):
        return exc_type is KeyError


@contextlib.contextmanager
def scaled(k):
    yield k


@contextlib.contextmanager
def logged(log):
    log.append("enter")
    try:
        yield len(log)
    finally:
        log.append("exit")


@scaled(2)
def decorated(x):
    return x + 1


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def class_manager(x):
    with Scale(3) as k:
        y = x * k
    return y


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def super_enter(x):
    with Doubled(3) as k:
        return x * k


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "add"))  # fmt: skip
def manager_state_inside_and_after(x):
    s = Scale(2)
    with s:
        inside = s.entered
    return x + int(inside) * 10 + int(s.entered)


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def exit_suppresses_exception(x):
    with Swallow(1):
        raise KeyError("swallowed")
    return x + 1


@case(tags=["context-managers", "exceptions", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=one_graph("add"))  # fmt: skip
def exception_leaves_block(x):
    s = Scale(2)
    try:
        with s:
            raise ValueError("out")
    except ValueError:
        return x + int(s.entered)


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def contextmanager_generator(x):
    with scaled(4) as k:
        return x * k


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def contextmanager_finally(x):
    log = []
    with logged(log) as n:
        y = x + n
    return y, log


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def contextmanager_as_decorator(x):
    return decorated(x)


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def nullcontext_value(x):
    with contextlib.nullcontext(5) as v:
        return x * v


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def suppress_error(x):
    with contextlib.suppress(ValueError):
        raise ValueError("ignored")
    return x + 1


@case(tags=["context-managers", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=0, graphs=0))  # fmt: skip
def break_inside_class_manager(x):
    """Dynamo: "Graph break under GenericContextWrappingVariable": the frame is skipped."""
    with Scale(3) as k:
        y = x * k
        print("inside")
        y = y + 1
    return y
