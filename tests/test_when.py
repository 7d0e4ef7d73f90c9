"""Time expressions: every expected date below was read off a printed calendar, not computed."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timedelta, timezone

import pytest

from kgvault.when import When, booked_ahead, dated_title, find_times, is_booked_for

FRI = date(2023, 6, 9)  # Friday; its Monday-start week is 5–11 June 2023.
SAT = date(2023, 6, 10)
SUN = date(2023, 6, 11)
MON = date(2023, 6, 12)
JAN = date(2024, 1, 10)  # Wednesday; 1 January 2024 was a Monday.
LEAP_DAY = date(2024, 2, 29)  # Thursday.

Expected = tuple[date, date, str]


def day(year: int, month: int, number: int) -> Expected:
    """One day, written out."""
    return (date(year, month, number), date(year, month, number), "day")


def month(year: int, number: int, last_day: int) -> Expected:
    """A whole month, its last day written out."""
    return (date(year, number, 1), date(year, number, last_day), "month")


def year(number: int) -> Expected:
    """A whole year."""
    return (date(number, 1, 1), date(number, 12, 31), "year")


RESOLVED: list[tuple[str, date | datetime | None, Expected, str]] = [
    # Days named relative to the reference.
    ("yesterday", FRI, day(2023, 6, 8), "yesterday"),
    ("We spoke today.", FRI, day(2023, 6, 9), "today"),
    ("see you tomorrow", FRI, day(2023, 6, 10), "tomorrow"),
    ("Tonight we deploy", FRI, day(2023, 6, 9), "Tonight"),
    ("this morning the build broke", FRI, day(2023, 6, 9), "this morning"),
    ("call me this afternoon", FRI, day(2023, 6, 9), "this afternoon"),
    ("THIS EVENING, drinks", FRI, day(2023, 6, 9), "THIS EVENING"),
    ("last night it crashed", FRI, day(2023, 6, 8), "last night"),
    ("the day before yesterday", FRI, day(2023, 6, 7), "the day before yesterday"),
    ("the day after tomorrow", FRI, day(2023, 6, 11), "the day after tomorrow"),
    ("day before yesterday we met", FRI, day(2023, 6, 7), "day before yesterday"),
    ("Yesterday's standup", FRI, day(2023, 6, 8), "Yesterday"),
    ("yesterday", date(2024, 3, 1), day(2024, 2, 29), "yesterday"),
    ("tomorrow", date(2023, 12, 31), day(2024, 1, 1), "tomorrow"),
    ("yesterday", datetime(2023, 6, 9, 23, 59), day(2023, 6, 8), "yesterday"),
    # last/this/next week, month, year.
    ("last week", FRI, (date(2023, 5, 29), date(2023, 6, 4), "week"), "last week"),
    ("this week", FRI, (date(2023, 6, 5), date(2023, 6, 11), "week"), "this week"),
    ("next week", FRI, (date(2023, 6, 12), date(2023, 6, 18), "week"), "next week"),
    ("last week", date(2024, 1, 3), (date(2023, 12, 25), date(2023, 12, 31), "week"), "last week"),
    ("last month", FRI, month(2023, 5, 31), "last month"),
    ("this month", FRI, month(2023, 6, 30), "this month"),
    ("next month", FRI, month(2023, 7, 31), "next month"),
    ("last month", JAN, month(2023, 12, 31), "last month"),
    ("last month's report", FRI, month(2023, 5, 31), "last month"),
    ("last year", FRI, year(2022), "last year"),
    ("this year", FRI, year(2023), "this year"),
    ("next year", date(2023, 12, 31), year(2024), "next year"),
    # Weekends: Saturday–Sunday of a Monday-start week.
    ("last weekend", FRI, (date(2023, 6, 3), date(2023, 6, 4), "weekend"), "last weekend"),
    ("this weekend", FRI, (date(2023, 6, 10), date(2023, 6, 11), "weekend"), "this weekend"),
    ("next weekend", FRI, (date(2023, 6, 17), date(2023, 6, 18), "weekend"), "next weekend"),
    ("last weekend", SAT, (date(2023, 6, 3), date(2023, 6, 4), "weekend"), "last weekend"),
    ("last weekend", SUN, (date(2023, 6, 3), date(2023, 6, 4), "weekend"), "last weekend"),
    ("last weekend", MON, (date(2023, 6, 10), date(2023, 6, 11), "weekend"), "last weekend"),
    ("this weekend", SUN, (date(2023, 6, 10), date(2023, 6, 11), "weekend"), "this weekend"),
    ("next weekend", MON, (date(2023, 6, 24), date(2023, 6, 25), "weekend"), "next weekend"),
    # The past weekend: the last one begun, its own on a Saturday or Sunday.
    ("this past weekend", FRI, (date(2023, 6, 3), date(2023, 6, 4), "weekend"), "this past weekend"),
    ("the past weekend", MON, (date(2023, 6, 10), date(2023, 6, 11), "weekend"), "the past weekend"),
    ("this past weekend", SUN, (date(2023, 6, 10), date(2023, 6, 11), "weekend"), "this past weekend"),
    # Named weekdays: last = strictly before, next = strictly after, this = in the reference's week.
    ("last Friday", FRI, day(2023, 6, 2), "last Friday"),
    ("next Friday", FRI, day(2023, 6, 16), "next Friday"),
    ("this Friday", FRI, day(2023, 6, 9), "this Friday"),
    ("we met last Tuesday", FRI, day(2023, 6, 6), "last Tuesday"),
    ("next tuesday", FRI, day(2023, 6, 13), "next tuesday"),
    ("this Monday", FRI, day(2023, 6, 5), "this Monday"),
    ("this Sunday", MON, day(2023, 6, 18), "this Sunday"),
    ("last Sunday", SUN, day(2023, 6, 4), "last Sunday"),
    ("next Saturday", SAT, day(2023, 6, 17), "next Saturday"),
    ("last Saturday", SUN, day(2023, 6, 10), "last Saturday"),
    # Counts ago and ahead.
    ("3 days ago", FRI, day(2023, 6, 6), "3 days ago"),
    ("two days ago", FRI, day(2023, 6, 7), "two days ago"),
    ("a day ago", FRI, day(2023, 6, 8), "a day ago"),
    ("a couple of days ago", FRI, day(2023, 6, 7), "a couple of days ago"),
    ("a week ago", FRI, (date(2023, 5, 29), date(2023, 6, 4), "week"), "a week ago"),
    ("two weeks ago", FRI, (date(2023, 5, 22), date(2023, 5, 28), "week"), "two weeks ago"),
    ("a month ago", FRI, month(2023, 5, 31), "a month ago"),
    ("3 months ago", FRI, month(2023, 3, 31), "3 months ago"),
    ("twelve months ago", FRI, month(2022, 6, 30), "twelve months ago"),
    ("1 month ago", date(2023, 3, 31), month(2023, 2, 28), "1 month ago"),
    ("a month ago", date(2024, 3, 31), month(2024, 2, 29), "a month ago"),
    ("a year ago", FRI, year(2022), "a year ago"),
    ("a year ago", LEAP_DAY, year(2023), "a year ago"),
    ("10 years ago", FRI, year(2013), "10 years ago"),
    ("in 3 days", FRI, day(2023, 6, 12), "in 3 days"),
    ("in two weeks", FRI, (date(2023, 6, 19), date(2023, 6, 25), "week"), "in two weeks"),
    ("in a month", FRI, month(2023, 7, 31), "in a month"),
    # the week/weekend before/after, said of the reference itself.
    ("We met the week before.", FRI, (date(2023, 5, 29), date(2023, 6, 4), "week"), "the week before"),
    ("the week after, we rested", FRI, (date(2023, 6, 12), date(2023, 6, 18), "week"), "the week after"),
    ("the weekend before", FRI, (date(2023, 6, 3), date(2023, 6, 4), "weekend"), "the weekend before"),
    # Month names without a year: the most recent such month, the current one included.
    ("in May", FRI, month(2023, 5, 31), "May"),
    ("in June", FRI, month(2023, 6, 30), "June"),
    ("in July", FRI, month(2022, 7, 31), "July"),
    ("since March", FRI, month(2023, 3, 31), "March"),
    ("during August", FRI, month(2022, 8, 31), "August"),
    ("early September", FRI, month(2022, 9, 30), "September"),
    ("in December", JAN, month(2023, 12, 31), "December"),
    ("in January", JAN, month(2024, 1, 31), "January"),
    ("last May", FRI, month(2023, 5, 31), "last May"),
    ("last June", FRI, month(2022, 6, 30), "last June"),
    ("this July", FRI, month(2023, 7, 31), "this July"),
    ("next May", FRI, month(2024, 5, 31), "next May"),
    ("next July", FRI, month(2023, 7, 31), "next July"),
    ("last December", JAN, month(2023, 12, 31), "last December"),
    ("next December", JAN, month(2024, 12, 31), "next December"),
    # Month and day without a year: the year of the most recent such month.
    ("on May 7 we met", FRI, day(2023, 5, 7), "May 7"),
    ("on 7 May we met", FRI, day(2023, 5, 7), "7 May"),
    ("on the 5th of May", FRI, day(2023, 5, 5), "5th of May"),
    ("June 20th", FRI, day(2023, 6, 20), "June 20th"),
    ("Dec 24", FRI, day(2022, 12, 24), "Dec 24"),
    ("Feb 29", LEAP_DAY, day(2024, 2, 29), "Feb 29"),
    # Absolute dates and periods need no reference.
    ("On 2023-05-07 we met", None, day(2023, 5, 7), "2023-05-07"),
    ("On May 7, 2023 we met", None, day(2023, 5, 7), "May 7, 2023"),
    ("paid 25/03/2025", None, day(2025, 3, 25), "25/03/2025"),
    ("on 12 March 2025", FRI, day(2025, 3, 12), "12 March 2025"),
    ("the 12th of March 2025", None, day(2025, 3, 12), "12th of March 2025"),
    ("in May 2023", None, month(2023, 5, 31), "May 2023"),
    ("in 2022", None, year(2022), "2022"),
    ("since 2019 we have", FRI, year(2019), "2019"),
    # Days of one month: the range from its first day to its last.
    (
        "The fair runs 12–15 July 2025.",
        None,
        (date(2025, 7, 12), date(2025, 7, 15), "days"),
        "12–15 July 2025",
    ),
    ("booked 12-15 July", FRI, (date(2022, 7, 12), date(2022, 7, 15), "days"), "12-15 July"),
    ("July 12-15, 2024 in Porto", None, (date(2024, 7, 12), date(2024, 7, 15), "days"), "July 12-15, 2024"),
    ("the 3rd-5th of June", FRI, (date(2023, 6, 3), date(2023, 6, 5), "days"), "3rd-5th of June"),
]

UNRESOLVED: list[tuple[str, date | datetime | None]] = [
    ("Friday the band played", FRI),  # a bare weekday could be any Friday
    ("the 15-12 July backlog", FRI),  # a range that runs backwards is none (nor its "12 July")
    ("children aged 12-15 years", FRI),
    ("on Friday we met", FRI),
    ("Saturday", FRI),
    ("I may go", FRI),
    ("this may be wrong", FRI),
    ("the check-in may fail", FRI),  # lowercase "may" is the verb, even after "in"
    ("May I come in?", FRI),
    ("the march was long", FRI),
    ("March was cold", FRI),  # a month alone needs a preposition or last/this/next
    ("in June's room", FRI),  # June the person
    ("a few days ago", FRI),  # vague count
    ("several weeks ago", FRI),
    ("in a week or so", FRI),  # "or so" widens it past any one week
    ("in a day or two", FRI),
    ("3 days", FRI),
    ("last time", FRI),
    ("next to the door", FRI),
    ("weekday", FRI),
    ("last weekday", FRI),
    ("tomorrowland", FRI),
    ("yesterdays", FRI),
    ("the week before the launch", FRI),  # relative to the launch, not to the reference
    ("the week before last", FRI),
    ("the last week was hard", FRI),  # the past seven days, not the calendar week
    ("the next Tuesday we met", FRI),  # relative to the story, not to the reference
    ("on the last night of the trip", FRI),
    ("2022 people came", FRI),  # a number, not a year
    ("fixed in 2023.1", FRI),  # a version
    ("in 1850", FRI),  # outside the years kgvault accepts
    ("on May 7 1850", FRI),
    ("Feb 29", FRI),  # 2023 is not a leap year: no such day
    ("February 30", FRI),
    ("yesterday", None),  # relative words need a reference
    ("last Friday", None),
    ("two weeks ago", None),
    ("in May", None),
    ("May 7", None),
    ("yesterday", date(1850, 1, 2)),  # a reference outside the accepted years resolves nothing
]


@pytest.mark.parametrize(
    ("text", "reference", "expected", "matched"),
    [*RESOLVED, *((text, reference, None, None) for text, reference in UNRESOLVED)],
)
def test_table(
    text: str, reference: date | datetime | None, expected: Expected | None, matched: str | None
) -> None:
    found = find_times(text, reference)
    if expected is None:
        assert found == []
        return
    assert len(found) == 1
    (when,) = found
    assert (when.first, when.last, when.granularity) == expected
    assert when.text == matched
    assert text[when.start : when.end] == matched


FRENCH: list[tuple[str, Expected | None, str | None]] = [
    ("hier", day(2023, 6, 8), "hier"),
    ("Hier soir on a joué", day(2023, 6, 8), "Hier soir"),
    ("avant-hier", day(2023, 6, 7), "avant-hier"),
    ("après-demain", day(2023, 6, 11), "après-demain"),
    ("aujourd’hui", day(2023, 6, 9), "aujourd’hui"),
    ("il y a trois jours", day(2023, 6, 6), "il y a trois jours"),
    ("il y a deux semaines", (date(2023, 5, 22), date(2023, 5, 28), "week"), "il y a deux semaines"),
    ("dans 2 mois", month(2023, 8, 31), "dans 2 mois"),
    ("la semaine dernière", (date(2023, 5, 29), date(2023, 6, 4), "week"), "la semaine dernière"),
    ("le mois prochain", month(2023, 7, 31), "le mois prochain"),
    ("l'année dernière", year(2022), "l'année dernière"),
    ("le week-end dernier", (date(2023, 6, 3), date(2023, 6, 4), "weekend"), "le week-end dernier"),
    ("cette semaine", (date(2023, 6, 5), date(2023, 6, 11), "week"), "cette semaine"),
    ("lundi dernier", day(2023, 6, 5), "lundi dernier"),
    ("jeudi prochain", day(2023, 6, 15), "jeudi prochain"),
    ("le 1er mai", day(2023, 5, 1), "1er mai"),
    ("le 12 mars", day(2023, 3, 12), "12 mars"),
    ("en juillet", month(2022, 7, 31), "juillet"),  # the most recent July
    ("le 3 août 2021", day(2021, 8, 3), "3 août 2021"),
    # Refused: a weekday alone could be the last or the next; a vague count; "dans un jour".
    ("lundi on verra", None, None),
    ("ce lundi", None, None),
    ("il y a quelques jours", None, None),
    ("dans un jour", None, None),
]


@pytest.mark.parametrize(("text", "expected", "matched"), FRENCH)
def test_french_table(text: str, expected: Expected | None, matched: str | None) -> None:
    found = find_times(text, FRI, "fr")
    if expected is None:
        assert found == []
        return
    (when,) = found
    assert (when.first, when.last, when.granularity, when.text) == (*expected, matched)


def test_french_words_are_read_only_in_french() -> None:
    assert find_times("il y a deux semaines", FRI) == []


def test_table_is_large_and_covers_refusals() -> None:
    assert len(RESOLVED) + len(UNRESOLVED) >= 70
    assert len(UNRESOLVED) >= 15


@pytest.mark.parametrize(
    ("text", "reference", "phrase"),
    [
        ("the day before yesterday", FRI, "on 7 June 2023"),
        ("On 2023-05-07", None, "on 7 May 2023"),
        ("a week ago", date(2023, 5, 10), "in the week of 1 May 2023"),
        ("this weekend", date(2023, 5, 3), "on the weekend of 6 May 2023"),
        ("last month", FRI, "in May 2023"),
        ("in 2022", None, "in 2022"),
        ("next year", FRI, "in 2024"),
        ("July 12–15", FRI, "on 12–15 July 2022"),
    ],
)
def test_phrase(text: str, reference: date | None, phrase: str) -> None:
    assert [when.phrase() for when in find_times(text, reference)] == [phrase]


def test_several_expressions_in_order_with_offsets() -> None:
    text = "Last Friday we shipped; two weeks ago we planned it, in May we started. Tomorrow we rest."
    found = find_times(text, FRI)
    assert [(when.start, when.end, when.text) for when in found] == [
        (0, 11, "Last Friday"),
        (24, 37, "two weeks ago"),
        (56, 59, "May"),
        (72, 80, "Tomorrow"),
    ]
    assert all(text[when.start : when.end] == when.text for when in found)
    assert [when.first for when in found] == [
        date(2023, 6, 2),
        date(2023, 5, 22),
        date(2023, 5, 1),
        date(2023, 6, 10),
    ]


def test_longest_match_wins_at_a_position() -> None:
    assert [when.text for when in find_times("the day before yesterday and last Friday", FRI)] == [
        "the day before yesterday",
        "last Friday",
    ]
    # The explicit date is longer than "May 7" alone, so its year is kept.
    assert [(when.text, when.first) for when in find_times("May 7, 2021", FRI)] == [
        ("May 7, 2021", date(2021, 5, 7))
    ]


def test_without_reference_only_absolute_dates_resolve() -> None:
    text = "yesterday, on 2023-05-07, last week and in 2022"
    assert [(when.text, when.granularity) for when in find_times(text, None)] == [
        ("2023-05-07", "day"),
        ("2022", "year"),
    ]


def test_datetime_reference_uses_its_own_wall_clock_day() -> None:
    # 23:30 at UTC-5 is already the 10th in UTC; the writer's "today" is still the 9th.
    late = datetime(2023, 6, 9, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert [when.first for when in find_times("today and yesterday", late)] == [
        date(2023, 6, 9),
        date(2023, 6, 8),
    ]
    assert find_times("next week", datetime(2023, 6, 9, 8, 0)) == find_times("next week", FRI)


def test_results_are_deterministic_and_frozen() -> None:
    text = "last weekend, 3 days ago, in July and 12 March 2025"
    first, second = find_times(text, FRI), find_times(text, FRI)
    assert first == second
    assert len(first) == 4
    with pytest.raises(dataclasses.FrozenInstanceError):
        first[0].start = 1  # type: ignore[misc]


def test_when_fields() -> None:
    assert find_times("see you tomorrow", FRI) == [
        When(8, 16, "tomorrow", first=date(2023, 6, 10), last=date(2023, 6, 10), granularity="day")
    ]


def test_text_without_any_time_word_is_empty() -> None:
    assert find_times("The quick brown fox jumped over the lazy dog.", FRI) == []
    assert find_times("", FRI) == []


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("I went to the group yesterday.", "I went to the group on 7 May 2023."),
        ("Yesterday I adopted a cat.", "On 7 May 2023 I adopted a cat."),
        ("We moved in May.", "We moved in May 2023."),
        ("I have run since last week.", "I have run since the week of 1 May 2023."),
        (
            "Two weeks ago I painted, and last month I sang.",
            "In the week of 24 April 2023 I painted, and in April 2023 I sang.",
        ),
        ("On 3 March 2023 I left.", "On 3 March 2023 I left."),
        ("Friday the band played.", "Friday the band played."),
        # No second "on": after "on the", or a weekday, the date takes their place or follows them.
        ("It's Mum's 70th on the 3rd May.", "It's Mum's 70th on 3 May 2023."),
        ("Party saturday 15th April, come!", "Party saturday 15 April 2023, come!"),
        ("The party is on Saturday 15th April.", "The party is on Saturday 15 April 2023."),
    ],
)
def test_dated_title_names_the_date_in_place_of_the_words(title: str, expected: str) -> None:
    assert dated_title(title, find_times(title, datetime(2023, 5, 8, 13, 56))) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a poetry reading last Fri, it was great", ("last Fri", date(2023, 5, 5))),
        ("next Tues we fly", ("next Tues", date(2023, 5, 16))),
        ("this Thu works", ("this Thu", date(2023, 5, 11))),
        ("this sat idle", None),
        ("last sun was hot", None),
    ],
)
def test_short_weekday_names_after_last_this_next(text: str, expected: tuple[str, date] | None) -> None:
    found = find_times(text, date(2023, 5, 10))  # a Wednesday
    assert [(w.text, w.first) for w in found] == ([expected] if expected else [])


def test_in_a_day_is_an_idiom_and_in_two_days_a_date() -> None:
    monday = date(2024, 3, 4)
    assert find_times("Rome wasn't built in a day, keep pushing!", monday) == []
    assert [w.first for w in find_times("Done in two days.", monday)] == [date(2024, 3, 6)]


def test_a_possessive_time_reads_as_a_date_in_the_title() -> None:
    text = "Can't wait for tomorrow's grand opening!"
    times = find_times(text, date(2024, 3, 4))
    assert dated_title(text, times) == "Can't wait for 5 March 2024's grand opening!"


def test_a_day_booked_for_is_the_coming_one_when_the_last_is_gone() -> None:
    """ "Booked the party for 12 April", said on 3 March 2025, is for 12 April 2025, not 2024."""
    said = date(2025, 3, 3)
    text = "We booked the party for 12 April and went to the zoo on 12 February."
    times = find_times(text, said)
    read = booked_ahead(text, times, said)
    assert [(t.text, t.first) for t in read] == [
        ("12 April", date(2025, 4, 12)),
        ("12 February.", date(2025, 2, 12)),
    ]
    assert [is_booked_for(text, t) for t in read] == [True, False]
    assert dated_title(text, read) == (
        "We booked the party for 12 April 2025 and went to the zoo on 12 February 2025."
    )
    # A day with its year, one still ahead or just gone, or one nothing was booked for, is as written.
    for kept in (
        "Booked the party for 12 April 2024.",
        "Booked the party for 20 March.",
        "Booked the party for 1 March.",
        "I finished the timesheet for 7 January.",
        "Got tickets for 5 January but missed the gig.",
    ):
        assert booked_ahead(kept, find_times(kept, said), said) == find_times(kept, said), kept


def test_a_dated_title_keeps_a_full_stop_only_where_the_sentence_ends() -> None:
    said = date(2025, 3, 3)
    for text, title in (
        ("I moved to Leeds on 12 Feb.", "I moved to Leeds on 12 February 2025."),
        (
            "I moved to Leeds on 12 Feb. and started at Acme.",
            "I moved to Leeds on 12 February 2025 and started at Acme.",
        ),
    ):
        assert dated_title(text, find_times(text, said)) == title
