"""Exceptions: raised by the compiled code exactly as eager raises them (type and message).

A raise on a traced path, a try/except handled while tracing, and errors of tensor
operations themselves; `outcome="raises"` cases compare the exception of each call.
"""

import torch

from conformance.spec import Break, Call, Expect, Make, T, case, one_graph


class Stop(Exception):
    """A user exception class."""


UNCAUGHT = "GB0088"  # an exception leaves the traced code: the frame runs in CPython


@case(
    tags=["exceptions", "graph-breaks"],
    calls=[Call(T(3), -1)],
    expect=Expect(
        outcome="raises",
        frames=0,
        breaks=[Break(UNCAUGHT, 'raise ValueError(f"n must be non-negative, got {n}")')],
    ),
)
def raise_value_error(x, n):
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    return x * n


@case(
    tags=["exceptions"],
    calls=[Call(T(3), 2), Call(T(3), -2)],
    expect=Expect(outcome="raises"),
)
def raise_on_second_call_only(x, n):
    if n < 0:
        raise ValueError("negative")
    return x * n


@case(tags=["exceptions"], calls=[Call(T(3), {})], expect=Expect(frames=1, graphs=1))
def try_except_handled_while_tracing(x, d):
    try:
        k = d["missing"]
    except KeyError:
        k = 3
    return x * k


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(frames=1, graphs=1))
def try_finally(x):
    try:
        y = x + 1
    finally:
        y = y * 2
    return y


@case(
    tags=["exceptions", "tensor-methods"],
    calls=[Call(T(3), T(4))],
    expect=Expect(outcome="raises"),
)
def shape_mismatch_error(x, y):
    return x + y


@case(
    tags=["exceptions", "graph-breaks"],
    calls=[Call(T(3), [1])],
    expect=Expect(outcome="raises", frames=0, breaks=[Break(UNCAUGHT, "return x * l[3]")]),
)
def index_error(x, l):  # noqa: E741
    return x * l[3]


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(outcome="raises"))
def assertion_on_tensor_metadata(x):
    assert x.dim() == 2, "expected a matrix"
    return x


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(frames=1, graphs=1))
def raise_and_catch_custom_error(x):
    try:
        raise Stop("done")
    except Stop:
        return x + 1


@case(
    tags=["exceptions", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=1, breaks=[Break("GB8977", "class Local(Exception):")]),
)
def local_class_definition_breaks(x):
    """Defining a class inside traced code is not supported: a break at the class."""

    class Local(Exception):
        pass

    return x + len(Local.__name__)


@case(tags=["exceptions"], calls=[Call(T(3), "x")], expect=Expect(outcome="raises"))
def type_error_on_constants(x, s):
    return x * (s + 1)


@case(tags=["exceptions"], calls=[Call(T(2, 3))], expect=Expect(outcome="raises"))
def bad_view_error(x):
    return x.view(4)


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(frames=1, graphs=1))
def context_manager_no_grad(x):
    with torch.no_grad():
        y = x * 2
    return y + 1


def _raise_stop(n):
    if n > 0:
        raise Stop("from helper", n)
    return n


@case(tags=["exceptions", "inlining"], calls=[Call(T(3))], expect=Expect(frames=1, graphs=1))
def exception_from_inlined_call_caught(x):
    """The helper's raise unwinds to the caller's handler while tracing: one graph."""
    try:
        _raise_stop(2)
        return x
    except Stop as e:
        return x * e.args[1]


@case(tags=["exceptions"], calls=[Call(T(3), [1, 2])], expect=Expect(frames=1, graphs=1))
def finally_runs_when_index_error_is_caught(x, items):
    try:
        try:
            v = items[5]
        finally:
            x = x + 1
    except IndexError:
        v = 2
    return x * v


# Issue 19: user-style exception handling.


class ShapeError(Exception):
    """A user exception class with its own __init__ and attributes."""

    def __init__(self, expected, got):
        super().__init__(f"expected {expected}, got {got}")
        self.expected = expected
        self.got = got


class Guarded:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("in")
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append(exc_type.__name__ if exc_type else "ok")
        return False


SUPER_INIT_LINE = 'super().__init__(f"expected {expected}, got {got}")'


def _check(n):
    if n != 3:
        raise ShapeError(3, n)
    return n


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def assert_with_message_passes(x):
    assert x.shape[0] == 3, f"bad size {x.shape[0]}"
    return x + 1


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def import_inside_function(x):
    import math

    from torch.nn import functional as F

    return F.relu(x) * math.sqrt(4)


@case(tags=["exceptions", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=0, graphs=0, breaks=[Break("GB0006", SUPER_INIT_LINE)]))  # fmt: skip
def custom_exception_attributes(x):
    """Dynamo breaks at ``super().__init__`` of an exception class's own __init__."""
    try:
        _check(x.shape[0] + 1)
    except ShapeError as e:
        return x * e.expected + e.got
    return x


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def exception_message_str(x):
    try:
        raise ValueError("bad value")
    except Exception as e:
        msg = str(e)
    return x + len(msg)


@case(tags=["exceptions", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=0, graphs=0, breaks=[Break("GB0006", SUPER_INIT_LINE)]))  # fmt: skip
def custom_exception_message(x):
    """Dynamo breaks at ``super().__init__`` of an exception class's own __init__."""
    try:
        _check(5)
    except ShapeError as e:
        return x + len(str(e)), e.args
    return x, ()


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def try_except_else_finally_returns(x):
    log = []
    try:
        y = x + 1
    except ValueError:
        return x
    else:
        log.append("else")
        return y * 2, log
    finally:
        log.append("finally")


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def finally_return_overrides(x):
    def inner():
        try:
            raise KeyError("lost")
        finally:
            return 4  # noqa: B012

    return x + inner()


@case(tags=["exceptions", "context-managers", "fullgraph"], calls=[Call(T(3))],
      options={"fullgraph": True}, expect=Expect(frames=1, graphs=1))  # fmt: skip
def raise_in_with_caught_outside(x):
    log = []
    try:
        with Guarded(log):
            raise IndexError("inside")
    except IndexError:
        log.append("caught")
    return x + len(log), log


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def bare_reraise_caught_outer(x):
    log = []
    try:
        try:
            raise KeyError("k")
        except KeyError:
            log.append("inner")
            raise
    except KeyError as e:
        log.append(e.args[0])
    return x + 1, log


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def except_tuple_of_types(x):
    n = 0
    for key in (0, "a", 5):
        try:
            n += [1, 2][key]
        except (IndexError, TypeError):
            n += 10
    return x + n


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def isinstance_of_caught_exception(x):
    try:
        {}["k"]
    except LookupError as e:
        kind = 1 if isinstance(e, KeyError) else 2
    return x * kind


@case(tags=["exceptions", "loops", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def try_continue_in_loop(x):
    for i in range(4):
        try:
            if i % 2:
                raise ValueError(i)
        except ValueError:
            continue
        x = x + i
    return x


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(outcome="raises"))
def custom_exception_raised_out(x):
    raise ShapeError(2, x.shape[0])


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(outcome="raises"))
def assert_with_message_fails(x):
    assert x.shape[0] == 2, f"bad size {x.shape[0]}"
    return x + 1


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def exception_chain_context(x):
    try:
        try:
            raise KeyError("first")
        except KeyError:
            raise ValueError("second")  # noqa: B904
    except ValueError as e:
        return x + isinstance(e.__context__, KeyError)


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def raise_class_not_instance(x):
    try:
        raise NotImplementedError
    except NotImplementedError as e:
        return x + len(e.args)


class CodedError(Exception):
    """An exception class whose __init__ only stores its argument."""

    def __init__(self, code):
        self.code = code


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def exception_init_without_super(x):
    try:
        raise CodedError(4)
    except CodedError as e:
        return x * e.code


@case(tags=["exceptions", "fullgraph"], calls=[Call([T(2), T(2)], [T(2)])],
      options={"fullgraph": True}, expect=Expect(frames=1, graphs=1))  # fmt: skip
def zip_strict_length_mismatch_caught(a, b):
    """``zip(strict=True)`` of lists of different lengths raises CPython's ValueError in
    the trace, and the handler is traced too."""
    try:
        return [x + y for x, y in zip(a, b, strict=True)]
    except ValueError:
        return a[0] * 2


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3), T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1, ops=[["mul", "add"]]))  # fmt: skip
def torch_op_error_caught(x, y):
    """``torch.mm`` of 1-D tensors raises RuntimeError on the fake tensors: the program's
    ``except RuntimeError`` handler is traced into the same graph, as in Dynamo."""
    try:
        z = torch.mm(x, y)
    except RuntimeError:
        z = x * y
    return z + 1


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("add"))  # fmt: skip
def exception_with_traceback_none(x):
    """``err.with_traceback(None)`` returns the exception itself."""
    try:
        raise ValueError("a")
    except ValueError as err:
        same = err.with_traceback(None) is err
    return x + same


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph())  # fmt: skip
def handled_error_then_input_returned(x):
    """Under fullgraph=True a frame that returns its input tensor still makes a graph
    (``return (l_x_,)``): Dynamo's return path makes every returned tensor a graph output."""
    try:
        divmod(1, 0)
    except ZeroDivisionError:
        pass
    return x


class _Settings:
    """A plain object whose optional attribute is set on some calls only."""

    def __init__(self, scale=None):
        if scale is not None:
            self.scale = scale


@case(tags=["exceptions", "fullgraph", "dynamo-divergence"],
      calls=[Call(T(3), Make(_Settings))] * 2 + [Call(T(3), Make(_Settings, 3))],
      options={"fullgraph": True}, expect=Expect(graphs=2, ops=[["add"], ["mul"]]))  # fmt: skip
def missing_attribute_caught(x, settings):
    """A missing attribute raises AttributeError inside the trace, and the program's
    handler is traced into the graph; the attribute's absence is guarded, so a call
    whose object has it recompiles."""
    try:
        return x * settings.scale
    except AttributeError:
        return x + 1


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("mul"))  # fmt: skip
def getattr_of_missing_attribute_caught(x):
    """``getattr(obj, "name")`` without a default raises AttributeError the handler
    catches."""
    try:
        factor = getattr(_Settings(), "scale")  # noqa: B009 (the call is the case)
    except AttributeError:
        factor = 2
    return x * factor


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3)), Call(T(3))],
      options={"fullgraph": True}, expect=one_graph("add"))  # fmt: skip
def missing_tensor_attribute_caught(x):
    """A tensor has no attribute ``meta``: AttributeError, caught in the trace."""
    try:
        return x * x.meta
    except AttributeError:
        return x + 1


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("add"))  # fmt: skip
def missing_class_attribute_caught(x):
    """A class attribute that is not there: AttributeError of the type object."""
    try:
        return x * _Settings.default_scale
    except AttributeError as error:
        return x + len(str(error))


@case(tags=["exceptions", "graph-breaks"], calls=[Call(T(3), Make(_Settings))],
      expect=Expect(frames=0, graphs=0, outcome="raises"))  # fmt: skip
def missing_attribute_uncaught(x, settings):
    """Uncaught, the AttributeError has no handler in the frame: the whole frame runs
    eagerly (Dynamo's "Observed exception" at the top level) and raises it as eager
    does."""
    y = x.sin()
    return y * settings.scale


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("add"))  # fmt: skip
def caught_exception_has_traceback(x):
    """A raised exception has a traceback: ``e.__traceback__`` is not None (one made and
    not raised has none)."""
    made = ValueError("not raised")
    try:
        raise ValueError("raised")
    except ValueError as error:
        return x + 1, error.__traceback__ is not None, made.__traceback__ is None


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("mul"))  # fmt: skip
def traceback_of_lookup_error_is_truthy(x):
    """The KeyError a missing key raises has a traceback too, and it is true."""
    try:
        {}["missing"]
    except KeyError as error:
        if error.__traceback__:
            return x * 2
        return x * 3


class _CodeOnly(Exception):
    """A user exception whose own ``__init__`` keeps a code and does not call the
    base's: ``args`` stay every constructor argument (BaseException.__new__'s)."""

    def __init__(self, code, where="here"):
        self.code = code


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("mul"))  # fmt: skip
def str_of_user_exception_with_own_init(x):
    """`str` and `repr` of it are BaseException's: the builtin bases' own ``__str__``
    is not the class's."""
    try:
        raise _CodeOnly(3, "there")
    except _CodeOnly as error:
        return x * error.code, str(error), repr(error), error.args


@case(tags=["exceptions", "fullgraph", "dynamo-divergence"], calls=[Call(T(3))],
      options={"fullgraph": True}, expect=Expect(frames=1, graphs=1))  # fmt: skip
def failed_assert_caught_in_frame(x):
    """An ``assert`` on a known condition that fails raises AssertionError with its
    message in the trace, and the frame's handler catches it."""
    try:
        assert x.dim() == 3, "expected a 3-d tensor"
    except AssertionError as e:
        return x + 1, e.args
    return x, ()


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def assert_on_tensor_condition(x):
    """``assert`` on a tensor becomes a check in the graph (torch._assert_async), as in
    Dynamo, instead of a data-dependent break."""
    assert (x > -100).all(), "values out of range"
    return x * 2


@case(tags=["exceptions", "stdlib", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def sys_exc_info_in_handler(x):
    """``sys.exc_info()`` in the frame's own handler: the exception it handles."""
    import sys

    try:
        raise KeyError("missing")
    except KeyError:
        exc_type, exc, tb = sys.exc_info()
    return x + 1, exc_type.__name__, exc.args, tb is not None, sys.exc_info()[0] is None


class _Lazy:
    """A property whose getter raises AttributeError until a value is set, and an unset
    ``__slots__`` member: ``hasattr`` is False for both until they are set."""

    __slots__ = ("slot", "_value")

    def __init__(self, value=None):
        self._value = value
        if value is not None:
            self.slot = value

    def __eq__(self, other):  # compared after the call, as the harness compares arguments
        return type(other) is _Lazy and self._value == other._value

    @property
    def value(self):
        if self._value is None:
            raise AttributeError("value is not set")
        return self._value


@case(tags=["exceptions", "descriptors", "fullgraph"],
      calls=[Call(T(3), Make(_Lazy)), Call(T(3), Make(_Lazy, 2))], options={"fullgraph": True},
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def hasattr_of_raising_property(x, obj):
    """``hasattr`` runs a property's getter (and reads a ``__slots__`` member): an
    AttributeError from it means False, not the class attribute's presence."""
    return x + hasattr(obj, "value") + 2 * hasattr(obj, "slot")


@case(tags=["exceptions", "descriptors", "fullgraph"], calls=[Call(T(3))],
      options={"fullgraph": True}, expect=one_graph("add", "add"))  # fmt: skip
def hasattr_of_unset_slot_on_new_object(x):
    """A ``__slots__`` member the new object's ``__init__`` left unset: hasattr False."""
    obj = _Lazy()
    return x + hasattr(obj, "slot") + 2 * hasattr(obj, "_value")


class _ConfigError(Exception):
    """An exception class with a class-level error code and a method reading it."""

    code = 7

    def describe(self):
        return f"E{self.code}: {self.args[0]}"


class _MissingKeyError(_ConfigError):
    code = 404


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("mul"))  # fmt: skip
def exception_class_attribute_and_method(x):
    """A handler reads a class attribute of the caught exception (the subclass's
    ``code``) and calls its class's method: attributes of the class, guarded through it."""
    try:
        raise _MissingKeyError("no key")
    except _ConfigError as error:
        return x * error.code, error.describe()


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("add"))  # fmt: skip
def caught_exception_class_attribute(x):
    """``e.__class__`` of a caught exception is its class, as ``type(e)``."""
    try:
        raise _MissingKeyError("no key")
    except Exception as error:
        cls = error.__class__
        return x + 1, cls.__name__, cls is _MissingKeyError, issubclass(cls, _ConfigError)


def _handled_now():
    import sys

    exc_type, exc, _ = sys.exc_info()
    return exc_type.__name__, exc.args


def _raise_value_error():
    raise ValueError("while handling")


@case(tags=["exceptions", "stdlib", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def exception_of_caller_seen_by_callee(x):
    """A function called from an except clause sees the caller's exception: its
    ``sys.exc_info()`` is the KeyError handled (it was a graph break), and a ValueError
    it raises has that KeyError as ``__context__``, as in CPython."""
    try:
        raise KeyError("outer")
    except KeyError:
        name, args = _handled_now()
        try:
            _raise_value_error()
        except ValueError as e:
            context = type(e.__context__).__name__, e.__context__.args[0]
    return x + len(args), name, args, context
