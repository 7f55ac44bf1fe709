"""chatcli's translation catalogs, one gettext domain per distribution, managed with Babel.

A distribution marks its messages with ``_``/``ngettext`` from :func:`chatcli.translation`; its
catalogs live in its import package, ``<package>/locale/``:

- ``messages.pot``: the template, every marked message (:func:`extract`, :func:`write_template`);
- ``<lang>/LC_MESSAGES/messages.po``: one language's translations (:func:`update`);
- ``<lang>/LC_MESSAGES/messages.mo``: what chatcli reads, compiled when the wheel is built
  (hatch-babel) or by :func:`compile_catalogs` in a checkout (not committed).

:func:`problems` is what the tests hold every catalog to: the template up to date, every message
translated, and each translation keeping its message's ``{placeholders}``, `` `code` ``,
``--options`` and rich ``[markup]``.
"""

from __future__ import annotations

import io
import os
import re
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

__all__ = [
    "LANGUAGES",
    "Distribution",
    "compile_catalogs",
    "distributions",
    "extract",
    "kept_tokens",
    "problems",
    "update",
    "write_template",
]

#: The languages chatcli ships besides English.
LANGUAGES = ("pt_BR",)
#: Fixed, so an unchanged template is an unchanged file.
_CREATED = datetime(2026, 1, 1, tzinfo=UTC)
_WIDTH = 100
_PLURALS = {"pt_BR": "nplurals=2; plural=(n > 1);"}
#: What a translation must keep of its message: placeholders, code, options, rich markup.
_KEPT = re.compile(r"\{[^{}\s]*\}|`[^`]+`|(?<![\w}-])--?[a-zA-Z][\w-]*|\[/?[a-z]+(?: [a-z]+)*\]")


@dataclass(frozen=True)
class Distribution:
    """One distribution of the workspace: its name, folder and import package's folder."""

    name: str
    root: Path
    package: Path

    @property
    def locale(self) -> Path:
        """The package's ``locale`` folder."""
        return self.package / "locale"

    @property
    def template(self) -> Path:
        """The template, ``locale/messages.pot``."""
        return self.locale / "messages.pot"

    def po(self, language: str) -> Path:
        """The catalog of ``language``."""
        return self.locale / language / "LC_MESSAGES" / "messages.po"


def distributions(workspace: Path) -> list[Distribution]:
    """The workspace's distributions that ship an import package (kernel, libs, providers,
    plugins, skills), sorted by name."""
    found = []
    for pyproject in sorted(workspace.glob("*/pyproject.toml")) + sorted(
            workspace.glob("*/*/pyproject.toml")):
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        wheel = data.get("tool", {}).get("hatch", {}).get("build", {}).get("targets", {}).get(
            "wheel", {})
        packages = wheel.get("packages") or []
        if "project" in data and packages:
            found.append(Distribution(data["project"]["name"], pyproject.parent,
                                      pyproject.parent / packages[0]))
    return sorted(found, key=lambda d: d.name)


def _walked(folder: str) -> bool:
    """Every source folder but hidden ones and bytecode (Babel's default also skips ``_*``
    folders, which are private packages here: ``chatcli._cli``, ``chatcli_agent._shell``)."""
    name = os.path.basename(folder)
    return not name.startswith(".") and name != "__pycache__"


def extract(dist: Distribution) -> Catalog:
    """Every message the distribution's Python sources mark (``_``, ``ngettext`` …), with
    ``# i18n:`` comments above a message as notes for translators."""
    catalog = Catalog(project=dist.name, creation_date=_CREATED, fuzzy=False,
                      copyright_holder="chatcli's authors",
                      header_comment=f"# {dist.name}: its messages to translate "
                                     "(`chatcli-catalogs update` writes this file).")
    for filename, lineno, message, comments, context in extract_from_dir(
            str(dist.package), method_map=[("**.py", "python")], keywords=DEFAULT_KEYWORDS,
            comment_tags=("i18n:",), strip_comment_tags=True, directory_filter=_walked):
        if message and (message[0] if isinstance(message, tuple) else message):
            catalog.add(message, None, [(filename, lineno)], auto_comments=comments,
                        context=context)
    return catalog


def _write(path: Path, catalog: Catalog, **options: object) -> None:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=_WIDTH, include_lineno=False, sort_by_file=True,
             ignore_obsolete=True, **options)  # type: ignore[arg-type]
    _replace(path, buffer.getvalue())


def _replace(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_bytes() == data:
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def write_template(dist: Distribution) -> Catalog:
    """Extract the distribution's messages into ``locale/messages.pot``; returns them."""
    template = extract(dist)
    _write(dist.template, template)
    return template


def _read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=language)


def _new_catalog(dist: Distribution, language: str) -> Catalog:
    catalog = Catalog(
        locale=language, project=dist.name, version=None, creation_date=_CREATED,
        revision_date=_CREATED, fuzzy=False, copyright_holder="chatcli's authors",
        last_translator="chatcli's authors", language_team=f"chatcli ({language})",
        header_comment=f"# {dist.name}: its messages in {language}.\n"
                       "# Terms: libs/catalogs/GLOSSARY.md.")
    # gettext's customary two forms (0 and 1 singular), not CLDR's third form for millions.
    catalog.mime_headers = [("Plural-Forms", _PLURALS.get(language, catalog.plural_forms))]
    return catalog


def update(dist: Distribution, language: str) -> Catalog:
    """Bring ``language``'s catalog in line with the template (made when missing): new
    messages added untranslated, removed ones dropped, nothing guessed (no fuzzy matching)."""
    template = _read(dist.template)
    path = dist.po(language)
    catalog = _read(path, language) if path.exists() else _new_catalog(dist, language)
    catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
    _write(path, catalog)
    return catalog


def compile_catalogs(dist: Distribution) -> list[Path]:
    """Compile each language's ``messages.po`` into ``messages.mo`` beside it (what a wheel
    build does); returns the compiled files."""
    compiled = []
    for language in LANGUAGES:
        path = dist.po(language)
        if path.exists():
            buffer = io.BytesIO()
            write_mo(buffer, _read(path, language), use_fuzzy=False)
            _replace(path.with_suffix(".mo"), buffer.getvalue())
            compiled.append(path.with_suffix(".mo"))
    return compiled


def kept_tokens(message: str) -> list[str]:
    """What a translation of ``message`` must keep, sorted: ``{placeholders}``, `` `code` ``,
    ``--options`` and rich ``[markup]`` tags."""
    return sorted(_KEPT.findall(message))


def _ids(catalog: Catalog) -> set[tuple[object, str | None]]:
    return {(message.id, message.context) for message in catalog if message.id}


def problems(dist: Distribution, language: str) -> list[str]:
    """What is wrong with the distribution's catalogs, one line each (empty: complete): a
    template behind the sources, a message untranslated or fuzzy, a translation that lost or
    added a placeholder, code span, option or markup tag."""
    if not dist.template.exists():
        return [f"{dist.name}: no {dist.template.name}: run `chatcli-catalogs update`"]
    found = []
    if _ids(extract(dist)) != _ids(_read(dist.template)):
        found.append(f"{dist.name}: {dist.template.name} is behind the sources: run "
                     "`chatcli-catalogs update`")
    if not dist.po(language).exists():
        return [*found, f"{dist.name}: no {language} catalog: run `chatcli-catalogs update`"]
    catalog = _read(dist.po(language), language)
    if _ids(catalog) != _ids(_read(dist.template)):
        found.append(f"{dist.name}: the {language} catalog is behind the template: run "
                     "`chatcli-catalogs update`")
    for message in catalog:
        if not message.id:
            continue
        ids = [str(i) for i in (message.id if isinstance(message.id, tuple) else (message.id,))]
        strings = [str(s or "") for s in (
            message.string if isinstance(message.string, tuple | list) else (message.string,))]
        where = f"{dist.name}: {ids[0]!r}"
        if message.fuzzy or not all(strings):
            found.append(f"{where}: not translated")
            continue
        allowed = [kept_tokens(i) for i in ids]  # a plural's forms may follow either form
        for string in strings:
            if kept_tokens(string) not in allowed:
                found.append(f"{where}: the translation {string!r} does not keep "
                             f"{allowed[-1]}")
    return found
