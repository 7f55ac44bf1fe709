"""``NamedTuple`` and ``dataclass`` that cost less to define: for records made at every start.

chatcli imports its kernel and every plugin at each start, and each record class they define is
paid for again: ``typing.NamedTuple`` checks every field's annotation (under ``from __future__
import annotations`` each is a string it compiles into a ``ForwardRef``), and
``dataclasses.dataclass`` compiles every generated method from source text, about 0.3 ms each (a
frozen class gets six). Type checkers see typing's ``NamedTuple`` and dataclasses' ``dataclass``;
at run time:

``NamedTuple`` makes the same class with ``collections.namedtuple`` (the fields, their defaults,
the methods, properties and docstring of the class body) and keeps the annotations as written
(strings, which ``typing.get_type_hints`` evaluates as usual). Only the class syntax is supported.

``dataclass`` is ``dataclasses.dataclass`` (``frozen``, ``slots``; other options are not taken)
whose ``__repr__``, ``__eq__`` and ``__hash__`` are shared functions reading the class's fields
instead of code compiled for each class. The results are the same (the same text, the same
comparisons and hashes of the same field tuples, ``...`` for a recursive repr, the same rules for
a method the class body defines itself); only ``__init__`` (and a frozen class's
``__setattr__``/``__delattr__``) are still generated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["NamedTuple", "dataclass"]

if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
    from typing import NamedTuple as NamedTuple
else:
    from _thread import get_ident
    from collections import namedtuple
    from operator import attrgetter

    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _Meta(type):
        def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> type:
            types = ns.get("__annotations__", {})
            record = namedtuple(typename, list(types), module=ns["__module__"],
                                defaults=[ns[name] for name in types if name in ns])
            record.__annotations__ = record.__new__.__annotations__ = dict(types)
            for key, value in ns.items():
                if key not in _SPECIAL and key not in types:
                    setattr(record, key, value)
            return record

    _Base = type.__new__(_Meta, "NamedTuple", (), {})

    def NamedTuple(*args: Any, **kwargs: Any) -> Any:
        """Only the class syntax (``class Record(NamedTuple): ...``) is supported."""
        raise TypeError("use the class syntax: class Record(NamedTuple)")

    NamedTuple.__mro_entries__ = lambda bases: (_Base,)

    def _getter(names: tuple[str, ...]) -> Any:
        """``obj -> tuple of those attributes`` (attrgetter gives a bare value for one name)."""
        if len(names) > 1:
            return attrgetter(*names)
        if names:
            one = attrgetter(names[0])
            return lambda obj: (one(obj),)
        return lambda obj: ()

    def _methods(cls: type) -> dict[str, Any]:
        """``__repr__``, ``__eq__`` and ``__hash__`` as ``dataclasses`` writes them for ``cls``."""
        import dataclasses  # (only here: a start-up that defines no dataclass never imports it)

        fields = dataclasses.fields(cls)
        shown = tuple(f.name for f in fields if f.repr)
        compared = _getter(tuple(f.name for f in fields if f.compare))
        hashed = _getter(tuple(f.name for f in fields
                               if (f.compare if f.hash is None else f.hash)))
        running: set[tuple[int, int]] = set()

        def __repr__(self: Any) -> str:
            key = id(self), get_ident()
            if key in running:
                return "..."
            running.add(key)
            try:
                return (f"{self.__class__.__qualname__}("
                        + ", ".join(f"{name}={getattr(self, name)!r}" for name in shown) + ")")
            finally:
                running.discard(key)

        def __eq__(self: Any, other: object) -> Any:
            if other.__class__ is self.__class__:
                return compared(self) == compared(other)
            return NotImplemented

        def __hash__(self: Any) -> int:
            return hash(hashed(self))

        methods = {"__repr__": __repr__, "__eq__": __eq__, "__hash__": __hash__}
        for name, method in methods.items():
            method.__qualname__ = f"{cls.__qualname__}.{name}"
        return methods

    def dataclass(cls: Any = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
        """``dataclasses.dataclass(cls, frozen=..., slots=...)``, its ``__repr__``, ``__eq__``
        and ``__hash__`` shared instead of compiled (see the module's docstring)."""

        def wrap(cls: type) -> type:
            import dataclasses

            body = dict(cls.__dict__)
            class_hash = body.get("__hash__", dataclasses.MISSING)
            explicit_hash = not (class_hash is dataclasses.MISSING
                                 or (class_hash is None and "__eq__" in body))
            made: Any = dataclasses.dataclass(cls, repr=False, eq=False, frozen=frozen,
                                              slots=slots)
            made.__dataclass_params__.repr = made.__dataclass_params__.eq = True
            methods = _methods(made)
            for name in ("__repr__", "__eq__"):
                if name not in body:  # dataclasses leaves a method the class defines
                    setattr(made, name, methods[name])
            if not explicit_hash:  # eq=True: frozen adds a hash, otherwise unhashable
                made.__hash__ = methods["__hash__"] if frozen else None
            return made

        return wrap if cls is None else wrap(cls)
