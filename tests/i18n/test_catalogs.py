"""Each distribution that marks messages ships a complete Brazilian Portuguese catalog: the
template matches the sources, every message is translated and keeps its placeholders, code,
options and markup, the wheel build compiles it (hatch-babel), and the compiled catalog says
what the source catalog says."""

from __future__ import annotations

import gettext
import tomllib

import pytest
from chatcli._i18n import _Catalog
from chatcli_catalogs import extract, problems
from i18n_support import translated_distributions

LANGUAGE = "pt_BR"
#: The distributions that mark messages are those with a template: ``problems`` holds a
#: template to what the sources mark, and a distribution without one must mark nothing (checked
#: below). Extracting every distribution here would cost each collecting process seconds.
MARKING = [d for d in translated_distributions() if d.template.exists()]
UNMARKED = [d for d in translated_distributions() if not d.template.exists()]


def test_most_distributions_mark_messages():
    from babel.messages.pofile import read_po

    def marks(dist):
        with dist.template.open("rb") as handle:
            return any(message.id for message in read_po(handle))

    assert len([d for d in MARKING if marks(d)]) >= 20, [d.name for d in MARKING]


@pytest.mark.parametrize("dist", UNMARKED, ids=[d.name for d in UNMARKED])
def test_a_distribution_without_a_template_marks_nothing(dist):
    assert not len(extract(dist)), f"{dist.name}: run `chatcli-catalogs update`"


@pytest.mark.parametrize("dist", MARKING, ids=[d.name for d in MARKING])
def test_catalog_is_complete(dist):
    assert problems(dist, LANGUAGE) == []


@pytest.mark.parametrize("dist", MARKING, ids=[d.name for d in MARKING])
def test_wheel_build_compiles_the_catalogs(dist):
    data = tomllib.loads((dist.root / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(r.startswith("hatch-babel") for r in data["build-system"]["requires"])
    hook = data["tool"]["hatch"]["build"]["hooks"]["babel"]
    assert dist.root / hook["locale_dir"] == dist.locale


@pytest.mark.parametrize("dist", MARKING, ids=[d.name for d in MARKING])
def test_compiled_catalog_matches_its_source(dist):
    from babel.messages.pofile import read_po

    po = dist.po(LANGUAGE)
    with po.open("rb") as handle:
        catalog = read_po(handle, locale=LANGUAGE)
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo}: not compiled; run `chatcli-catalogs compile` (uv sync does)"
    with mo.open("rb") as handle:
        standard = gettext.GNUTranslations(handle)
    ours = _Catalog(mo.read_bytes())  # chatcli's own reader of what the wheel carries
    for compiled in (standard, ours):
        for message in catalog:
            if not message.id:
                continue
            if isinstance(message.id, tuple):
                for n, form in ((0, message.string[0]), (1, message.string[0]),
                                (2, message.string[1]), (1000, message.string[1])):
                    assert compiled.ngettext(*message.id, n) == form
            else:
                assert compiled.gettext(message.id) == message.string
    assert ours.gettext("no such message") == "no such message"
    assert ours.ngettext("no such message", "no such messages", 2) == "no such messages"
