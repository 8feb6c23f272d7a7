"""How `Workbench` offers a part's command as its own, in one line and with its exact signature.

    class Workbench:
        fork = handed_to("conversation", ConversationTree.fork)

`wb.fork` is then `wb.conversation.fork`: the part's bound method, with its parameters, return type
and docstring (for the type checker, `help()` and `inspect.signature` alike). The front ends call
the one `Workbench` API; the parts are built with what they use and know nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MethodType
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, cast, overload

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class Handed(Generic[T, P, R]):
    """A descriptor: on an instance, `method` bound to the instance's attribute `part`."""

    def __init__(self, part: str, method: Callable[Concatenate[T, P], R]) -> None:
        self.part = part
        self.method = method
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type[Any] | None = None) -> Callable[P, R]: ...

    def __get__(self, instance: object, owner: type[Any] | None = None) -> Self | Callable[P, R]:
        if instance is None:
            return self
        return cast(Callable[P, R], MethodType(self.method, getattr(instance, self.part)))


def handed_to(part: str, method: Callable[Concatenate[T, P], R]) -> Handed[T, P, R]:
    """`method` of the part held in attribute `part`, offered by the class this is assigned in."""
    return Handed(part, method)
