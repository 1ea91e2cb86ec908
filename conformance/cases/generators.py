"""Generators driven by the traced code: `yield from`, `send`, `throw`, `close`
(GeneratorExit inside the generator), `next` with a default and StopIteration, and a
generator consumed while the list it reads grows (`list.extend` takes its items one by one).
"""


from conformance.spec import Call, T, case, one_graph

FULLGRAPH = {"fullgraph": True}


def squares(n):
    for i in range(n):
        yield i * i


def delegating(n):
    total = yield from squares(n)
    yield -1
    return total


def running_total():
    total = 0
    while True:
        sent = yield total
        total += sent


def closing(log):
    try:
        yield 1
        yield 2
    except GeneratorExit:
        log.append("closed")
        raise


def recovering():
    try:
        yield 1
    except ValueError:
        yield 10


def counting():
    i = 0
    while True:
        yield i
        i += 1


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def yield_from(x):
    return x + sum(delegating(3))


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def send_values(x):
    g = running_total()
    next(g)
    g.send(2)
    return x + g.send(3)


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def close_runs_generator_exit(x):
    log = []
    g = closing(log)
    next(g)
    g.close()
    return x + len(log)


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def throw_caught_inside(x):
    g = recovering()
    next(g)
    return x + g.throw(ValueError("resume"))


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def next_with_default(x):
    return x + next(iter([]), 5)


@case(tags=["generators", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def stop_iteration_caught(x):
    g = squares(1)
    next(g)
    try:
        next(g)
    except StopIteration:
        return x + 1
    return x


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "add", "add"))  # fmt: skip
def infinite_generator_zipped(x):
    for _, v in zip(range(3), counting()):  # noqa: B905 (an infinite generator)
        x = x + v
    return x


@case(tags=["generators", "containers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "add", "add"))  # fmt: skip
def extend_reads_growing_list(x):
    y = [x]
    y.extend(y[-1] + z for z in range(3))
    return y


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def raise_from_cause(x):
    try:
        try:
            raise KeyError("k")
        except KeyError as e:
            raise ValueError("v") from e
    except ValueError as e:
        return x + (1 if isinstance(e.__cause__, KeyError) else 0)
