"""Whom the writer met, ate with or talked to, named without a link ("Had lunch with Kenji and Aisha").

A linked name after such a verb is a person already (`offline._MET`); this reads the plain names.
After a social verb (lunch, coffee or drinks with, hung out or caught up with, texted, hugged,
a run with, a one-on-one with, or "met" alone) the names are people. After one that a business
may follow too (met with, talked or spoke to, called, phoned: "Met with Stripe about the
integration", "Called Thames Water") they are names with no type, unless a title or a family
word says a person ("Spoke to Dr. Patel", "Called Mum"): pass 2 gives them the kind the other
notes say, so a company stays one entity.
"""

from __future__ import annotations

import re

from kgvault.extract.patterns import CAPITALS, clean_name, could_be_home, is_known_tool, no_kin

_NAME_WORD = rf"[{CAPITALS}][\w-]*(?:['’](?!s\b)[{CAPITALS}][\w-]*)?"
"""A Capitalized word of a name: "Rui", "O'Connor", "Anne-Marie" (not the owner's "Rui's")."""
_ONE_NAME = rf"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?[ ])?{_NAME_WORD}(?:[ ]{_NAME_WORD}){{0,2}}(?![\w'’])"
_PERSON_OR_LINK = rf"(?:\ue000\d+\ue001|{_ONE_NAME})"
_SOCIAL = (
    r"(?i:(?:lunch|dinner|breakfast|brunch|coffee|drinks|a[ ]drink|a[ ]beer|tea)[ ]with"
    r"|(?:hung[ ]out|caught[ ]up|met[ ]up|chatted)[ ]with|texted|hugged"
    r"|(?:a|went[ ]for[ ]a)[ ](?:run|hike|swim|jog|walk)[ ]with"
    r"|(?<![\w:])(?:1:1|1-1|one-on-one|1on1)[ ](?:with|w/)"
    # Not "the Met Office", "the Met Gala".
    r"|(?<![Tt]he[ ])\bmet(?![ ](?:with|up|Office|Gala|Opera|Museum)\b))"
)
_BUSINESS = (
    r"(?i:met[ ]with|(?:talked|spoke)[ ](?:to|with)|phoned"
    # "Called Mum", "I called Tom"; not "a band called Wet Leg".
    r"|(?:^|(?<=I[ ])|(?<=[Ww]e[ ])|(?<=she[ ])|(?<=he[ ])|(?<=just[ ])|(?<=also[ ]))called)"
)
_JOINER = r"(?:,[ ](?:and[ ])?|[ ]and[ ]|[ ]&[ ])"
_COMPANY = re.compile(
    rf"\b(?:(?P<social>{_SOCIAL})|(?P<business>{_BUSINESS}))[ ]+(?:my[ ][a-z]+[ ])?"
    rf"(?P<names>{_PERSON_OR_LINK}(?:{_JOINER}(?:my[ ][a-z]+[ ])?{_PERSON_OR_LINK})*)"
    # "Met Rui's sister", "Talked to Acme support": someone else, or a company's desk.
    r"(?!['’]s\b|[ ](?:team|folks|people|guys|crew|staff|support|customer|helpline|helpdesk|office|reps?)\b)"
)
_SPACE_CAPITAL = re.compile(rf"[ ][{CAPITALS}]")
_TRIGGERS = frozenset(["with", "w/", "met", "texted", "hugged", "called", "phoned", "to"])
"""The words before the first name of every match: most sentences have no name after one."""
_SEPARATOR = re.compile(_JOINER)
_LINK = re.compile("\ue000\\d+\ue001")
_TRAILING_DAY = re.compile(
    r"(?:[ ](?:Today|Tonight|Yesterday|Tomorrow|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
    r"|Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Sat|Sun|Morning|Evening|Afternoon))+$"
)


def people_met(placeholder: str, writer: str | None = None) -> list[tuple[str, str | None]]:
    """The plain names a sentence says the writer met, ate with or talked to, each with its type:
    `person`, or None where a business might be meant; not the writer, a link, a weekday, a team,
    an app, a bank or an acronym."""
    found: list[tuple[str, str | None]] = []
    if "\ue000" not in placeholder and not _may_name_company(placeholder):
        return found
    for match in _COMPANY.finditer(placeholder):
        for part in _SEPARATOR.split(match["names"]):
            if part.startswith("my "):
                part = part.split(" ", 2)[2]
            if _LINK.fullmatch(part):
                continue
            name = clean_name(_TRAILING_DAY.sub("", part))
            if name is None or not _a_name(name) or (writer and name.casefold() == writer.casefold()):
                continue
            kind = "person" if match["social"] is not None or not no_kin(name) else None
            entry = (name, kind)
            if entry not in found:
                found.append(entry)
    return found


def _may_name_company(text: str) -> bool:
    """Whether a Capitalized word follows a word that may say whom one met (a quick screen)."""
    for hit in _SPACE_CAPITAL.finditer(text):
        before = text[max(0, hit.start() - 24) : hit.start()].split()
        if before and (
            before[-1].lower() in _TRIGGERS
            or (len(before) > 2 and before[-2] == "my" and before[-3].lower() in _TRIGGERS)
        ):
            return True
    return False


_NO_ONES_NAME = """
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december marketing sales engineering finance legal support product
    design operations ops platform infra infrastructure research team squad group department division unit
    friends family everyone everybody folks people guys kids colleagues customers clients
    chatgpt gpt copilot siri alexa bard gemini cortana perplexity grok
"""
_NO_ONES_WORDS = frozenset(_NO_ONES_NAME.split())
"""Words of no one's name: a weekday, a month, a team ("Lunch With Marketing Team"), an assistant."""


def _a_name(name: str) -> bool:
    """Whether a name may be someone's: no weekday, team, app, bank, number or acronym ("HR")."""
    return (
        could_be_home(name)
        and not is_known_tool(name)
        and not (name.isupper() and len(name) <= 4)
        and _NO_ONES_WORDS.isdisjoint(name.casefold().split())
    )
