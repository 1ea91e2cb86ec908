"""Line and location tables beyond what the stdlib exercises: long line-less runs, big
line jumps, wide columns and multi-line spans must all read back as written."""

from __future__ import annotations

from bytecode_helpers import template
from hypothesis import example, given, settings
from hypothesis import strategies as st
from minidynamo.bytecode import Instruction, Positions, assemble, create_instruction, decode
from minidynamo.bytecode.versions import ENCODING

lines = st.none() | st.integers(1, 3000)


@st.composite
def spans(draw: st.DrawFn) -> Positions:
    """A line and, where this Python records them, the end line and columns."""
    lineno = draw(lines)
    if lineno is None or not ENCODING.columns:
        return Positions(lineno, None, None, None)
    end_lineno = lineno + draw(st.integers(0, 300))
    if draw(st.booleans()):
        return Positions(lineno, end_lineno, None, None)
    return Positions(lineno, end_lineno, draw(st.integers(0, 300)), draw(st.integers(0, 300)))


def expected(positions: Positions) -> Positions:
    """How co_positions reports what was written: a span without an end ends on its line."""
    if positions.lineno is not None and positions.end_lineno is None:
        return Positions(positions.lineno, positions.lineno, None, None)
    return positions


def line(lineno: int | None) -> Positions:
    return Positions(lineno, None, None, None)


# Line deltas of exactly +128 and -128, then +256, around a line-less run of 600 bytes.
EDGES = [(1, line(129)), (300, line(None)), (2, line(1)), (1, line(257))]


@settings(max_examples=60, deadline=None)
@example(runs=EDGES)
@given(st.lists(st.tuples(st.integers(1, 200), spans()), min_size=1, max_size=6))
def test_lines_and_positions_read_back_as_written(runs: list[tuple[int, Positions]]) -> None:
    body: list[Instruction] = []
    for count, positions in runs:
        for _ in range(count):
            nop = create_instruction("NOP")
            nop.lineno = positions.lineno
            nop.positions = positions if ENCODING.columns else None
            body.append(nop)
    body += [create_instruction("LOAD_CONST", argval=None), create_instruction("RETURN_VALUE")]
    decoded = decode(assemble(body, template()))[: len(body) - 2]
    assert [inst.lineno for inst in decoded] == [inst.lineno for inst in body[:-2]]
    if ENCODING.columns:
        assert [inst.positions for inst in decoded] == [expected(i.positions) for i in body[:-2]]
