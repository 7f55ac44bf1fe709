"""Every user-facing text of every distribution is marked for translation (extraction
coverage): the finder of unmarked text (i18n_support.unmarked) over each distribution's
sources, and the finder itself on small modules."""

from __future__ import annotations

import pytest
from i18n_support import translated_distributions, unmarked, unmarked_in

DISTRIBUTIONS = translated_distributions()


@pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=[d.name for d in DISTRIBUTIONS])
def test_every_user_facing_text_is_marked(dist):
    found = unmarked_in(dist)
    assert not found, f"{len(found)} unmarked:\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    'raise ConfigError(f"unknown model {name}", "run `chatcli models`")',
    'raise click.UsageError("no such session")',
    'click.echo("no plugins installed")',
    'console.print(f"[red]cannot read[/red] {path}")',
    'sys.stderr.write("chatcli: stopped\\n")',
    '@click.option("--all", help="Show every session.")\ndef f(): pass',
    'SlashCommand(name="cost", help="Show what this session cost", run=run)',
    'HELP = "Rewind the conversation"',
    'sys.exit("chatcli: interrupted")',
    'x = _(f"unknown model {name}")',
    'x = _(text)',
    'out.append("nothing to undo")',
    'raise ConfigError("bad" if x else "worse value", "fix it")',
    '@cli.command()\ndef serve():\n    """Serve chatcli over HTTP."""',
    'Field(None, description="Extra system prompt text.")',
])
def test_unmarked_text_is_found(source):
    assert unmarked(source), source


@pytest.mark.parametrize("source", [
    'raise ConfigError(_("unknown model {name}").format(name=n), _("run `chatcli models`"))',
    'click.echo(ngettext("{n} file", "{n} files", n).format(n=n))',
    'click.echo(f"{key} = {value}")',
    'console.print("$ " + command)',
    'raise ValueError(f"bad offset {offset}")',
    'logger.warning("provider answered %s", status)',
    'click.echo("--json")',
    'print(json.dumps(data))',
    '@cli.command(help=_("Serve chatcli over HTTP."))\ndef serve():\n    """Doc."""',
    'console.print("Protocol words")  # untranslated: the wire format',
    'x = f"not shown {y}"',
])
def test_marked_or_wordless_text_is_accepted(source):
    assert unmarked(source) == [], source
