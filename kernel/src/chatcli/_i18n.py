"""Translations: chatcli's messages in the user's language, one gettext catalog per distribution.

A distribution ships ``<package>/locale/<lang>/LC_MESSAGES/messages.mo`` in its import package
(compiled from ``messages.po`` when its wheel is built). A module marks its messages::

    _, ngettext = translation(__name__)
    raise ConfigError(_("unknown model {name}").format(name=name), _("run `chatcli models`"))

The language is ``CHATCLI_LANG``, else the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``; ``C``
and ``POSIX`` name none), else ``language`` in the user's settings file; English when no
catalog matches. A domain's catalog is read on its first message, never at start-up.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Translation", "answer_instruction", "forget_language", "language", "translation"]

_NAMES = {"pt_BR": "Brazilian Portuguese", "pt_PT": "European Portuguese", "pt": "Portuguese",
          "es": "Spanish", "fr": "French", "de": "German", "it": "Italian", "nl": "Dutch",
          "pl": "Polish", "ru": "Russian", "uk": "Ukrainian", "tr": "Turkish", "ja": "Japanese",
          "ko": "Korean", "zh_CN": "Simplified Chinese", "zh_TW": "Traditional Chinese",
          "zh": "Chinese", "hi": "Hindi", "ar": "Arabic", "id": "Indonesian"}
_state: dict[str, str] = {}
_translations: dict[str, Translation] = {}


def _code(value: object) -> str:
    """``pt_BR.UTF-8`` → ``pt_BR``; ``""`` for C, POSIX, nothing or something else."""
    lang, _, region = str(value or "").split(".")[0].split("@")[0].strip().replace(
        "-", "_").partition("_")
    if not (2 <= len(lang) <= 3 and lang.isascii() and lang.isalpha()) or (region and not (
            region.isascii() and (region.isalpha() or region.isdigit())
            and len(region) == (2 if region.isalpha() else 3))):
        return ""
    return f"{lang.lower()}_{region.upper()}" if region else lang.lower()


def language() -> str:
    """The user's language as a locale code (``pt_BR``, ``de``, ``en``): what chatcli's
    messages are in when a catalog has it, and what the model is asked to answer in."""
    if "language" not in _state:
        found = next((c for v in ("CHATCLI_LANG", "LC_ALL", "LC_MESSAGES", "LANG")
                      if (c := _code(os.environ.get(v)))), "")
        if not found:  # the user's settings file (its own load reports what is wrong in it)
            from chatcli._paths import directory

            path = os.path.join(directory("config"), "config.toml")
            try:
                import tomllib

                if os.path.isfile(path):  # not a FIFO or a folder
                    with open(path, "rb") as file:
                        found = _code(tomllib.load(file).get("language"))
            except Exception:  # unreadable, not TOML, too deep: English until it is fixed
                found = ""
        _state["language"] = found or "en"
    return _state["language"]


def answer_instruction(setting: str = "auto") -> str | None:
    """The system prompt's sentence naming the language to answer in: ``setting`` is
    ``answer_language`` (``auto``: the user's, ``off``, or a code); None for English or off."""
    code = language() if setting == "auto" else _code(setting)
    name = _NAMES.get(code) or _NAMES.get(code.split("_")[0])
    if setting == "off" or not code or code.startswith("en") or name is None:
        return None
    return (f"The user's language is {name}: answer in {name} unless they ask otherwise, "
            "keeping code, commands, paths and identifiers as they are.")


class _Untranslated:
    """English: each message as written."""

    def gettext(self, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural


class _Catalog(_Untranslated):
    """A compiled catalog (``.mo``, UTF-8), looked up in place: a message is found by searching
    the file's bytes (C speed) and checked against the table of originals, so reading a catalog
    costs no work per message (gettext's reader decodes them all first, ~10 µs a message)."""

    def __init__(self, data: bytes) -> None:
        order: Any = "little" if data[:4] == b"\xde\x12\x04\x95" else "big"
        if int.from_bytes(data[:4], order) != 0x950412DE:
            raise ValueError("not a compiled catalog")
        count, originals, translations = (int.from_bytes(data[at:at + 4], order)
                                          for at in (8, 12, 16))
        if order == sys.byteorder:  # the tables as machine words (struct costs 0.8 M to import)
            view = memoryview(data)
            self.originals, self.translations = (view[at:at + 8 * count].cast("I").tolist()
                                                 for at in (originals, translations))
        else:
            import struct

            self.originals, self.translations = (
                list(struct.unpack_from(f">{2 * count}I", data, at))
                for at in (originals, translations))
        self.data = data
        self.index = dict(zip(self.originals[1::2], range(count), strict=True))
        self.start = min(self.index, default=len(data))  # where the strings begin
        header = self.text(0) if count and self.originals[0] == 0 else ""
        self.plural_rule = header.partition("plural=")[2].partition(";")[0].strip() or "n != 1"
        self.plural: Any = None

    def text(self, number: int) -> str:
        """The translation of the ``number``-th original."""
        size, offset = self.translations[2 * number:2 * number + 2]
        return self.data[offset:offset + size].decode()

    def find(self, key: bytes) -> str | None:
        """The translation of the original ``key`` (None when the catalog has none)."""
        needle = key + b"\0"
        at = self.data.find(needle, self.start)
        while at >= 0:
            number = self.index.get(at)
            if number is not None and self.originals[2 * number] == len(key):
                return self.text(number)
            at = self.data.find(needle, at + 1)
        return None

    def gettext(self, message: str) -> str:
        found = self.find(message.encode())
        return message if found is None else found

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        found = self.find(f"{singular}\0{plural}".encode())
        if found is None:
            return super().ngettext(singular, plural, n)
        if self.plural is None:  # (gettext's reader of C plural rules: click imports it)
            from gettext import c2py

            self.plural = c2py(self.plural_rule)
        forms = found.split("\0")
        return forms[min(int(self.plural(n)), len(forms) - 1)]


class Translation:
    """The messages of one distribution (its import package's catalogs) in the user's language.

    Messages keep their ``{name}`` placeholders for :meth:`str.format`, so a catalog can be
    checked against them.
    """

    __slots__ = ("_catalog", "package")

    def __init__(self, package: str) -> None:
        self.package = package
        self._catalog: Any = None

    def _load(self) -> Any:
        code, catalog = language(), _Untranslated()
        module = sys.modules.get(self.package)
        if not code.startswith("en") and module is not None and getattr(module, "__file__", None):
            folder = os.path.join(os.path.dirname(str(module.__file__)), "locale")
            for tried in (code, code.split("_")[0], *(["pt_BR"] if code.startswith("pt") else [])):
                try:
                    with open(os.path.join(folder, tried, "LC_MESSAGES", "messages.mo"), "rb") as f:
                        catalog = _Catalog(f.read())
                    break
                except FileNotFoundError:
                    continue
                except Exception:  # a damaged catalog (any error reading it): English
                    break
        self._catalog = catalog
        return catalog

    def gettext(self, message: str) -> str:
        """``message`` in the user's language (as written when the catalog lacks it)."""
        return (self._catalog or self._load()).gettext(message)  # type: ignore[no-any-return]

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The form of a message for the count ``n`` (the language's plural rules)."""
        return (self._catalog or self._load()).ngettext(  # type: ignore[no-any-return]
            singular, plural, n)


def forget_language() -> None:
    """Resolve the language again, and read catalogs again, on the next message: for a
    long-running process whose user changed the ``language`` setting, and for tests (the test
    kit's ``chatcli_language`` fixture). Text made at import keeps the language it was made in."""
    _state.clear()
    for found in _translations.values():
        found._catalog = None


def translation(name: str) -> tuple[Callable[[str], str], Callable[[str, str, int], str]]:
    """``(gettext, ngettext)`` of the distribution whose import package holds the module
    ``name`` (pass ``__name__``): its :class:`Translation`, one per package."""
    package = name.partition(".")[0]
    found = _translations.get(package)
    if found is None:
        found = _translations[package] = Translation(package)
    return found.gettext, found.ngettext
