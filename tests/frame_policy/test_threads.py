"""Two threads calling and compiling compiled functions at once get eager's results:
the cache (code_table.py), the recompile path and the frame hook are shared by them."""

from __future__ import annotations

import threading

import minidynamo
import pytest
import torch


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def shared(x, n, items):
    items.append(n)
    y = x * n + len(items)
    return y - y.sum()


def with_break(x, n):
    y = x + n
    z = y.tolist()  # a graph break: the rest runs in a resume function
    return y * len(z)


def test_two_threads_compile_and_call_at_once():
    compiled_shared = minidynamo.compile(shared)
    compiled_break = minidynamo.compile(with_break)
    start = threading.Barrier(2)
    failures: list[str] = []

    def work(offset: int) -> None:
        start.wait()
        for i in range(12):
            x = torch.full((2 + (i + offset) % 3,), float(i))
            n = (i + offset) % 4
            for fn, compiled, args in (
                (shared, compiled_shared, (x, n)),
                (with_break, compiled_break, (x, n)),
            ):
                eager_items, compiled_items = [offset], [offset]
                if fn is shared:
                    expected = fn(*args, eager_items)
                    got = compiled(*args, compiled_items)
                else:
                    expected, got = fn(*args), compiled(*args)
                if not torch.equal(expected, got) or eager_items != compiled_items:
                    failures.append(f"{fn.__name__}{args}: {got} != {expected}")

    threads = [threading.Thread(target=work, args=(offset,)) for offset in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
