"""The permission policy is made at the first judgement, not when a session starts: a session
(and a ``chatcli -p`` run) that calls no tool never imports the policy module and the shell
parser. Until then the state holds the mode and the rules, which the policy then shares; a
bad configuration still stops the session at its start. Likewise the code that runs user hooks
is imported only when some hook is configured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: A fresh process: load the state of a session, say whether the policy module was imported,
#: then judge one call and say it again.
_PROBE = """
import sys
from pathlib import Path
from chatcli import Settings, ToolCallPart, ToolSpec, Risk
from chatcli_agent.permissions.state import load_state
state = load_state(Settings(), Path(sys.argv[1]), frozenset({"exec(make:*)"}), "accept-edits",
                   tools=["exec", "read"])
print("chatcli_agent.permissions.policy" in sys.modules, state.mode, [r.text for r in state.rules])
verdict = state.policy.judge(ToolCallPart(name="exec", arguments={"command": "make"}),
                             ToolSpec("exec", "", {}, Risk.EXECUTE, "command", False)).verdict
print("chatcli_agent.permissions.policy" in sys.modules, verdict.decision.value)
"""


def test_a_session_imports_the_policy_only_to_judge(ws) -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(ws.root)], capture_output=True,
                          text=True, check=True, cwd=Path(__file__).parent)
    assert done.stdout.splitlines() == ["False accept-edits ['exec(make:*)']", "True allow"]


def test_the_policy_shares_the_states_rules_and_mode(ws, driver) -> None:
    ws.user_config.write_text('[permissions]\nallow = ["exec(make:*)"]\n')
    session = driver(allow=frozenset({"write"}), settings={"permissions": {"mode": "plan"}})
    state = session.plugin.state_for(session.session)
    assert state._policy is None and state.mode == "plan"
    state.set_mode("accept-edits", "test")
    policy = state.policy
    assert policy.mode == "accept-edits" and policy.classes == {"write"}
    assert policy.rules is state.rules and [r.text for r in policy.rules] == ["exec(make:*)"]
    state.add_rules(["exec(cargo build:*)"], "allow", "this session")
    assert [r.text for r in policy.rules] == ["exec(make:*)", "exec(cargo build:*)"]
    state.set_mode("plan", "test")
    assert policy.mode == state.mode == "plan" and state.policy is policy


def test_a_bad_mode_still_stops_the_session_at_its_start(ws, driver) -> None:
    from chatcli import ConfigError

    ws.user_config.write_text('[permissions]\nmode = "acept-edits"\n')
    with pytest.raises(ConfigError, match="unknown mode 'acept-edits'"):
        driver()


#: A fresh process: configure the user-hooks plugin, say whether the code that runs hooks was
#: imported and how many hooks it holds.
_HOOKS_PROBE = """
import sys
from pathlib import Path
from chatcli import Settings
from chatcli_agent.user_hooks import plugin
from chatcli_agent.user_hooks.state import CONFIG
plugin.configure(None, Settings(), Path(sys.argv[1]))
print("chatcli_agent.user_hooks.events" in sys.modules, len(CONFIG.hooks))
"""


def test_hooks_code_is_imported_only_when_a_hook_is_configured(ws) -> None:
    def probe() -> str:
        return subprocess.run([sys.executable, "-c", _HOOKS_PROBE, str(ws.root)],
                              capture_output=True, text=True, check=True,
                              cwd=Path(__file__).parent).stdout.strip()

    assert probe() == "False 0"
    ws.user_config.write_text('[[hooks.PreToolUse]]\nmatcher = "exec"\ncommand = "true"\n')
    assert probe() == "True 1"
