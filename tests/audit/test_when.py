"""``--since``/``--until``: relative times and ISO times, and any other text a one-line usage
error (hypothesis over arbitrary text and over every unit spelling)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from chatcli import UsageError
from chatcli_audit.when import UNITS, parse_when
from hypothesis import example, given
from hypothesis import strategies as st

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "expected"), [
    ("2h", NOW - timedelta(hours=2)),
    ("90m", NOW - timedelta(minutes=90)),
    ("1d12h", NOW - timedelta(days=1, hours=12)),
    ("1d 12h", NOW - timedelta(days=1, hours=12)),
    ("3 days ago", NOW - timedelta(days=3)),
    (" 1W ", NOW - timedelta(weeks=1)),
    ("1.5h", NOW - timedelta(minutes=90)),
    ("now", NOW),
    ("2026-12-07T10:00", datetime(2026, 12, 7, 10, 0, tzinfo=UTC)),
    ("2026-12-07T10:00:00Z", datetime(2026, 12, 7, 10, 0, tzinfo=UTC)),
    ("2026-12-07", datetime(2026, 12, 7, tzinfo=UTC)),
    ("2026-12-07T11:00:00+01:00", datetime(2026, 12, 7, 10, 0, tzinfo=UTC)),
    # Brazilian Portuguese words, whatever the language chatcli speaks
    ("3 dias atrás", NOW - timedelta(days=3)),
    ("3 dias atras", NOW - timedelta(days=3)),
    ("há 2 horas", NOW - timedelta(hours=2)),
    ("Há 90 minutos", NOW - timedelta(minutes=90)),
    ("1 dia, 12 horas", NOW - timedelta(days=1, hours=12)),
    ("2sem", NOW - timedelta(weeks=2)),
    ("1 semana", NOW - timedelta(weeks=1)),
    ("30 segundos", NOW - timedelta(seconds=30)),
    ("agora", NOW),
])
def test_the_forms(text: str, expected: datetime) -> None:
    assert parse_when(text, NOW) == expected


@pytest.mark.parametrize("text", ["", "yesterday-ish", "2x", "h", "-2h", "2h -1m", "2026-13-01",
                                  "99999999999w", "há", "ontem", "2 horas e 3 minutos"])
def test_anything_else_is_a_usage_error_with_the_forms(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_when(text, NOW)
    assert caught.value.hint is not None and "2h" in caught.value.hint
    assert "\n" not in str(caught.value)


@given(st.text(max_size=40))
@example("1d\x00")
@example("9" * 9 + "w")
@example("2026-12-07T10:00:00+25:00")
def test_any_text_is_a_time_or_a_usage_error(text: str) -> None:
    try:
        when = parse_when(text, NOW)
    except UsageError as err:
        assert "\n" not in str(err)
    else:
        assert when.tzinfo is not None


@given(st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(sorted(UNITS))), min_size=1,
                max_size=4),
       st.sampled_from(["", " ", ", "]), st.booleans())
def test_relative_times_count_back_from_now(pieces: list[tuple[int, str]], gap: str,
                                            ago: bool) -> None:
    text = gap.join(f"{number}{unit}" for number, unit in pieces) + (" ago" if ago else "")
    seconds = sum(number * UNITS[unit] for number, unit in pieces)
    assert parse_when(text, NOW) == NOW - timedelta(seconds=seconds)


@given(st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(9999, 1, 1)),
       st.integers(-12 * 60, 14 * 60))
def test_iso_times_round_trip(moment: datetime, offset_minutes: int) -> None:
    zone = timezone(timedelta(minutes=offset_minutes))
    aware = moment.replace(tzinfo=zone)
    assert parse_when(aware.isoformat(), NOW) == aware
    assert parse_when(moment.isoformat(), NOW) == moment.replace(tzinfo=UTC)
