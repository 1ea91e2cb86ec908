"""Context managers other than the grad modes: a class with ``__enter__``/``__exit__``
(its methods inlined), contextlib's managers (contextlib is traced like user code), an
exception leaving the block (``__exit__`` called with it), and a graph break inside such
a block, where the frame runs eagerly as in Dynamo (the manager cannot be re-entered).
"""

import contextlib

import torch

from conformance.spec import Break, Call, Expect, Make, T, case, one_graph

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


# torch's own managers (issue 19): autocast and inference_mode become enter/exit nodes
# of the graph, the profiler's managers are ignored, the rest switch a global state.

CTX_NO_GRAD = torch.no_grad()


@torch.no_grad()
def frozen_scale(x):
    return x * 2


@torch.enable_grad()
def tracked_scale(x):
    return x * 3


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, 3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def autocast_cpu_bfloat16(x):
    """Dynamo records ``_enter_autocast`` / ``_exit_autocast`` around the block's ops."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ x
    return y.float() + 1


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, 3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def autocast_disabled(x):
    with torch.autocast("cpu", enabled=False):
        y = x @ x
    return y


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, 3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def amp_autocast_dtype_inside(x):
    with torch.amp.autocast("cpu", dtype=torch.bfloat16):
        y = torch.mm(x, x)
        inside = torch.get_autocast_dtype("cpu") == torch.bfloat16
    return y.float(), inside


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def inference_mode_block(x):
    with torch.inference_mode():
        y = x * 2
    return y + 1


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def inference_mode_false(x):
    with torch.inference_mode(False):
        y = x * 2
    return y


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def record_function_ignored(x):
    with torch.autograd.profiler.record_function("scope"):
        y = x * 2
    return y


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def profiler_record_function_ignored(x):
    with torch.profiler.record_function("scope"):
        y = x + 1
    return y


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def profiler_profile_ignored(x):
    with torch.profiler.profile():
        y = x + 1
    return y


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(1, 2, 4, 8))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def sdpa_kernel_math(x):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel(SDPBackend.MATH):
        return torch.nn.functional.scaled_dot_product_attention(x, x, x)


@case(tags=["context-managers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def exit_stack_enters_managers(x):
    with contextlib.ExitStack() as stack:
        k = stack.enter_context(Scale(3))
        y = x * k
    return y


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, requires_grad=True))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def set_grad_enabled_as_function(x):
    torch.set_grad_enabled(False)
    y = x * 2
    torch.set_grad_enabled(True)
    return y, y.requires_grad


@case(tags=["context-managers", "torch-api", "fullgraph"],
      calls=[Call(T(3, requires_grad=True), False), Call(T(3, requires_grad=True), True)],
      options=FULLGRAPH, expect=Expect(frames=2, graphs=2))  # fmt: skip
def set_grad_enabled_argument(x, mode):
    with torch.set_grad_enabled(mode):
        y = x * 2
    return y.requires_grad, y


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, requires_grad=True))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def no_grad_decorated_inner_function(x):
    @torch.no_grad()
    def helper(t):
        return t * 2

    y = helper(x)
    return y, y.requires_grad


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, requires_grad=True))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def decorated_functions_called(x):
    with torch.no_grad():
        a = tracked_scale(x)
    b = frozen_scale(x)
    return a, b, a.requires_grad, b.requires_grad


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, requires_grad=True))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def nested_grad_modes(x):
    with torch.no_grad():
        with torch.enable_grad():
            a = x * 2
        b = x * 3
    return a.requires_grad, b.requires_grad, a, b


@case(tags=["context-managers", "torch-api", "graph-breaks"],
      calls=[Call(T(3, requires_grad=True))],
      expect=Expect(frames=0, graphs=0, breaks=[Break("GB0008", "with CTX_NO_GRAD:")]))  # fmt: skip
def global_no_grad_object(x):
    """A manager object made outside the traced code: Dynamo does not inline its
    ``__enter__`` (torch.autograd is skipped code)."""
    with CTX_NO_GRAD:
        y = x * 2
    return y.requires_grad


@case(tags=["context-managers", "torch-api", "graph-breaks"],
      calls=[Call(T(3, requires_grad=True))], expect=Expect(graphs=2))  # fmt: skip
def break_in_no_grad_inside_enable_grad(x):
    """A break inside ``no_grad`` nested in ``enable_grad``: the continuation enters both."""
    with torch.enable_grad():
        with torch.no_grad():
            y = x * 2
            print("inside")
            z = y + 1
        w = x * 3
    return z.requires_grad, w.requires_grad, z, w


@case(tags=["context-managers", "torch-api", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=1, graphs=0))  # fmt: skip
def fork_rng_block(x):
    """torch.random.fork_rng is not a manager Dynamo knows: a graph break at the call."""
    with torch.random.fork_rng():
        torch.manual_seed(0)
        y = x + 1
    return y


@case(tags=["context-managers", "torch-api", "exceptions", "fullgraph"],
      calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def exception_leaves_no_grad(x):
    try:
        with torch.no_grad():
            raise ValueError("out")
    except ValueError:
        y = x * 2
    return y.requires_grad, y


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, 3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def autocast_decorated_inner(x):
    @torch.autocast("cpu", dtype=torch.bfloat16)
    def mm(a):
        return a @ a

    return mm(x).dtype, mm(x).float()


# A graph break inside a block of torch's managers (issue 19): the graph exits the block,
# the breaking call runs inside it entered again, the continuation enters it again.


@case(tags=["context-managers", "torch-api", "graph-breaks"], calls=[Call(T(3, 3))],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def break_inside_autocast(x):
    """Both graphs record ``_enter_autocast`` / ``_exit_autocast``; the print runs under
    autocast too."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ x
        print("inside", torch.is_autocast_enabled("cpu"))
        z = y @ y
    return z.float() + 1, z.dtype, torch.is_autocast_enabled("cpu")


@case(tags=["context-managers", "torch-api", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def break_inside_inference_mode(x):
    with torch.inference_mode():
        y = x * 2
        print("inside")
        z = y + 1
    return z, z.is_inference()


@case(tags=["context-managers", "torch-api", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def break_inside_record_function(x):
    """The profiler's manager is ignored; the continuation enters a nullcontext."""
    with torch.profiler.record_function("scope"):
        y = x * 2
        print("inside")
        z = y + 1
    return z


@case(tags=["context-managers", "torch-api", "graph-breaks"],
      calls=[Call(T(3, 3, requires_grad=True))], expect=Expect(frames=2, graphs=2))  # fmt: skip
def break_in_autocast_inside_no_grad(x):
    """Nested blocks of two kinds: the graph exits both, innermost first."""
    with torch.no_grad():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ x
            print("inside", torch.is_grad_enabled(), torch.is_autocast_enabled("cpu"))
            z = y @ y
        w = x * 2
    return z.float(), z.requires_grad, w.requires_grad, w.dtype, torch.is_autocast_enabled("cpu")


@case(tags=["context-managers", "torch-api", "graph-breaks", "exceptions"],
      calls=[Call(T(3, 3))], expect=Expect(outcome="raises", frames=1, graphs=1))  # fmt: skip
def break_call_raises_inside_autocast(x):
    """The breaking call raises inside the block: autocast is off again afterwards."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ x
        print(y.dtype, sep=5)
    return y


@case(tags=["context-managers", "torch-api", "graph-breaks"], calls=[Call(T(1, 2, 4, 8))],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def break_inside_sdpa_kernel(x):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel(SDPBackend.MATH):
        y = torch.nn.functional.scaled_dot_product_attention(x, x, x)
        print("inside")
        return y + 1


@case(tags=["context-managers", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def break_inside_nullcontext(x):
    """Dynamo models ``contextlib.nullcontext`` (not traced as contextlib's class): the
    continuation enters a fresh ``nullcontext()``, so both halves compile."""
    with contextlib.nullcontext():
        y = x + 1
        print("inside")
        y = y * 2
    return y


@contextlib.contextmanager
def logging_finally(log):
    log.append("enter")
    try:
        yield
    finally:
        log.append("exit")


@case(tags=["context-managers", "exceptions", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=one_graph("add"))  # fmt: skip
def contextmanager_reraises_exception_through_finally(x):
    """contextlib's ``__exit__`` sets the exception's ``__traceback__`` (None in the
    trace) before re-raising it; the handler outside the block catches it."""
    log = []
    try:
        with logging_finally(log):
            raise ValueError("inside")
    except ValueError:
        pass
    return x + len(log)


class _RecordsExit:
    """A manager whose ``__exit__`` records what it was given and swallows it."""

    def __init__(self):
        self.seen = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, value, traceback):
        self.seen = (exc_type is ValueError, traceback is not None)
        return True


@case(tags=["context-managers", "exceptions", "fullgraph"], calls=[Call(T(3))],
      options={"fullgraph": True}, expect=one_graph("add"))  # fmt: skip
def exit_gets_the_traceback(x):
    """``__exit__`` gets the exception's traceback, not None."""
    manager = _RecordsExit()
    with manager:
        raise ValueError("in the block")
    return x + 1, manager.seen


@contextlib.contextmanager
def _passes_through():
    yield


@case(tags=["context-managers", "exceptions", "fullgraph"], calls=[Call(T(3))],
      options={"fullgraph": True}, expect=one_graph("mul"))  # fmt: skip
def generator_manager_reraises_with_traceback(x):
    """contextlib's ``__exit__`` re-raises the exception with the traceback it got."""
    try:
        with _passes_through():
            raise KeyError("key")
    except KeyError as error:
        return x * 2, error.__traceback__ is not None


@contextlib.contextmanager
def _prints_on_exit():
    yield
    print("leaving")


@case(tags=["context-managers", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=0, graphs=0))  # fmt: skip
def break_inside_generator_manager_exit(x):
    """A print after the ``yield`` of a contextlib manager breaks inside its
    ``__exit__``, which cannot be entered again: the frame runs eagerly, as Dynamo."""
    with _prints_on_exit():
        y = x + 1
    return y


@contextlib.contextmanager
def without_grad():
    with torch.no_grad():
        yield


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, requires_grad=True))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def no_grad_inside_contextmanager_generator(x):
    """The generator's no_grad block is entered by contextlib's inlined __enter__ and
    still holds in the `with` body (the example values had required grad)."""
    with without_grad():
        y = x * 2
    return y, y.requires_grad


def switch_grad_off():
    torch.set_grad_enabled(False)


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, requires_grad=True))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def grad_mode_switched_by_called_function(x):
    switch_grad_off()
    y = x * 2
    torch.set_grad_enabled(True)
    return y, y.requires_grad


@torch.autocast("cpu", dtype=torch.bfloat16)
def bfloat16_matmul(a, b):
    return a @ b


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3, 3), T(3, 3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def autocast_decorated_outside(a, b):
    """torch's wrapper is traced (Dynamo inlines torch.amp.autocast_mode); the autocast
    object it enters, made outside, is entered as one made inside."""
    c = bfloat16_matmul(a, b)
    return c.dtype, c.float()


@torch.inference_mode()
def inference_doubled(x):
    return x * 2


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def inference_mode_decorated_outside(x):
    """`@torch.inference_mode()` makes a manager per call with ``self.clone()``."""
    return inference_doubled(x) + 1


class EntryCounter(contextlib.ContextDecorator):
    def __init__(self):
        self.entries = 0

    def __enter__(self):
        self.entries += 1
        return self

    def __exit__(self, *exc):
        return False


def _counter_twice():
    """An EntryCounter, and a list holding it."""
    counter = EntryCounter()
    return counter, [counter]


@case(tags=["context-managers", "side-effects", "fullgraph"],
      calls=[Call(T(3), Make(_counter_twice))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def manager_object_reached_twice(x, pair):
    """One manager object reached through two paths (the pair's item, the list's item)
    is one object: the count its __enter__ stored is read back through the other path
    (it was stale)."""
    counter, box = pair
    with counter:
        y = x * 2
    return y + box[0].entries, box[0].entries


@contextlib.contextmanager
def _scaled_by(k):
    yield k


@case(tags=["context-managers", "generators", "fullgraph", "dynamo-divergence"],
      calls=[Call(T(3), Make(_scaled_by, 2)), Call(T(3), Make(_scaled_by, 3))],
      options=FULLGRAPH, expect=Expect(frames=2, graphs=2))  # fmt: skip
def contextmanager_object_passed_in(x, cm):
    """A ``@contextmanager`` object made by the caller and entered in the frame: its
    generator is traced from its code and frame (guarded by identity, as Dynamo: a new
    object compiles again), and is finished after the call, as in eager."""
    with cm as k:
        return x * k


@case(tags=["context-managers", "exceptions", "stdlib", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def exit_stack_unwinds_on_exception(x):
    """An exception leaves an ExitStack's block: its ``__exit__`` asks ``sys.exception()``
    (``sys.exc_info()`` on 3.10), the exception its caller's with is handling, runs the
    callbacks last first and lets it propagate (it was a graph break: the exception a
    caller handles was not known)."""
    log = []
    try:
        with contextlib.ExitStack() as stack:
            stack.callback(log.append, "a")
            stack.callback(log.append, "b")
            x = x * 2
            raise ValueError("in block")
    except ValueError as e:
        log.append(str(e))
    return x + 1, log


@case(tags=["context-managers", "exceptions", "stdlib", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def exit_stack_entered_suppress_swallows(x):
    """``contextlib.suppress`` entered on an ExitStack swallows the block's KeyError:
    the stack's ``__exit__`` returns True and the frame goes on after the with."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.suppress(KeyError))
        x = x + 1
        raise KeyError("gone")
    return x * 2


@case(tags=["context-managers", "torch-api", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1, ops=[[
          "torch.autograd.grad_mode._enter_inference_mode", "mul",
          "torch.autograd.grad_mode._exit_inference_mode", "add"]]))  # fmt: skip
def no_grad_inside_inference_mode(x):
    """Inference mode disables grad already: the no_grad block inside switches nothing
    (it recorded a ``_set_grad_enabled(False)`` node, and none to leave it)."""
    with torch.inference_mode():
        with torch.no_grad():
            y = x * 2
    return y + 1
