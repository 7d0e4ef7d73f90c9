"""People a sentence names without a link: whom the writer met, ate with or talked to ("Had lunch with
Kenji and Aisha").

A linked name after such a verb is a person already (`offline._MET`); this reads the plain names.
After a social verb (lunch, coffee or drinks with, hung out or caught up with, texted, hugged,
a run with, a one-on-one with, or "met" said by the writer), or after what they are to someone
("Called my sister Anna"), the names are guessed to be people (`likely_person`: pass 2 lets a note's
type overrule it, so "a walk with Bella" is the dog `pets/Bella.md` types). After a verb that a
business may follow too (met with, talked or spoke to, called, phoned, rang, emailed: "Met with
Stripe about the integration", "Called Thames Water") they are names with no type. A title or a
family word says a person whatever the verb ("Spoke to Dr. Patel", "Called Mum").

A name is one to three Capitalized words (with "van der", "de la" between them), and what follows
it must end the name: punctuation, "and", or a word such as "for", "at", "about" or "yesterday".
"Met Spanish students", "Lunch with Google recruiter" and "Tea with Manuka honey" name no one.
"""

from __future__ import annotations

import re

from kgvault.extract.patterns import CAPITALS, LazyRegex, clean_name, could_be_home, is_known_tool, no_kin


def _words(text: str) -> frozenset[str]:
    """The whitespace-separated words of a string, as a set (word lists read better as text)."""
    return frozenset(text.split())


_NOT_A_NAME_WORD = (
    r"(?!(?:And|Or|But|On|At|In|To|For|From|With|About|After|Before|Again|Last|Next|This|That|The|A|An|It"
    r"|Its|Of|Back|Thanks|Thank|Happy|Merry|Yes|No|OK|Ok|Okay|Hi|Hello|Hey|Goodnight|Good|Sorry|Love|Too"
    r"|Then|Today|Tonight|Yesterday|Tomorrow|Via|Over|Re|Later|Soon|Now|Here|There|I)\b)"
)
"""Capitalized words that end a name (Title Case: "Met Tom And Sarah At The Pub") or are no one's
("Texted Happy Birthday to Ben", "Called It Quits")."""
_NAME_WORD = rf"{_NOT_A_NAME_WORD}[{CAPITALS}][\w-]*(?:['’](?!s\b)[{CAPITALS}][\w-]*)?"
"""A Capitalized word of a name: "Rui", "O'Connor", "Anne-Marie" (not the owner's "Rui's")."""
_PARTICLES = r"(?:[ ](?:van|von|der|den|de|del|della|la|le|du|da|di|dos|das|bin|ibn|al|el|ter)){0,2}"
_TITLE = (
    r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof|Professor|Rev|Revd|Capt|Sir|Dame|Fr|Coach|Miss|Auntie|Aunty|Aunt|Uncle"
    r"|Grandma|Grandpa|Nan|Gran)\.?[ ])"
)
_TITLE_WORDS = """
    dr mr mrs ms mx prof professor rev revd capt sir dame fr coach miss auntie aunty aunt uncle grandma
    grandpa nan gran nana nanna granny grandad granddad grandmother grandfather mum mom mummy mommy dad
    daddy papa mama pops cousin
"""
_TITLES = _words(_TITLE_WORDS)
"""First words that make a name someone's, whatever the verb: a title or a family word."""
_ONE_NAME = rf"{_TITLE}?{_NAME_WORD}(?:{_PARTICLES}[ ]{_NAME_WORD}){{0,2}}(?![\w'’])"
_PERSON_OR_LINK = rf"(?:\ue000\d+\ue001|{_ONE_NAME})"
_WITH = r"[ ](?:with|w/)"
_SOCIAL = (
    rf"(?i:(?:lunch|dinner|breakfast|brunch|coffee|drinks|a[ ]drink|a[ ]beer|a[ ]pint|tea|a[ ]chat){_WITH}"
    rf"|(?:hung[ ]out|caught[ ]up|met[ ]up|chatted|played[ ][a-z]+|spent[ ]the[ ][a-z]+|moved[ ]in){_WITH}"
    r"|texted|messaged|hugged|face[ ]?timed|skyped|(?:bumped|ran)[ ]into|proposed[ ]to|dumped"
    rf"|(?:broke|split)[ ]up{_WITH}|(?:a|on[ ]a|went[ ]on[ ]a)[ ](?:date|first[ ]date){_WITH}"
    rf"|(?:a|went[ ]for[ ]a)[ ](?:run|hike|swim|jog|walk){_WITH}"
    rf"|(?<![\w:])(?:1:1|1-1|one-on-one|1on1){_WITH})"
    # "Met Rui", "Finally met Rui", "I met Rui": the writer met them (not "Arsenal met Chelsea", "the Met
    # Office", "met with", "was met with silence").
    r"|(?:^|(?<=\bI[ ])|(?<=\b[Ww]e[ ])|(?<=\b[Jj]ust[ ])|(?<=\b[Ff]inally[ ])|(?<=\b[Aa]lso[ ])"
    r"|(?<=\b[Tt]hen[ ])|(?<=\b[Ff]irst[ ])|(?<=\b[Aa]nd[ ])|(?<=\b[Nn]ever[ ])|(?<=,[ ])|(?<=:[ ]))(?i:met)"
    r"(?![ ](?i:with|up|Office|Gala|Opera|Museum|Police|Éireann|Eireann)\b)"
)
_BUSINESS = (
    # Not "The plan was met with silence".
    r"(?i:(?<!\bwas[ ])(?<!\bwere[ ])(?<!\bbeen[ ])(?<!\bis[ ])(?<!\bare[ ])met[ ]with"
    r"|(?:talked|spoke)[ ](?:to|with)|phoned|rang|e-?mailed|had[ ]a[ ](?:call|meeting)[ ]with)"
    # "Called Mum", "I called Tom", "Later called Dad"; not "a band called Wet Leg", "she called Sarah a
    # liar".
    r"|(?:^|(?<=\bI[ ])|(?<=\b[Ww]e[ ])|(?<=\b[Jj]ust[ ])|(?<=\b[Aa]lso[ ])|(?<=\b[Tt]hen[ ])"
    r"|(?<=\b[Ll]ater[ ])|(?<=\b[Ff]inally[ ])|(?<=\b[Aa]nd[ ])|(?<=,[ ]))(?i:called)"
)
_JOINER = r"(?:,[ ](?:(?i:and)[ ])?|[ ](?i:and)[ ]|[ ]?[&+/][ ]?)"
_RELATION = r"(?:(?:my|our|his|her|their)[ ](?:[a-z]+[ ]){1,2})?"
"""What the person is to someone, before the name: "my sister Anna", "our new neighbours Tom and Sarah"."""
_ENDS_A_NAME = (
    r"(?=[ ]*(?:$|[.,;:!?)(\]\"“”—–-]|[ ](?i:for|at|about|in|on|to|from|after|before|this|last|next|today"
    r"|tonight|yesterday|tomorrow|earlier|later|who|whom|whose|which|while|when|since|until|till|as|because|but|so|or"
    r"|again|over|via|by|with|the|a|an|back|briefly|online|recently|too|also|then|there|here|re|regarding"
    r"|near|outside|inside|downtown|instead|first|finally|properly|during|around|up|out|yet|morning|evening"
    r"|afternoon|night|(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|is|was|and|&)\b))"
)
"""What may follow a name: "Met Spanish students", "Lunch with Google recruiter" and "Tea with Manuka
honey" name a group, a role or a thing, not someone."""
_COMPANY = LazyRegex(
    rf"\b(?:(?P<social>{_SOCIAL})|(?P<business>{_BUSINESS}))[ ]+(?P<related>{_RELATION})"
    rf"(?P<names>{_PERSON_OR_LINK}(?:{_JOINER}{_RELATION}{_PERSON_OR_LINK})*)"
    rf"(?!['’]s\b){_ENDS_A_NAME}"
)
_SPACE_CAPITAL = re.compile(rf"[ ][{CAPITALS}]")
_TRIGGERS = _words(
    "with w/ met texted messaged hugged facetimed skyped into called phoned rang emailed e-mailed talked"
    " spoke proposed dumped"
)
"""The words before the first name of every match: most sentences have no name after one."""
_SEPARATOR = re.compile(_JOINER)
_LINK = re.compile("\ue000\\d+\ue001")
_RELATION_WORDS = re.compile(_RELATION)
_TRAILING_DAY = re.compile(
    r"(?:[ ](?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
    r"|Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Sat|Sun|Morning|Evening|Afternoon))+$"
)


def people_met(placeholder: str, writer: str | None = None) -> list[tuple[str, str | None]]:
    """The plain names a sentence says the writer met, ate with or talked to, each with its type:
    `person` after a title or a family word, `likely_person`, or None where a business might be
    meant; not the writer, a link, a weekday, a team, an app, a bank or an acronym."""
    found: list[tuple[str, str | None]] = []
    if not _may_name_company(placeholder):
        return found
    for match in _COMPANY.finditer(placeholder):
        for index, part in enumerate(_SEPARATOR.split(match["names"])):
            # "Called my sister Anna", "Met our new neighbours Tom and Sarah": someone's someone.
            related = bool(match["related"]) if index == 0 else part[:1].islower()
            if related:
                part = _RELATION_WORDS.sub("", part, count=1)
            _add(found, part, match["social"] is not None or related, writer)
    return found


def _add(found: list[tuple[str, str | None]], part: str, person: bool, writer: str | None) -> None:
    """Add the name a matched part is, with its type, unless it is none or already there."""
    if _LINK.fullmatch(part):
        return
    part = _TRAILING_DAY.sub("", part)
    name = clean_name(part)
    if name != part or not _a_name(name) or (writer is not None and name.casefold() == writer.casefold()):
        return
    # A title or a family word says a person; the verb only guesses one (pass 2's `GUESS`: "Went for
    # a walk with Bella" may be the dog a note types).
    entry = (name, "person" if _titled(name) else "likely_person" if person else None)
    if entry not in found:
        found.append(entry)


def _titled(name: str) -> bool:
    """Whether a title or a family word opens the name ("Dr. Patel", "Mum", "Auntie Pat")."""
    return not no_kin(name) or name.split()[0].rstrip(".").casefold() in _TITLES


def _may_name_company(text: str) -> bool:
    """Whether a Capitalized word follows a word that may say whom one met (a quick screen)."""
    for hit in _SPACE_CAPITAL.finditer(text):
        before = text[max(0, hit.start() - 40) : hit.start()].lower().split()
        if not _TRIGGERS.isdisjoint(before[-5:]):
            return True
    return False


_NO_ONES_NAME = """
    marketing sales engineering finance legal support product design operations ops platform infra
    infrastructure research team squad group department division unit friends family everyone everybody
    folks people guys kids colleagues customers clients chatgpt gpt copilot siri alexa bard gemini cortana
    perplexity grok neighbours neighbors coworkers co-workers in-laws inlaws interns hires alumni flatmates
    roommates housemates freshers mates mums dads parents students procurement leadership board devops
    security compliance growth partnerships investors admissions reception services police council committee
    management staff club society union health aid office desk helpdesk helpline
"""
_NO_ONES_WORDS = _words(_NO_ONES_NAME)
"""Words of no one's name: a team ("Lunch With Marketing Team"), a group, a desk, an assistant."""
_CALENDAR = _words(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july"
    " august september october november december"
)


def _a_name(name: str) -> bool:
    """Whether a name may be someone's: no weekday, group, team, app, bank, number or acronym ("HR")."""
    words = name.casefold().split()
    return (
        could_be_home(name)
        and not is_known_tool(name)
        and not (name.isupper() and len(name) <= 5)
        and _NO_ONES_WORDS.isdisjoint(words)
        and words[0] not in _CALENDAR
        and not any(c.isdigit() for c in name)
    )
