"""The byte formats of a code object's side tables, written as CPython's assembler writes them.

assemble.py passes each instruction's size and position, and the exception ranges, in code
units (2 bytes). Formats: 3.10 co_linetable (Objects/lnotab_notes.txt), 3.11+ location
table (Objects/locations.md) and 3.11+ co_exceptiontable (exception_handling_notes.txt).
"""

from __future__ import annotations

from .instruction import Positions
from .versions import ENCODING


def line_table(first_lineno: int, spans: list[tuple[int, Positions]]) -> bytes:
    """co_linetable for instructions given as (code units, positions), in order."""
    if ENCODING.columns:
        return _location_table(first_lineno, spans)
    return _line_table_310(first_lineno, spans)


def _runs(spans: list[tuple[int, Positions]], same: bool) -> list[tuple[int, Positions]]:
    """Merge neighbours whose positions are equal (`same`), or only whose lines are."""
    runs: list[tuple[int, Positions]] = []
    for units, positions in spans:
        key = positions if same else positions.lineno
        if runs and (runs[-1][1] if same else runs[-1][1].lineno) == key:
            runs[-1] = (runs[-1][0] + units, runs[-1][1])
        else:
            runs.append((units, positions))
    return runs


def _line_table_310(first_lineno: int, spans: list[tuple[int, Positions]]) -> bytes:
    """Pairs (bytes covered <= 254, line delta in -127..127); -128 means "no line"."""
    table = bytearray()
    previous = first_lineno
    for units, positions in _runs(spans, same=False):
        line, size = positions.lineno, 2 * units
        if line is None:
            delta = -128
        else:
            delta, previous = line - previous, line
            while delta > 127:
                table += bytes((0, 127))
                delta -= 127
            while delta < -127:
                table += bytes((0, -127 & 0xFF))
                delta += 127
        while size > 254:
            table += bytes((254, delta & 0xFF))
            size -= 254
            delta = -128 if line is None else 0
        table += bytes((size, delta & 0xFF))
    return bytes(table)


def _location_table(first_lineno: int, spans: list[tuple[int, Positions]]) -> bytes:
    table = _LocationTable(first_lineno)
    # 3.11 writes one entry per instruction; 3.12+ merges equal neighbours first.
    for units, positions in _runs(spans, same=True) if ENCODING.merge_locations else spans:
        while units > 8:
            table.entry(positions, 8)
            units -= 8
        table.entry(positions, units)
    return bytes(table.data)


class _LocationTable:
    """Entries of 1-8 code units: a header byte (1, code: 4 bits, units - 1: 3 bits), then
    a form chosen by the code: 0-9 short, 10-12 one line, 13 no columns, 14 long, 15 none."""

    def __init__(self, first_lineno: int) -> None:
        self.data = bytearray()
        self.lineno = first_lineno  # line deltas are relative to the last line written

    def entry(self, positions: Positions, units: int) -> None:
        lineno, end_lineno, col, end_col = positions
        if lineno is None:
            self.header(15, units)
            return
        delta = lineno - self.lineno
        if col is None or end_col is None:
            if end_lineno in (lineno, None):
                self.header(13, units)
                self.signed_varint(delta)
                self.lineno = lineno
                return
        elif end_lineno == lineno:
            if delta == 0 and col < 80 and 0 <= end_col - col < 16:
                self.header(col // 8, units)
                self.data.append((col % 8) << 4 | (end_col - col))
                return
            if 0 <= delta < 3 and col < 128 and end_col < 128:
                self.header(10 + delta, units)
                self.data += bytes((col, end_col))
                self.lineno = lineno
                return
        self.long_form(positions, units, delta)

    def long_form(self, positions: Positions, units: int, delta: int) -> None:
        lineno, end_lineno, col, end_col = positions
        assert lineno is not None
        self.header(14, units)
        self.signed_varint(delta)
        self.varint((lineno if end_lineno is None else end_lineno) - lineno)
        self.varint(0 if col is None else col + 1)
        self.varint(0 if end_col is None else end_col + 1)
        self.lineno = lineno

    def header(self, code: int, units: int) -> None:
        self.data.append(0x80 | code << 3 | (units - 1))

    def varint(self, value: int) -> None:
        """6 bits per byte, least significant first; bit 6 says another byte follows."""
        while value >= 64:
            self.data.append(64 | value & 63)
            value >>= 6
        self.data.append(value)

    def signed_varint(self, value: int) -> None:
        self.varint(-value << 1 | 1 if value < 0 else value << 1)


def exception_table_bytes(rows: list[tuple[int, int, int, int, bool]]) -> bytes:
    """Rows of (start, size, target, depth, lasti), offsets and size in code units."""
    table = bytearray()
    for start, size, target, depth, lasti in rows:
        table += _exception_varint(start, starts_row=True)
        table += _exception_varint(size)
        table += _exception_varint(target)
        table += _exception_varint(depth << 1 | lasti)
    return bytes(table)


def _exception_varint(value: int, starts_row: bool = False) -> bytes:
    """6 bits per byte, most significant first; bit 6 says another byte follows and
    bit 7 marks the first byte of a row."""
    chunks = [value & 63]
    while value >= 64:
        value >>= 6
        chunks.insert(0, 64 | value & 63)
    if starts_row:
        chunks[0] |= 128
    return bytes(chunks)
