"""Who holds the live streams of `we serve`, so that one guest cannot hold them all
(docs/service.md, "On a party's Wi-Fi").

A seat or the table needs a few tabs, not hundreds: a key holds at most `per_key` live streams,
and a new one makes the oldest of that key's give way (a phone that slept left its old stream
half-open; the new tab is the one being read). One client address holds at most `per_address`
(a convention behind one NAT raises it); beyond that a new stream is refused, so a guest cannot
push out a neighbour's. The host's key is counted by neither: the host always gets in.

Everything here runs on the event loop, so it takes no lock.
"""

from __future__ import annotations

import asyncio
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count

from service.keys import HOST, Role

STREAMS_PER_KEY = 4
STREAMS_PER_ADDRESS = 32
# How long a stream that gave way may take to say so before its connection is cut: a client
# that reads nothing would otherwise keep it (and what is buffered for it) for ever.
GIVE_WAY_GRACE = 1.0


class TooManyStreams(Exception):
    """This address holds as many live streams as it may."""


@dataclass(eq=False)
class LiveStream:
    """One live stream: `gave_way` is true once a newer stream of its key has taken its place,
    and `wake` (the stream's own wake-up, set by its route) is called then."""

    number: int
    key: tuple[str, str | None, str | None] | None  # None: the host's, never counted
    address: str
    cut: Callable[[], None] | None  # closes the connection outright (None: not under `we serve`)
    gave_way: bool = False
    wake: Callable[[], None] | None = None
    ended: bool = False

    def cut_if_still_open(self) -> None:
        if not self.ended and self.cut is not None:
            self.cut()


@dataclass
class StreamLimits:
    per_key: int = STREAMS_PER_KEY
    per_address: int = STREAMS_PER_ADDRESS


class LiveStreams:
    """The live streams of one server, by key and by client address."""

    def __init__(self, limits: StreamLimits | None = None) -> None:
        self.limits = limits or StreamLimits()
        self.by_key: dict[tuple[str, str | None, str | None], OrderedDict[int, LiveStream]] = {}
        self.by_address: Counter[str] = Counter()
        self._numbers = count(1)

    def open(self, role: Role, address: str, cut: Callable[[], None] | None = None) -> LiveStream:
        """A new stream for `role` from `address`; raises TooManyStreams when the address is full."""
        key = None if role.kind == HOST else (role.kind, role.game, role.seat)
        stream = LiveStream(next(self._numbers), key, address, cut)
        if key is None:
            return stream
        held = self.by_key.setdefault(key, OrderedDict())
        while len(held) >= self.limits.per_key:
            _, oldest = held.popitem(last=False)
            self._forget_address(oldest)
            self._give_way(oldest)
        if self.by_address[address] >= self.limits.per_address:
            if not held:
                del self.by_key[key]
            raise TooManyStreams(
                f"{self.limits.per_address} live streams are open from this address already: close"
                " a tab, or ask the host to raise `we serve --streams-per-address`"
            )
        held[stream.number] = stream
        self.by_address[address] += 1
        return stream

    def close(self, stream: LiveStream) -> None:
        """The stream ended (its client left, it gave way, the server stops): its place is free."""
        stream.ended = True
        if stream.key is None:
            return
        held = self.by_key.get(stream.key)
        if held is not None and held.pop(stream.number, None) is not None:
            self._forget_address(stream)
            if not held:
                del self.by_key[stream.key]

    def _forget_address(self, stream: LiveStream) -> None:
        self.by_address[stream.address] -= 1
        if self.by_address[stream.address] <= 0:
            del self.by_address[stream.address]

    @staticmethod
    def _give_way(stream: LiveStream) -> None:
        stream.gave_way = True
        if stream.wake is not None:
            stream.wake()
        if stream.cut is not None:
            asyncio.get_running_loop().call_later(GIVE_WAY_GRACE, stream.cut_if_still_open)

    def __len__(self) -> int:
        return sum(self.by_address.values())
