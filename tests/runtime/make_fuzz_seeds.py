#!/usr/bin/env python3
"""Writes the seeds of fuzz_packets (tests/runtime/fuzz_seeds/*.bin).

The input format is PacketFuzzCheck.h's: a queue byte (bit 0: the agent
dispatch agent's queue, bit 1: multi-producer, bit 2: one doorbell store,
bits 3+: log2 of the size), the packet count - 1, four initial dependency
values, then per packet 64 raw bytes, a choice byte (bit 7: one of the four
packet types, 2 + bits 5-6; bits 0-1: 0 own completion signal, 2 none,
3 a dead one; bits 2-4: kernel object pool), a second choice byte (kernel
of the pool, kernarg kind in bits 4-5, bit 3: one-dimensional, agent
dispatch type) and, for barriers, five dependency picks.
"""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_seeds")


def dispatch(dims=1, wg=(4, 1, 1), grid=(10, 1, 1), group=0, private=0):
    body = struct.pack("<HH3H H3I II Q Q Q Q", 1, dims, *wg, 0, *grid,
                       private, group, 0, 0, 0, 0)
    assert len(body) == 64
    return body


def packet(raw, choice, choice2, extra=b""):
    return raw + bytes([choice, choice2]) + extra


KERNEL, AND, AGENT, OR = 0x80, 0xa0, 0xc0, 0xe0  # choice bits 5-7


def header(type_, barrier=0):
    return type_ | (barrier << 8) | (2 << 9) | (2 << 11)


def with_header(raw, h):
    return struct.pack("<H", h) + raw[2:]


def seeds():
    # Kernel dispatches of each live kernel, 1D to 3D, partial groups.
    ps = []
    for k, (dims, wg, grid) in enumerate([(1, (4, 1, 1), (10, 1, 1)),
                                          (2, (2, 3, 1), (5, 7, 1)),
                                          (3, (2, 2, 2), (3, 3, 3)),
                                          (1, (64, 1, 1), (64, 1, 1))]):
        raw = with_header(dispatch(dims, wg, grid, 128, 32), header(2))
        ps.append(packet(raw, KERNEL, k % 3))
    yield "dispatches", bytes([2 | (4 << 3), len(ps) - 1, 0, 0, 0, 0]) + b"".join(ps)
    # Barrier-AND and barrier-OR on dependencies that start at 1, between
    # dispatches; the barrier bit set on the last.
    ps = [packet(with_header(dispatch(), header(2)), KERNEL, 0),
          packet(with_header(bytes(64), header(3)), AND, 0,
                 bytes([2, 3, 4, 0, 0])),
          packet(with_header(bytes(64), header(5)), OR, 0,
                 bytes([2, 10, 0, 0, 0])),
          packet(with_header(dispatch(), header(2, 1)), KERNEL, 1)]
    yield "barriers", bytes([4 << 3, len(ps) - 1, 1, 1, 0, 1]) + b"".join(ps)
    # Agent dispatch packets: the counting handler, then the failing one.
    def agent(t):
        return with_header(struct.pack("<HHI Q 4Q Q Q", 0, t, 0, 0, 1, 2, 3,
                                       4, 0, 0), header(4))
    ps = [packet(agent(0x8000), AGENT | 2, 2), packet(agent(0x8000), AGENT, 2),
          packet(agent(0x8001), AGENT, 2)]
    yield "agent_dispatch", bytes([1 | (3 << 3), len(ps) - 1, 0, 0, 0, 0]) + \
        b"".join(ps)
    # A dispatch of a destroyed kernel after a good one: an error.
    ps = [packet(with_header(dispatch(), header(2)), KERNEL, 0),
          packet(with_header(dispatch(), header(2)), KERNEL | (3 << 2), 0)]
    yield "destroyed_kernel", bytes([4 | (2 << 3), 1, 0, 0, 0, 0]) + b"".join(ps)


os.makedirs(HERE, exist_ok=True)
for name, data in seeds():
    with open(os.path.join(HERE, name + ".bin"), "wb") as f:
        f.write(data)
