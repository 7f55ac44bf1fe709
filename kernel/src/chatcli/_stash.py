"""Typed per-object storage for plugins: :class:`Stash` and :class:`StashKey` (pytest's design).

A plugin that keeps state per session or per conversation declares a key once, at module level,
and stores its state on the object the state belongs to::

    STATE = chatcli.StashKey[MyState]()

    @chatcli.hookimpl
    def session_start(session):
        session.stash[STATE] = MyState()

The state lives exactly as long as the session or conversation (no weak dictionaries), two
plugins never collide (a key is an object, not a name), and mypy knows ``session.stash[STATE]``
is a ``MyState``. Stashes are not persisted: a resumed conversation starts with an empty one.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, cast

__all__ = ["Stash", "StashKey"]

T = TypeVar("T")
D = TypeVar("D")


class StashKey(Generic[T]):
    """A key of a :class:`Stash`; ``StashKey[T]()`` makes a new one whose values are ``T``.

    Keys compare by identity: make each once (at module level) and share that object.
    """

    __slots__ = ()


class Stash:
    """A ``dict``-like store whose keys are :class:`StashKey` objects and whose values have the
    key's type.

    ``stash[key] = value``, ``stash[key]`` (``KeyError`` when unset), ``del stash[key]``,
    ``key in stash``, ``stash.get(key, default)``, ``stash.setdefault(key, default)``, ``len``.
    """

    __slots__ = ("_storage",)

    def __init__(self) -> None:
        self._storage: dict[StashKey[Any], object] = {}

    def __setitem__(self, key: StashKey[T], value: T) -> None:
        self._storage[key] = value

    def __getitem__(self, key: StashKey[T]) -> T:
        return cast(T, self._storage[key])

    def get(self, key: StashKey[T], default: D) -> T | D:
        """The value for ``key``, or ``default`` when it is unset."""
        return cast("T | D", self._storage.get(key, default))

    def setdefault(self, key: StashKey[T], default: T) -> T:
        """The value for ``key``; when it is unset, store ``default`` first and return it."""
        return cast(T, self._storage.setdefault(key, default))

    def __delitem__(self, key: StashKey[T]) -> None:
        del self._storage[key]

    def __contains__(self, key: StashKey[T]) -> bool:
        return key in self._storage

    def __len__(self) -> int:
        return len(self._storage)

    def __repr__(self) -> str:
        return f"<Stash: {len(self._storage)} key(s)>"
