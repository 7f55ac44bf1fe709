"""The markers a store's arguments take: :data:`HERE` (the current folder's project) and
:data:`UNCHECKED` (move the head whatever it is). A module of its own, importing nothing of the
package, so that the protocol and the package both import it."""

from __future__ import annotations

__all__ = ["HERE", "UNCHECKED", "Here", "Unchecked"]


class Here:
    """The type of :data:`HERE`."""

    def __repr__(self) -> str:
        return "HERE"


#: "the project of the current folder", where a project can be given.
HERE = Here()


class Unchecked:
    """The type of :data:`UNCHECKED`."""

    def __repr__(self) -> str:
        return "UNCHECKED"


#: ``move_head(..., expected=UNCHECKED)``: move the head whatever it is now.
UNCHECKED = Unchecked()
