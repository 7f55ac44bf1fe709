"""The session budget: one warning line when spending reaches 80 %, another at 100 %, through
the kernel's warning path; none without a budget; a resumed session warns again."""

from __future__ import annotations

from chatcli import SessionOptions, hookimpl
from chatcli_testing import Reply
from cost_support import ask, cost_lines, make_run, open_session, settings

#: 1,000 fresh input tokens at $3 per million: $0.003 a call.
CALL = {"input_tokens": 1000, "output_tokens": 0}
BUDGET = 0.01  # so: 30 %, 60 %, 90 %, 120 % after each call


def budget_warnings(run) -> list[str]:
    return [w for w in run.warnings if "budget" in w]


def test_a_warning_at_80_and_another_at_100_percent(anthropic_server, chatcli_home,
                                                    monkeypatch, tmp_path):
    anthropic_server.script(*[Reply(text=f"a{i}", usage=CALL) for i in range(5)])
    run = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(run, settings("anthropic", "claude-test", budget=BUDGET),
                      tmp_path) as session:
        seen = []
        for i in range(5):
            ask(session, f"q{i}")
            seen.append(len(budget_warnings(run)))
        lines = cost_lines(run, session)
    assert seen == [0, 0, 1, 2, 2]
    at80, at100 = budget_warnings(run)
    assert at80 == ("cost: $0.0090 spent, 90% of this session's budget of $0.0100; /cost shows "
                    "where it went")
    assert at100 == ("cost: $0.0120 spent, over this session's budget of $0.0100 (120%); /cost "
                     "shows where it went, [cost] budget moves the line")
    assert "budget: $0.0150 of $0.0100 (150%) — over budget" in lines


def test_one_call_past_both_thresholds_warns_once(anthropic_server, chatcli_home, monkeypatch,
                                                  tmp_path):
    anthropic_server.script(Reply(text="big", usage={"input_tokens": 10_000,
                                                     "output_tokens": 0}))
    run = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(run, settings("anthropic", "claude-test", budget=BUDGET),
                      tmp_path) as session:
        ask(session, "q")
    assert len(budget_warnings(run)) == 1
    assert "over this session's budget" in budget_warnings(run)[0]


def test_no_budget_no_warning(anthropic_server, chatcli_home, monkeypatch, tmp_path):
    anthropic_server.script(Reply(text="big", usage={"input_tokens": 10_000_000,
                                                     "output_tokens": 0}))
    run = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(run, settings("anthropic", "claude-test"), tmp_path) as session:
        ask(session, "q")
    assert budget_warnings(run) == []


def test_a_resumed_session_counts_what_it_spent_before(anthropic_server, chatcli_home,
                                                       monkeypatch, tmp_path):
    anthropic_server.script(*[Reply(text=f"a{i}", usage=CALL) for i in range(3)])
    first = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(first, settings("anthropic", "claude-test", budget=BUDGET),
                      tmp_path) as session:
        ask(session, "q1")
        ask(session, "q2")
        conversation = session.conversation
    assert budget_warnings(first) == []

    class Resume:
        @hookimpl
        def open_conversation(self):
            return conversation

    again = make_run(monkeypatch, anthropic=anthropic_server, plugins=(Resume(),))
    with open_session(again, settings("anthropic", "claude-test", budget=BUDGET), tmp_path,
                      SessionOptions(continue_last=True)) as session:
        ask(session, "q3")  # 90 % with the two calls before
    assert [w.split(",")[0] for w in budget_warnings(again)] == ["cost: $0.0090 spent"]


def test_the_plugin_registered_after_the_session_opened_is_configured_and_warns(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    """``configure`` is historic: a cost plugin registered once the session is open still gets
    the host and the settings, so its budget warning reaches the user."""
    from chatcli_context.cost.plugin import CostPlugin

    anthropic_server.script(Reply(text="big", usage={"input_tokens": 10_000,
                                                     "output_tokens": 0}))
    run = make_run(monkeypatch, anthropic=anthropic_server)
    run.host.unregister("cost")
    with open_session(run, settings("anthropic", "claude-test", budget=BUDGET),
                      tmp_path) as session:
        assert run.host.register(CostPlugin(clock=run.clock), "cost")
        ask(session, "q")
    (warning,) = budget_warnings(run)
    assert warning.startswith("cost: $0.0300 spent, over this session's budget of $0.0100")
