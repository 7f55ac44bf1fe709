"""``NamedTuple`` for the kernel's records, without typing's cost per field at import.

``typing.NamedTuple`` checks every field's annotation, and under ``from __future__ import
annotations`` each one is a string it compiles into a ``ForwardRef``: the records that
``chatcli models`` imports cost about as much as all of pluggy. Type checkers see typing's
``NamedTuple``; at run time this one makes the same class with ``collections.namedtuple`` (the
fields, their defaults, the methods, properties and docstring of the class body) and keeps the
annotations as written (strings, which ``typing.get_type_hints`` evaluates as usual).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["NamedTuple"]

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    from collections import namedtuple

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
