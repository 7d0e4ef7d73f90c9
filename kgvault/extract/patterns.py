"""The shipped table of verb patterns the offline extractor reads relations from (DESIGN §5).

A pattern is a regular expression over one candidate sentence in which wikilinks and code spans
have been replaced by placeholders (`\\ue000<n>\\ue001`); `{S}` is the subject, `{O}` the object and
`{A}` an earlier object that the relation replaces ("switched X from A to B"). Both ends must look
like names: a placeholder, or a Capitalized name of at most five words where later words may be
numbers ("Ender 3", "Postgres 15", "Voron 2.4"). "the printer" is no name, so it matches nothing,
except as `{T}`, what a switch is made to ("Switched the printer from Marlin to Klipper").
`{I}` is "I", `{W}` "I" or "we"; these relations, and a pattern's own `writer` ones ("First day at
the new job at X"), are the writer's, and hold only where the subject opens its clause.

`functional` marks predicates with one current value per subject (a printer runs one firmware,
a person lives in one place): pass 2 uses them to supersede older values and to spot conflicts.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache


class LazyRegex:
    """A regular expression compiled the first time it is used.

    The tables' regexes sit behind word screens, so a process that extracts a note or two (a
    rebuild after an edit) uses few of them: compiling all at import took about 0.15 s.
    """

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The compiled regex."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled().search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled().match(text, pos)


def _any_of(words: str) -> str:
    """A regex group matching any of the whitespace-separated words, in their order."""
    return f"(?:{'|'.join(words.split())})"


def _word_set(words: str) -> frozenset[str]:
    """The whitespace-separated words of a string, as a set (word lists read better as text)."""
    return frozenset(words.split())


PLACEHOLDER = "\ue000{index}\ue001"
"""How the extractor replaces a wikilink or code span before matching patterns."""
PLACEHOLDER_RE = re.compile("\ue000(\\d+)\ue001")

_UPPER = "A-ZÀ-ÖØ-Þ" + "".join(c for c in map(chr, range(0x100, 0x250)) if c.isupper()) + "Α-ΩЀ-Я"
"""Capital letters a name may start with: Latin ones with their accents ("Łukasz", "Šimon", "İlker"),
Greek and Cyrillic."""
CAPITALS = _UPPER
_WORD = rf"[{_UPPER}][\w+&-]*#?(?:['’][{_UPPER}][\w-]*)?(?:\.\w+)*"
"""A Capitalized word: "Klipper", "O'Connor", "Node.js", "C#" (but not the possessive of "Bob's")."""
_OWNERS_WORD = _WORD.replace(r"(?:\.\w+)*", rf"(?:['’]s(?=[ ][{_UPPER}]))?(?:\.\w+)*")
"""A Capitalized word that may be an owner's before the next ("St James's Hospital")."""
_NUMBER = (
    r"(?!(?:19|20)\d\d\s*[-–—]\s*(?:19|20)\d\d)\d+(?:[.,]\d+)*[A-Za-z]*"
    # Not a count of something after the name: "works at Boots 3 days a week", "bought the Corolla 10
    # days ago" (a version or a model stays: "Ender 3", "Postgres 16").
    r"(?![\x20\t]+(?:days?|weeks?|months?|years?|times?|hours?|hrs?|minutes?|mins?|nights?|mornings?"
    r"|evenings?|afternoons?|weekends?|quid|pounds?|dollars?|euros?|miles?|km|kg|people|kids|shifts?)\b)"
)
"""A number after a name's word ("Ender 3", "Postgres 16"), not the first of years ("Datadog 2018–2020")."""


_NO_VERB_AFTER = (
    r"(?![ ]+(?:works?|worked|working|lives?|lived|living|is|was|joined|joins|uses?|used|moved|left|started"
    r"|at|runs?|leads?)\b)"
)
"""After the name an "&" joins, no verb of its own: "Stripe & Tom works at Google" is two clauses."""


_NOT_AFTER_A_PLACE_WORD = (
    r"(?<!\bin\x20)(?<!\bat\x20)(?<!\bfrom\x20)(?<!\bfor\x20)(?<!\bwith\x20)(?<!\bnear\x20)"
    # "A friend of Ana works at …", but "Most of Acme uses Slack" is most of Acme.
    + r"(?:(?<!\bof\x20)|(?<=\b[Mm]ost\x20of\x20)|(?<=\b[Hh]alf\x20of\x20)|(?<=\b[Ss]ome\x20of\x20)"
    r"|(?<=\b[Aa]ll\x20of\x20))"
)
"""Not a name ending a longer subject: "My cousin in Toronto works at Shopify", "My old manager at
Meta now works at Google", "The recruiter from Meta reports to Jane" say nothing of Toronto or Meta."""


_HONORIFIC = rf"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Mt|Ft)\.[ ](?=[{_UPPER}]))"
"""A title with its dot before a name: "Dr. Reid" is no "Reid", nor "Mr. Thomas" a Thomas, nor
"St. Luke's" a Luke."""


_FIELD_WORD = (
    r"(?:Studies|Care|Sciences?|Arts|Technology|Design|Medicine|Music|Drama|Affairs|Development|Security"
    r"|Industry|Trade|Justice|Culture|Sport|Media|Engineering|Economics|Commerce|Humanities|Politics"
    r"|Welfare|Resources|Planning|Innovation|Skills|Education|Energy)"
)


def _name(word: str, joiners: str = "of") -> str:
    """A name made of such words: a placeholder, or up to five words after a title (later ones may be
    numbers, and "of" may join two: "Bank of America", "Isle of Man")."""
    # Only after "&" a verb says two clauses: "Stripe & Tom works at …" ("University of Leeds uses" is one).
    # After "of", "and" joins two more words of the name when a field of study or of government ends
    # it: "School of Oriental and African Studies", "Department of Health and Social Care".
    of = rf"of[ ]{word}(?:[ ]and[ ]{word}(?=[ ]{_FIELD_WORD}(?![\w'’-])))?"
    joined = rf"(?:{of}|&[ ]{word}(?![\w'’-]){_NO_VERB_AFTER})" if "&" in joiners else of
    return rf"(?:\ue000\d+\ue001|{_HONORIFIC}?{word}(?:[ ](?:{word}|{_NUMBER}|{joined})){{0,4}})"


NAME = _name(_WORD)
"""An entity-like name: a placeholder or a Capitalized name."""
_ORGANIZATION = _name(_OWNERS_WORD, "of|&")
"""An organization's name, which may hold an owner's "'s" ("St James's Hospital"; a person's may not:
"Bob's Ender 3" is Bob's) and an "&" ("Marks & Spencer")."""
_DETERMINERS: tuple[str, ...] = (
    *("the", "a", "an", "my", "our", "his", "her", "their", "its", "this", "that"),
    *("le", "la", "les", "un", "une", "du", "de la"),
)
_DETERMINER = rf"(?:(?i:{'|'.join(_DETERMINERS)})[ ]|(?i:l)['’])?"
_NOT_ABBREVIATED = r"(?!(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.[ \t])"
"""No person's title before an organization or a place ("works at Dr. Shah's" is no employer); a
saint's is part of its name ("St. Mary's Hospital", "St. Louis")."""
_POSSESSIVES = ("my", "his", "her", "our", "your", "their")
_NOT_OWNED_BEHIND = (
    "(?:(?:"
    + "|".join(rf"(?<=\b(?i:{word})[ ])" for word in _POSSESSIVES)
    + r")(?=(?:[A-Z][\w'’-]*[ ]){1,3}(?:flat|house|home|apartment|place|cottage|villa|bungalow)\b)|"
    + "".join(rf"(?<!\b(?i:{word})[ ])" for word in _POSSESSIVES)
    + ")"
)
"""No one's own thing before a home's name but a home: "Leo lives in his Spiderman costume", "Mia is
living in her Adidas trainers" (not "I moved to my Lisbon flat")."""
_OWNED = r"(?i:the|my|our)[ ]"
"""Whose an unnamed machine is: the writer's, or the one the notes speak of ("my laptop", "the printer");
not someone else's ("Lena switched her laptop …"), which one bare noun would mix up with the writer's."""
_RUNNING_THINGS = (
    "printer printers laptop laptops desktop pc computer server servers nas router routers phone phones "
    "tablet pi mac macbook homelab cluster vm vms vps box machine machines blog site website app backend "
    "frontend api "
    "database db ci pipeline build repo docs wiki editor shell terminal os kernel firmware bootloader camera "
    "kindle tv console keyboard controller board stack infra infrastructure deploy deployment monitoring "
    "logging auth dns email mail hosting storage backup backups cache queue search dotfiles proxy firewall "
    "vpn balancer gateway scheduler runner registry ingress"
)
_RUNNING_THING_WORDS = frozenset(_RUNNING_THINGS.split())
_A_RUNNING_THING = rf"(?=(?:[a-z][a-z0-9-]*[ ]){{0,2}}{_any_of(_RUNNING_THINGS)}[ \t]+from(?![\w'’-]))"
"""What a switch of firmware or software is made to, unnamed: a machine or a system ("the printer", "my
laptop", "the blog"); not "our banking", "the grinder", "the issue tracker" (things bought or kept)."""
"""What a switch of a machine's firmware or software is not: "Switched my bank from N26 to DKB", "my
running shoes", "my phone plan" (a thing bought, not run)."""
_THING = r"[a-z][a-z0-9-]*(?:[ ][a-z][a-z0-9-]*){0,2}"
"""What a switch is made to, unnamed: "the printer", "my old laptop" (`{T}` in a pattern; the
determiner is needed, so "switched over from" names nothing)."""
_NO_ADVERB = (
    r"(?!(?:Just|Finally|Officially|Also|Then|Now|Today|Yesterday|Recently|Still|Eventually|Never|Almost"
    r"|Nearly|Already|Later|Once|Soon|Team|Everyone|Everybody|Someone|Somebody|Nobody|People|Everything"
    r"|Something|Nothing)[ \t]+[a-z])"
    # A common noun opening a terse line: "Gym uses Beta for bookings", "Course runs on Moodle" (but
    # "Bank of America uses …" names one).
    r"(?!(?:Gym|Club|Course|Class|Teacher|Tutor|Coach|Hostel|Hotel|Landlord|Landlady|Boss|Office|Company"
    r"|Library|Nursery|School|Uni|College|Church|Council|Bank|Vet|Dentist|Surgery|Hospital|Restaurant"
    r"|Cafe|Café|Pub|Shop|Band|Choir|Group|Kitchen|House|Flat|Garage|Apartment|Standup|Stand-up|Retro"
    r"|Sprint|Planning|Onboarding|Meeting|Call|Demo|Interview|Hiring|Support|Ticketing|Code|Model|Paper"
    r"|Baseline|Dataset|Experiment|Thesis|Script|Pipeline|Notebook|Repo|Lab|Seminar)[ \t]+(?!of\b)[a-z])"
)
"""A capitalized adverb or word for anyone opening a line is no subject: "Just switched from Notion to
Obsidian", "Team uses Jira", "Everyone uses Slack" (but "Just Eat switched …" names a company); nor is
a common noun ("Gym uses Beta", "Standup runs on Zoom", "Model uses PyTorch Geometric")."""
_NAME_START = rf"(?=[\ue000{_UPPER}]|(?i:[{''.join(sorted({word[0] for word in (*_DETERMINERS, 'l')}))}]))"
"""A lookahead for the first character of a determiner or a name: where `{S}` can start."""


@dataclass(frozen=True, slots=True)
class VerbPattern:
    """One row of the table: how a sentence states a relation."""

    regex: LazyRegex
    predicate: str
    """Stable snake_case predicate written to relations.jsonl."""
    label: str
    """Its human reading, one label per predicate."""
    functional: bool
    """One current value per subject: a newer value supersedes an older one."""
    subject_type: str | None = None
    """Entity type the pattern implies for its subject, if any."""
    object_type: str | None = None
    """Entity type the pattern implies for its object, if any."""
    keywords: frozenset[str] = frozenset()
    """Lowercase words one of which every match holds: a cheap screen before the regex runs."""
    first_person: bool = False
    """Its subject is "I" (or "we", or unsaid: "First day at the new job at X"): the relation is its
    speaker's (a turn's, or a note's `author` or the `user_name`), else none."""
    ends: bool = False
    """It says the relation stopped ("I quit my job at X"): it ends on the sentence's date."""
    object_test: Callable[[str], bool] | None = None
    """What the object's name must pass, where words cannot tell (a home is no app: "I moved to Obsidian")."""
    needs: LazyRegex | None = None
    """What the sentence must also say for the pattern to count ("left A and joined B" is a job only where
    a job is spoken of: not "left Lloyds and joined Monzo")."""
    subject_test: Callable[[str], bool] | None = None
    """What the subject's name must pass ("Dad" runs no software: "Dr. Shah switched Dad to Eliquis")."""
    undated: bool = False
    """It says what holds, not that it began that day: "my husband Tom", "Karen's husband Mike"."""
    software: bool = False
    """A switch or a move that is of software only where a name it holds is (`offline`)."""


def _pattern(
    template: str,
    predicate: str,
    label: str,
    functional: bool,
    subject_type: str | None = None,
    object_type: str | None = None,
    *,
    keywords: str,
    ends: bool = False,
    writer: bool = False,
    object_test: Callable[[str], bool] | None = None,
    software: bool = False,
    needs: str | None = None,
    undated: bool = False,
) -> VerbPattern:
    # A shop or a pub named for its owner ends with his "'s": "works at McDonald's", "a job at Sainsbury's".
    shop = _SHOP_S if object_type == "organization" else ""
    organization = _ORGANIZATION if object_type == "organization" else NAME
    regex = (
        # "Ana now works at Google", "Tom also lives in Leeds": an adverb between a name and its verb.
        template.replace("{S} ", "{S} " + _BETWEEN_ADVERB, 1)
        .replace(" ", r"[ \t]+")
        .replace("{I}", r"(?P<subject>I)")
        .replace("{W}", r"(?P<subject>I|[Ww]e)")
        # "I" and "We" are no names: "I worked at SAP" is the writer's ({I}, {W}), or nobody's in an
        # unsigned note.
        # A subject opening the template is no name ending a longer subject ("My cousin in Toronto …").
        .replace("{S}", ("\x00" if template.startswith("{S}") else "") + "{S}", 1)
        .replace("{S}", rf"{_DETERMINER}{_NO_ADVERB}(?P<subject>(?!(?:I|We)\b){NAME})")
        .replace("\x00", _NOT_AFTER_A_PLACE_WORD)
        .replace(
            "{SS}", rf"{_NO_ADVERB}(?P<subjects>(?!I\b){NAME}(?:(?:,[ ]|,?[ ]and[ ]|[ ]&[ ])(?!I\b){NAME})+)"
        )
        .replace(
            "{T}", rf"(?:{_DETERMINER}(?P<subject>{NAME})|{_OWNED}{_A_RUNNING_THING}(?P<thing>{_THING}))"
        )
        .replace("{O}", rf"{_DETERMINER}{_NOT_ABBREVIATED}(?P<object>{organization}{_GROUP}{shop})")
        .replace("{A}", rf"{_DETERMINER}(?P<old>{NAME})")
        .replace("{N}", NAME)
        # The writer as the object: "Ravi reports to me" ("m" of "my" too: "Ravi is my direct report").
        .replace("{ME}y", r"(?P<object>m)y\b")
        .replace("{ME}", r"(?P<object>me)\b")
    )
    if predicate == "lives_in" and re.search(r"moved|relocated|living", template):
        regex += (
            _NOT_A_STAY  # "I moved to Ljubljana for two nights" (not "I've lived in Leeds for two weeks")
        )
    if predicate == "lives_in":
        regex = regex.replace("(?P<object>", f"{_NOT_OWNED_BEHIND}(?P<object>", 1)
    if object_type in ("organization", "place"):  # "works at the Berlin office", not "at Ana's company"
        regex = regex.replace("(?P<object>", f"(?P<object>{_NOT_A_SITE_AHEAD}{_NOT_SOMEONES_THING}", 1)
    elif (object_type == "person" or predicate in ("uses", "leads", "owns")) and "{O}['’]s" not in template:
        # Not "I started using Ana's bike": what is used is hers, not Ana.
        regex = regex.replace("(?P<object>", f"(?P<object>{_NOT_SOMEONE_ELSES_AHEAD}", 1)
    compiled = LazyRegex(rf"{_start_lookahead(template)}(?<![\w\ue001]){regex}")
    words = frozenset(keywords.split())
    first_person = writer or template.startswith(("{I}", "{W}"))
    if object_test is None and predicate == "lives_in":
        object_test = could_be_home  # "I basically live in Emacs", "I moved to Obsidian last year"
    if object_test is None and predicate == "runs":
        object_test = _no_day_or_team  # "Omar runs Saturdays now"
    if predicate == "works_for":  # "Dave has been working for Mum on her kitchen", "at Number 14"
        object_test = _an_employer if object_test is None else _both(object_test, _an_employer)
    return VerbPattern(
        compiled,
        predicate,
        label,
        functional,
        subject_type,
        object_type,
        words,
        first_person,
        ends,
        object_test,
        LazyRegex(needs) if needs else None,
        # A machine or a project runs things; a person, a weekday or a team is run by none.
        no_kin if predicate == "runs" else None,
        undated,
        software,
    )


def _start_lookahead(template: str) -> str:
    """A lookahead for the characters a match of the template can start with.

    The regex engine then leaves most positions of a sentence at once, instead of trying a name
    or a determiner there (patterns run about 40% faster).
    """
    if template.startswith(("{S}", "{SS}", "{O}")):
        return _NAME_START
    if template.startswith("{I}"):
        return "(?=I)"
    if template.startswith("{W}"):
        return "(?=[IWw])"
    verbs = re.match(r"\(\?i:([a-z|]+)\)", template)
    if verbs is None:
        raise ValueError(f"cannot tell how {template!r} starts: begin it with {{S}}, {{O}} or (?i:verb|verb)")
    return f"(?=(?i:[{''.join(sorted({verb[0] for verb in verbs.group(1).split('|')}))}]))"


_ADVERB = r"(?:(?:now|still|currently|also|already) )?"
DOSE = r"\d+(?:[.,]\d+)?[\x20\t]?(?:mg|mcg|µg|g|ml|iu|IU|units?)\b"
"""A medicine's dose: "50mg", "2.5 mg", "1000IU"."""
VITAMIN = r"[Vv]itamin[\x20\t][A-Z]\d{0,2}(?![\w'’-])"
"""A vitamin named by its letter: "vitamin D", "Vitamin B12"."""
_DRUG = (
    r"(?P<object>(?!(?:the|a|an|my|it|them|that|this|some|call|holiday|leave|duty|time|board|track|notes?)\b)"
    rf"(?:{VITAMIN}(?:[\x20\t]+{DOSE})?"
    rf"|[a-z][a-z-]{{3,}}(?:[\x20\t]+{DOSE})?|[A-Z][a-z-]{{3,}}[\x20\t]+{DOSE}))"
)
"""A medicine as a diary names it, in lower case with its dose if said ("sertraline 50mg"), or a brand
with its dose ("Piriton 2mg"; not "takes Delphine to ballet": a name)."""
_OLD_DRUG = _DRUG.replace("(?P<object>", "(?P<old>", 1)
_A_VITAMIN = re.compile(rf"(?i:{VITAMIN})")
"""The medicine a switch leaves."""
_DRUG_ENDINGS = (
    "aline oxetine faxine pram azepam azolam pril sartan statin olol prazole cillin cycline floxacin mycin "
    "profen proxen amol formin thyroxine olone isone adone tonin ulin apine azapine trigine pentin gabalin "
    "propion farin xaban lukast izine atadine tidine semide dipine adol deine phine ipine etine idone "
    "trexate tyline lithium odone iclone salazine oquine pezil mantine umab imab ximab oxacin conazole"
)
_DRUG_END = re.compile(rf"(?:{'|'.join(_DRUG_ENDINGS.split())})$")


def is_medicine(name: str) -> bool:
    """Whether a lower-case word taken is a medicine: said with its dose ("magnesium 400mg", "vitamin d"),
    or named as medicines are ("sertraline", "lisinopril", "atorvastatin"); not "taking notes", "on call"."""
    drug, _, dose = name.partition(" ")
    return bool(dose) or _DRUG_END.search(drug.casefold()) is not None


def medicine_name(said: str) -> str:
    """A medicine's name as an entity's, without its dose: "sertraline 50mg" is Sertraline, "vitamin d
    1000iu" Vitamin D."""
    vitamin = _A_VITAMIN.match(said)
    if vitamin is not None:
        return f"Vitamin {vitamin[0].split()[1].upper()}"
    return said.split()[0].capitalize()


_USE_ENDS = (
    r"(?=[\x20\t]*(?:[,.;:!?)]|$|(?:any\s?more|altogether|at\s+all|last\s+\w+|this\s+(?:week|month|year)|today"
    r"|yesterday|(?:a|an|one|two|three|four|five|six|a\s+few|\d+)\s+(?:days?|weeks?|months?|years?)\s+ago"
    r"|(?:back\s+)?in\s+(?:[A-Z][a-z]+(?:\s+(?:19|20)\d\d)?|(?:19|20)\d\d))(?![\w'’-])))"
)
"""Where a tool no longer used ends its clause: not "no longer use Notion as much", "on my phone"."""
_BETWEEN_ADVERB = r"(?:(?:now|still|currently|also|already|recently) )?"
_GROUP = r"(?:[ ](?:team|group|club|committee|band|squad|guild|chapter|council|board)(?![\w'’-]))?"
"""A name's group, part of the object: "a member of the Rust team" is of the team, not of Rust."""
_SITES = "office offices branch site campus plant factory warehouse HQ headquarters"
_NOT_A_SITE_AHEAD = rf"(?!{NAME}[\t\x20]+(?:{_any_of(_SITES)})(?![\w'’-]))"
"""Not a name before where someone works: "works at the Lisbon office" names a place (whose office, when
"of Globex" follows, is Globex's)."""
_CLAUSE_GOES_ON = _any_of(
    "today yesterday now since as in on for last this and but until to so because after before with when "
    "while where at from"
)
"""Words after a name that go on with the clause, not name someone's thing ("at Sainsbury's today")."""
_NOT_SOMEONES_THING = rf"(?!{NAME}['’]s[\x20\t]+(?!{_CLAUSE_GOES_ON}\b)[a-z])"
"""Not someone's thing: "works at Ana's company", "a job at Tom's startup" (the employer is not Ana)."""
_SHOP_S = rf"(?:['’]s(?=[\x20\t]*(?:[,.;:!?)]|$)|[\x20\t]+{_CLAUSE_GOES_ON}\b))?"
"""An employer's name's closing "'s", before its clause ends or goes on: "McDonald's", "Sainsbury's"."""
_NOT_SOMEONE_ELSES_AHEAD = rf"(?!{NAME}['’]s(?![\w'’-]))"
"""Not a person's name owning who is meant: "I report to Gavin's deputy" is not to Gavin."""
_ARTICLE = r"(?:(?:the|a|an|my|our|their|his|her|its) (?:new |old )?|new )"
_NO_ARTICLE = r"(?!(?:the|a|an|my|our|their|his|her|its|new) )"
"""What a switch is made to is software when named bare ("to Klipper"), a machine when with its article."""
_NOT_A_BOX = (
    r"(?!(?:new )?(?:VMs?|VPS|box|machine|container|server)(?![\w'’-]))"
    r"(?!\S+(?:[\t\x20]\S+){0,3}?[\t\x20]+(?i:team|group|squad|department|project|office)(?![\w'’-]))"
)
"""Not a machine of no name ("to a VM", "to a new VPS"), nor a team ("Moved Ana to the Berlin team")."""
_HOW_WORKED = r"(?:(?:remotely|part-time|full-time|freelance) )?"
"""How someone works where they work: "Leila works remotely for Globex"."""
_JOB_NOUNS = (
    "engineer developer programmer designer manager architect analyst scientist researcher consultant "
    "intern recruiter accountant lawyer nurse doctor teacher professor lecturer editor technician lead "
    "director"
)
NO_NOUN_AFTER = (
    r"(?![\t\x20]+(?!(?:and|or|but|in|on|at|for|with|to|from|now|since|until|till|as|too|today|yesterday|again"
    r"|already|also|still|so|because|while|when|after|before|by|of|is|was|are|were|which|who|that|there|here"
    r"|this|last|next|every)\b)[a-z]{3,})"
)
"""After a job's word, no noun it qualifies: "a clerk bot", "a producer marketplace" are no jobs."""
_MORE_JOB_NOUNS = (
    "pharmacist barista paralegal chef waiter waitress bartender cashier electrician plumber carpenter "
    "mechanic paramedic midwife dentist therapist physiotherapist psychologist surgeon veterinarian "
    "librarian journalist photographer receptionist clerk producer tutor assistant postdoc"
)
"""Jobs that name a job when named as one ("a pharmacist at Boots"), but are no cue of one in a clause
of their own ("I left Boots and joined Superdrug, the pharmacist there is nicer")."""
_CHIEFS = "CEO CTO CFO COO CIO CPO CMO CISO president"
_CHIEF = rf"(?:{_any_of(_CHIEFS)}|managing director)"
_A_DIRECTOR = (
    r"(?:deputy|assistant|associate|executive|regional|program|programme|research|finance|marketing|sales"
    r"|technical|creative|medical|clinical) director"
)
"""A director whose kind says an organization's ("the deputy director of the Port Authority"; not "the
director of Inception", a film's)."""
_ROLE_BEFORE_NAME = (
    rf"(?:(?:the|our|my|his|her|their) (?:new )?(?:{_any_of(_CHIEFS)}|founder|director|manager|boss|lead"
    r"|(?i:head|director) of [A-Za-z]+|VP(?: of [a-z]+)?|(?i:dean|provost|principal|chair)),? )?"
)
"""A role said before the person it is: "reports to the CEO, [[Anneke Smit]]", "to our CTO, Priya"."""
_ROLES_ALONE = frozenset(
    word.casefold()
    for word in (
        *_CHIEFS.split(),
        "VP",
        "Founder",
        "Director",
        "Manager",
        "Boss",
        "Dean",
        "Provost",
        "Principal",
    )
)


def _no_role(name: str) -> bool:
    """Whether the name is a person's, not a role ("reports to the CEO.", "to the Dean", "to the Head of
    School" name nobody)."""
    folded = name.casefold()
    return folded not in _ROLES_ALONE and not folded.startswith(("head of ", "director of ", "vp of "))


_ROLE = (
    r"(?:(?:new|current) )?(?:(?i:senior|junior|lead|principal|staff|software|data|product|UX|UI|frontend"
    r"|backend|full-stack|marketing|sales|engineering|research|security|QA|graphic|web) ){0,2}"
    # What the job is in: "a Spanish teacher", "a Python developer", "an iOS developer", "a sound engineer".
    r"(?:(?:[A-Z]|i(?=[A-Z]))[\w+#.]*(?:-[A-Za-z]+)? |(?i:sound|creative|art|account|medical|legal|financial"
    r"|customer|support|mechanical|civil|electrical|audio|video|game|mobile|cloud|devops|platform|field"
    r"|charge|registered|practice|district|community|dental|veterinary|trainee|head|ward|teaching) )?"
    rf"(?:(?i:{'|'.join((_JOB_NOUNS + ' ' + _MORE_JOB_NOUNS).split())})|{_CHIEF}"
    r"|(?i:head|director|VP) of [A-Za-z]+|VP [A-Z][a-z]+)(?![\w'’-])"
)
"""A job, named as one: "a senior designer", "the new CTO", "head of design", "a Spanish teacher", as
work notes write them too: "a Staff Engineer", "a Senior Backend Engineer", "VP of Engineering" (not
"former": over)."""
JOB_TITLE_WORDS = f"{_JOB_NOUNS} {_MORE_JOB_NOUNS}"
"""The nouns that name a job ("engineer", "nurse", "teacher")."""
JOB_TITLE = _ROLE.replace(" ", r"\s+")
"""A job named as one, as a regex of its own ("Senior engineer", "Head of operations")."""
_ROLE_WORDS = f"{_JOB_NOUNS} {_MORE_JOB_NOUNS} {_CHIEFS.lower()} director head vp"
"""The words one of which a sentence naming a job holds (the patterns' screen)."""
_A_ROLE = rf"(?:(?:the|a|an|our|their) {_ROLE}|(?=[A-Z]){_ROLE})"
"""A job said with its article, or in title case without one ("Dana is Head of Marketing at Initech")."""
_A_ROLE_OR_ROLE = rf"(?:(?:the|a|an|our|their) )?{_ROLE}"
"""A job one joins as, with or without its article: "joined Acme as a designer", "as marketing lead"."""
_JOB_NOUNS_FR = (
    "designer développeur développeuse ingénieur ingénieure directeur directrice manager médecin infirmier "
    "infirmière professeur professeure enseignant enseignante avocat avocate comptable stagiaire consultant "
    "consultante chercheur chercheuse CEO CTO CFO COO PDG DG DRH"
)
_ROLE_FR = rf"{_any_of(_JOB_NOUNS_FR)}(?![\w'’-])"
"""A job named in French: "designer", "ingénieure", "le nouveau CTO"."""
_ROLE_WORDS_FR = _JOB_NOUNS_FR.lower()
_THE_FR = r"(?:le |la |l['’])?"
_A_FR = r"(?:le |la |l['’]|un |une )?"
_OF_FR = r"(?:de |d['’])"
_SIBLING_WORDS_FR = "frère sœur soeur jumeau jumelle"
_PARENT_WORDS_FR = "mère père maman papa"
_CHILD_WORDS_FR = "fils fille enfant"
_SIBLING_FR = rf"{_any_of(_SIBLING_WORDS_FR)}(?![\w'’-])"
_PARENT_FR = rf"{_any_of(_PARENT_WORDS_FR)}(?![\w'’-])"
_CHILD_FR = rf"{_any_of(_CHILD_WORDS_FR)}(?![\w'’-])"
_STUDIED = r"(?:(?!(?:the|a|an|my|our|his|her|their|this|that|it)\b)[a-z]+ ){0,2}"
_STUDIED_SOMETHING = r"(?:(?!(?:the|a|an|my|our|his|her|their|this|that|it|at)\b)[a-z]+ ){1,2}"
"""What someone studied, said: "physics", "computer science"."""
"""What someone studies, a word or two with no determiner: "physics", "computer science"."""
_KIN_END = (
    r"(?![\t\x20]*[(—–-][\t\x20]*-?(?i:ex|former|in[-\x20]law|step)(?![a-z]))"  # "my wife (ex)", "(in-law)"
    r"(?=[\t\x20]*(?:[,.;:!?)(—–]|$)"
    r"|[\t\x20]+(?:and|who|from|in(?![\t\x20]+law)|at|since|now|too|-)(?![\w'’-]))"
)
_SIBLING_WORDS = "brother sister sibling twin"
_PARENT_WORDS = "mother father parent mom dad mum"
_CHILD_WORDS = "son daughter child kid"
_SIBLING = rf"(?:(?:older|younger|big|little|twin) )?{_any_of(_SIBLING_WORDS)}{_KIN_END}"
_PARENT = rf"{_any_of(_PARENT_WORDS)}{_KIN_END}"
_CHILD = rf"(?:(?:oldest|eldest|youngest) )?{_any_of(_CHILD_WORDS)}{_KIN_END}"
"""Family words ending their phrase (a remark in brackets or after a dash may follow: "Tom's daughter (age
6)"): not "my sister's friend", "brother-in-law" (or "in law"), "Ana's dad joke"."""
_SIBLING_BEFORE_NAME = rf"(?:(?:older|younger|big|little|twin) )?{_any_of(_SIBLING_WORDS)}"
_PARENT_BEFORE_NAME = _any_of(_PARENT_WORDS)
_CHILD_BEFORE_NAME = rf"(?:(?:oldest|eldest|youngest) )?{_any_of(_CHILD_WORDS)}"
_SPOUSE_WORDS = "wife husband spouse"
_SPOUSE = rf"{_any_of(_SPOUSE_WORDS)}{_KIN_END}"
_PARTNER_WORDS = "partner boyfriend girlfriend fiance fiancee fiancé fiancée"
_PARTNER = rf"{_any_of(_PARTNER_WORDS)}(?=[\t\x20]*(?:[,.;:!?)]|$))"
"""A partner said at a clause's end ("Lena is my partner."; not "my partner in the practice")."""
_LOVER_WORDS = "boyfriend girlfriend fiance fiancee fiancé fiancée"
_LOVER = rf"{_any_of(_LOVER_WORDS)}(?![\w'’-])"
"""Before a name, only a word no business uses: "my boyfriend Tom" (not "Microsoft's partner OpenAI")."""
"""Whom someone lives their life with, unmarried: no business partner ("my partner at the firm" is not
read: a name must follow, or the line must say whose)."""
_MANAGER_WORDS = "manager boss supervisor"
_MANAGER = rf"(?:new |current )?(?:line )?{_any_of(_MANAGER_WORDS)}(?![\w'’-])"
"""Whom the writer reports to, named as such (not "my manager's boss": that one's own)."""
# No literal space in it: `_pattern` reads a template's spaces as runs of blanks.
_BOUGHT_FOR = (
    r"(?![\w'’])(?![\t\x20]+(?:(?:a|an|some|the|his|her|their|my|our)[\t\x20]+)?(?:new[\t\x20]+)?"
    r"(?:flowers|gifts?|presents?|dinner|lunch|breakfast|coffee|drinks?|tickets?|cake|chocolates?|bike"
    r"|toy|book|card|ring|watch)\b)"
    r"(?![\t\x20]+(?:a|an|some|his|her|their|my|our|two|three|new)[\t\x20]+"
    r"(?!(?:year|month|week|day|while|few|couple|decade)s?\b))"
)
"""What was bought for someone ("Tom bought Anna flowers", "Ana bought Ben a beer"), after whom it was
bought for (not "Tom bought Acme a year ago")."""

_NOT_A_STAY = (
    # The rest of a longer name first: else "Hong Kong for a month" backtracks to a home "Hong".
    r"(?![\w'’-])(?!(?:[\t\x20]+[A-Z][\w'’-]*)*[\t\x20]+"
    r"(?:(?:last|this|next)[\t\x20]+\w+[\t\x20]+|yesterday[\t\x20]+|today[\t\x20]+)?"
    r"(?:for[\t\x20]+(?:a|an|one|two|three|four|five|six|the|a[\t\x20]+few|a[\t\x20]+couple(?:[\t\x20]+of)?|\d+"
    r"|\w+[\t\x20]+or[\t\x20]+\w+)[\t\x20]+(?:\w+[\t\x20]+)?(?:nights?|days?|weeks?|weekend|months?|summer"
    r"|winter|spring|autumn|fall|semester|season|holidays?)\b"
    r"|for[\t\x20]+(?:the|a|an|my|our|his|her|their)[\t\x20]+(?:[\w'’-]+[\t\x20]+)?(?:conference|marathon"
    r"|wedding|festival|trip|holiday|holidays|vacation|sabbatical|tour|race|retreat|workshop|summit|gig"
    r"|concert|match|tournament|event|stag|hen)\b"
    r"|over[\t\x20]+(?:the[\t\x20]+)?(?:winter|summer|holidays|christmas|easter|weekend|break)\b"
    r"|(?:for|on)[\t\x20]+(?:the[\t\x20]+|a[\t\x20]+|my[\t\x20]+|our[\t\x20]+)?(?:[\w'’-]+[\t\x20]+)?"
    r"(?:energy|gas|electric|electricity|broadband|internet|insurance|mortgage|banking|bank|phone|mobile"
    r"|deal|tariff|fees|rates?|savings|account|current[\t\x20]+account)\b"
    # Not "moved to Frankfurt for a banking job": a job is a move's reason.
    r"(?![\t\x20]+(?:job|role|position|career|post|work|gig|offer)\b)))"
)
"""After a home, no stay and no supplier: "I moved to Ljubljana for two nights", "living in Vienna for
a few days", "living in Lisbon for the summer", "moved to Kyoto for the conference", "moved to Tenerife
over the winter", "I moved to Octopus for the energy", "moved to EE on a SIM-only deal"."""
_NOT_NOUNS = (
    "and|or|but|nor|in|on|at|for|with|to|from|now|since|until|till|as|too|today"
    "|yesterday|again|already|also|still|together|alone|so|because|while|when|after|before|by|of|is|was|are"
    "|last|this|next|back|online|off|recently|secondhand|second-hand|cheap|some|kit|two|three|four|five|six"
    "|several|few|many|ten|twelve|twenty|over|during|earlier|via|through|around|everywhere|completely"
    "|across|altogether|overnight|internally|wholesale"
    "|were|which|who|that|outright|entirely|fully|jointly|personally|anymore|no|not"
)
"""Lower-case words after a name that are no noun it qualifies."""


def _not_a_modifier(nouns_of_the_name: str = "") -> str:
    """After a whole name, no lower-case noun it qualifies, but these words of the name itself."""
    # The rest of a longer name first: else "a Nintendo Switch over the weekend" backtracks to "Nintendo".
    allowed = f"{nouns_of_the_name}|{_NOT_NOUNS}" if nouns_of_the_name else _NOT_NOUNS
    return rf"(?![\w'’-])(?!(?:[\t\x20]+[A-Z][\w'’-]*)*[\t\x20]+(?!(?:{allowed})\b)[a-z]{{3,}})"


_NOT_A_MODIFIER = _not_a_modifier()
"""After an owned or led name, no noun it names: "owns the Postgres runbooks", "manages the Atlas
migration" own and lead no Postgres, no Atlas."""
_NOT_A_MODIFIER_BUT_A_BUSINESS = _not_a_modifier(
    "project|app|company|business|shop|brand|pub|bar|cafe|café|restaurant|bakery|nursery|salon|gym"
    "|garage|farm|hotel|store|studio|gallery|bookshop|deli|agency|firm|practice|clinic|school"
)
"""The same, where the noun may be what the name is: "the owner of the Atlas project" owns Atlas, "of
the Red Lion pub" the Red Lion."""
_CLAUSE_ENDS = r"(?=[\x20\t]*(?:[.,;!?)]|$|(?:now|these[\x20\t]+days|again)\b))"
"""The clause ends after the name: "I use Chrome instead of Firefox." (not "… instead of Firefox for
testing": one use changed, not all)."""
_NOT_A_SESSION = (
    r"(?![\w'’-])(?!(?:[\t\x20]+(?:[A-Z][\w'’-]*|\d[\w.]*))*(?:[\t\x20]+(?:shop|store|branch|site|office|ward))?"
    r",?[\t\x20]+"
    r"(?:today(?![,!]?[\t\x20]+(?:my[\t\x20]+)?first\b)|tonight"
    r"|this[\t\x20]+(?:morning|afternoon|evening|week|weekend|month|fortnight)"
    r"|all[\t\x20]+(?:day|morning|afternoon|evening|night)"
    r"|for[\t\x20]+(?:the|this)[\t\x20]+(?:day|morning|afternoon|evening|week|weekend)"
    r"|on[\t\x20]+(?:my|his|her|their|our|the)[\t\x20]+(?:new[\t\x20]+)?(?:thesis|essay|dissertation|assignment"
    r"|homework|revision|coursework|novel|kitchen|bathroom|roof|garden|extension|loft|boiler|driveway)"
    r")\b)"
)
"""After where someone works, no session of work: "I'm working at Costa today", "worked at the British
Library all day on my thesis", "has been working for Tom on his new kitchen", "Jess is working at
Southmead this week" (a day's, a week's cover or a job's place, not an employer)."""
_NOT_A_BUSINESS_AHEAD = (
    r"(?![\w'’-])(?!(?:[\t\x20]+(?:[A-Z][\w'’-]*|\d[\w.]*))*[\t\x20]+(?:garage|shop|store|station|pub|cafe"
    r"|café|restaurant|bakery|salon|nursery|school|club|gym|branch|franchise|clinic|surgery|practice|stall"
    r"|kiosk|hotel|hostel|farm|dealership|seminar|lab|group|reading|class|course|workshop|meetup|session"
    r"|tutorial|module|lecture|programme|program|society|podcast|newsletter|team|journal)(?:e?s)?\b)"
)
"""After what someone runs, no place of business or gathering it names: "Ian runs the Esso garage", "Mark
runs the ML seminar", "Anna runs the GNN reading group" (led, not run: no Esso, ML or GNN runs)."""
_NOT_FROM = r"(?![\w'’-])(?!\s+from\b)"
"""After a whole name, no "from": "moved to Obsidian from Notion" is a switch of tools, not a home."""
_NOT_WITH_A_NAME = (
    r"(?![\w'’-])(?![\t\x20]+with[\t\x20]+(?:(?:a|an|the|my|our|his|her|their|new)[\t\x20]+)*[\ue000A-Z])"
)
"""After a whole name, no "with" a name: "Anna replaced Notion with Obsidian" is a switch of tools."""
_JOB = r"(?:(?:the|my|a|her|his|their) )?(?:new )?(?:job|role|position|work)"
_LAID_OFF = r"(?:(?:laid off|let go|made redundant|fired|sacked) from|made redundant at)"
"""How a job is lost, up to its employer: "laid off from Shopify", "fired from Initech" (not "let go by
Dave": who lets one go may be a person)."""
_NOT_TURNED_DOWN = r"(?![^.;!?]*\b(?:turned\s+(?:it|them)\s+down|declined|said\s+no)\b)"
"""A job got that was not taken: "landed a role at Figma but turned it down"."""
_WHEN_JOINED = r"(?: (?:today|yesterday|this week|last week|this month|last month|this year|last year))?"
"""When someone joined, said before the job: "I joined Adyen today as a data engineer"."""
_JOINED = (
    r"(?:(?:have |has )?joined|join|(?:started|start) (?:working )?(?:at|with)"
    r"|(?:went|go) to work (?:at|for))"
)
"""Joining an employer, after leaving one: "and joined", "to join", "and started at", "to go to work for"."""
_JOINED_END = r"(?=[\x20\t]*(?:[,.;:!?)]|$|as\s|(?:today|yesterday|last|this|in\s+(?:19|20)\d\d)(?![\w'’-])))"
"""What may follow the employer joined: the clause's end, the job, a time; not "joined Tom in Porto"."""
_NOT_A_COUPLE = r"(?![\w'’-])(?!\s*(?:,|and|&)\s*[\ue000A-Z])"
"""Not "Father Murphy married Ana and Tom": who marries a couple is married to neither."""
_NO_OFFICIANT = r"^(?!.*\b(?i:father|reverend|rev|judge|pastor|priest|rabbi|imam|vicar|cleric|officiant)\b)"
"""A sentence without who conducts a wedding: "The Reverend Green married them" marries no one to him."""
_NOT_HIRED_TO = r"(?![\w'’-])(?!(?:[\t\x20]+[A-Z][\w'’-]*)*\s+to\s)"
"""Not hired to do something ("hired by Tom to paint the house", "by Acme Ltd to redesign their site"): a
job done, not a job held (the rest of a longer name first: else "Acme" alone is hired by)."""
_JOB_CUE = (
    rf"(?i)\b(?:jobs?|roles?|positions?|offers?|careers?|compan(?:y|ies)|employers?|startups?|hired|salary"
    rf"|onboarding|interview(?:s|ed)?|colleagues?|promot(?:ed|ion)|head|director|vp|internship"
    rf"|{_any_of(_JOB_NOUNS)}s?|{_any_of(_CHIEFS)})\b"
)
"""What says a sentence is about a job: "left Google and joined Datadog as a staff engineer", "… new
job!" (not "left Lloyds and joined Monzo", "left PureGym and joined Third Space")."""
_WHEN_LEFT = r"(?:\s+in\s+(?:(?:[A-Z][a-z]{2,8}\.?\s+)?(?:19|20)\d\d|[A-Z][a-z]{2,8}))?"
"""When a job was left, said after it: "left Greenleaf in Aug 2024", "in 2023", "in March"."""
_BARE_OLD = r"(?P<old>(?!(?i:the|a|an|my|our|his|her|their)\s){N})"
_BARE_NEW = r"(?P<object>(?!(?i:the|a|an|my|our|his|her|their)\s){N})"
"""Employers named bare: "left Google and joined Datadog" (not "left Tom to join the Navy", "left the
Labour Party and joined the Greens")."""


_KNOWN_TOOLS = _word_set(
    "obsidian notion logseq roam evernote onenote bear craft joplin anytype tana capacities reflect "
    "linear jira asana trello clickup basecamp monday todoist omnifocus ticktick things "
    "slack teams discord zoom signal telegram whatsapp mattermost zulip mastodon bluesky "
    "linux ubuntu debian fedora arch nixos macos windows android ios chromeos "
    "neovim vim emacs vscode cursor zed sublime intellij pycharm "
    "kubernetes k8s docker podman nomad aws gcp azure heroku vercel netlify fly.io render "
    "postgres postgresql mysql mariadb sqlite mongodb redis kafka rabbitmq "
    "python rust go golang typescript javascript kotlin swift elixir "
    "github gitlab bitbucket gitea forgejo figma sketch miro zotero mendeley "
    "firefox chrome chromium safari brave vivaldi gmail fastmail protonmail proton outlook thunderbird "
    "bitwarden 1password keepass lastpass spotify tidal plex jellyfin "
    "klipper marlin octoprint cura prusaslicer orcaslicer proxmox truenas unraid "
    "wordpress ghost substack hugo jekyll astro django rails laravel react vue svelte terraform ansible "
    "confluence sharepoint dropbox circleci jenkins vaultwarden nextcloud owncloud syncthing icloud onedrive "
    "twitter x reddit facebook instagram tiktok threads linkedin strava tumblr snapchat youtube twitch "
    "duolingo headspace calm netflix hulu tinder bumble hinge pinterest clubhouse peloton myfitnesspal "
    "wordle deliveroo ubereats doordash audible kindle goodreads letterboxd "
    "xero freeagent quickbooks toggl squarespace webflow calendly mailchimp convertkit wix overleaf "
    "powerpoint latex"
) | frozenset(
    [
        "vs code", "visual studio code", "github actions", "gitlab ci", "google docs", "google drive",
        "google workspace", "microsoft teams", "ms teams", "apple notes", "day one", "roam research",
        "sublime text", "garmin connect", "google meet", "foundry vtt", "roll20", "fantasy grounds",
        "owlbear rodeo", "airtable", "coda", "hetzner", "digitalocean", "linode", "ruby on rails", "deno",
        "java", "php", "haskell", "scala", "c#", "c++", "adobe creative cloud", "cal.com", "google sheets",
        "microsoft word", "microsoft excel", "ms word",
    ]
)  # fmt: skip
"""Software people move to: "I moved to Obsidian", "we migrated to Linear" is no new home."""
_CALENDAR_OR_TEAM = _word_set(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december marketing sales engineering finance legal support product "
    "design operations ops hr it platform infra infrastructure research"
)
"""What a meeting or a person moves to that is no place: "moved to Tuesday", "moved to Marketing"."""


_GROUP_WORDS = _word_set(
    "team squad group department division unit phase sprint stage level tier plan version room"
)
"""First words of what one moves to that is no place: "Team Blue", "Phase 2", "Plan B"."""


_SYSTEMS = _word_set(
    "linux ubuntu debian fedora arch nixos macos windows android ios ipados chromeos freebsd openbsd "
    "raspbian dietpi armbian alpine centos rhel rocky almalinux manjaro mint popos gentoo void "
    "klipper marlin rrf reprapfirmware prusa-firmware smoothieware grbl proxmox truenas unraid "
    "openmediavault omv pfsense opnsense openwrt dd-wrt tomato tasmota wled lineageos grapheneos "
    "calyxos haos mainsailos fluiddpi octopi esxi xcp-ng"
) | frozenset(["raspberry pi os", "home assistant os", "linux mint", "pop os", "pop!_os", "arch linux",
               "truenas scale", "truenas core", "elementary os", "zorin os"])  # fmt: skip
"""Firmware and operating systems: a machine runs one at a time."""


def is_system(name: str) -> bool:
    """Whether the name is of a firmware or an operating system (`Klipper`, `Ubuntu 24.04`, `Pi OS`)."""
    words = name.casefold().split()
    while len(words) > 1 and any(c.isdigit() for c in words[-1]):
        words.pop()  # "Ubuntu 24.04", "Windows 11"
    folded = " ".join(words)
    return folded in _SYSTEMS or folded.replace("-", " ") in _SYSTEMS or words[-1:] in (["os"], ["firmware"])


_SERVICES = _word_set(
    "plex jellyfin emby kodi pi-hole pihole adguard unbound technitium nextcloud owncloud syncthing "
    "vaultwarden immich photoprism paperless paperless-ngx frigate homebridge node-red zigbee2mqtt "
    "mosquitto esphome grafana prometheus influxdb loki telegraf docker podman portainer traefik nginx "
    "caddy haproxy wireguard tailscale headscale openvpn sonarr radarr lidarr prowlarr bazarr overseerr "
    "jellyseerr qbittorrent transmission deluge sabnzbd nzbget samba octoprint mainsail fluidd moonraker "
    "obico minecraft gitea forgejo jenkins drone woodpecker freshrss miniflux wallabag mealie tandoor "
    "calibre calibre-web audiobookshelf navidrome kavita komga heimdall homepage homarr dashy netdata "
    "glances duplicati restic borg borgmatic kopia authelia authentik keycloak cloudflared ntfy gotify "
    "uptime-kuma"
) | frozenset(
    ["home assistant", "adguard home", "uptime kuma", "node red", "paperless ngx", "pi hole",
     "nginx proxy manager"]
)  # fmt: skip
"""Services a machine runs side by side ("The NUC runs Plex" and "runs Pi-hole" both hold)."""


def is_service(name: str) -> bool:
    """Whether the name is of a service run beside others (`Plex`, `Pi-hole`), not a system (`Klipper`)."""
    folded = " ".join(name.casefold().split())
    return folded in _SERVICES or folded.replace("-", " ") in _SERVICES


def is_software(name: str) -> bool:
    """Whether the name is of known software, a system or a service, versions aside (`Postgres 14`)."""
    words = name.split()
    while len(words) > 1 and any(c.isdigit() for c in words[-1]):
        words.pop()
    bare = " ".join(words)
    return is_known_tool(bare) or is_system(bare) or is_service(bare)


def is_running_thing(name: str) -> bool:
    """Whether the name is of a machine or a system named by what it is ("printer", "the old laptop")."""
    words = name.casefold().split()
    return bool(words) and words[-1] in _RUNNING_THING_WORDS


def is_known_tool(name: str) -> bool:
    """Whether the name is of software people move their work to (`Obsidian`, `VS Code`; not `Base Camp`)."""
    return " ".join(name.casefold().split()) in _KNOWN_TOOLS


_PROVIDERS = _word_set(
    "monzo starling revolut barclays hsbc natwest lloyds nationwide tsb chase n26"
    " wise paypal klarna ing rabobank bunq octopus edf ovo eon e.on bulb ee o2 vodafone giffgaff plusnet"
    " talktalk sky bt verizon t-mobile at&t comcast xfinity geico allstate aviva admiral vanguard fidelity"
    " freetrade nutmeg moneybox trading212"
) | frozenset(
    ["first direct", "british gas", "scottish power", "so energy", "virgin media", "bank of america",
     "wells fargo", "direct line", "legal & general", "three mobile", "e on", "hargreaves lansdown",
     "aj bell", "trading 212"]
)  # fmt: skip
"""Banks, energy suppliers, networks and insurers: "I moved to Octopus" changes a supplier, not a home."""


def is_provider(name: str) -> bool:
    """Whether the name is of a bank, an energy supplier, a network or an insurer (`Monzo`, `British Gas`)."""
    return " ".join(name.casefold().split()) in _PROVIDERS


def could_be_home(name: str) -> bool:
    """Whether someone could live in the named thing: no app, supplier, weekday, month or department,
    nor a numbered thing ("Room 204", "Phase 2", "Sprint 14")."""
    first = name.split(None, 1)[0].casefold() if name.strip() else ""
    return (
        not is_known_tool(name)
        and not is_provider(name)
        and _no_day_or_team(name)
        and not any(c.isdigit() for c in name)
        and first not in _GROUP_WORDS
    )


_KIN_OR_TITLE = _word_set(
    "mum mom dad mother father sister brother wife husband grandma grandpa granny nana son daughter baby aunt"
    " uncle dr doctor mr mrs ms nurse"
)
"""First words of a name that make it a family member or a titled person, who runs no software."""


def no_kin(name: str) -> bool:
    """Whether the name is no family word or title ("Dad", "Grandma Ruth", "Dr. Shah")."""
    words = name.casefold().replace(".", " ").split()
    return not words or words[0] not in _KIN_OR_TITLE


def _an_employer(name: str) -> bool:
    """Whether someone could be employed by the named: no family member, titled person or house
    number ("works for Mum", "working at Grandma's", "worked at Number 14")."""
    bare = re.sub(r"['’]s$", "", name.strip())
    return no_kin(bare) and not _HOUSE_NUMBER.match(bare) and not _a_team_said(bare)


def _a_team(name: str) -> bool:
    """Whether a name is a team's, which one joins inside an employer ("joined the Payments team", "the
    Red Team", "the Platform squad"; not "Geek Squad", "the Writers Guild": employers)."""
    last = name.rsplit(None, 1)[-1]
    return last.casefold() == "team" or last == "squad"


def _a_team_said(name: str) -> bool:
    """Whether a name ends in a team's word, written as a word ("the Payments team", "the Platform
    squad"), not as its name's ("Geek Squad", "Writers Guild", "Chapter")."""
    return name.rsplit(None, 1)[-1] in _LOWER_TEAM_WORDS


_LOWER_TEAM_WORDS = frozenset({"team", "squad", "guild", "chapter", "tribe", "crew", "pod"})


_HOUSE_NUMBER = re.compile(r"(?i:number|no\.?)[\x20\t]+\d")


def _both(first: Callable[[str], bool], second: Callable[[str], bool]) -> Callable[[str], bool]:
    """A test that both tests pass."""
    return lambda name: first(name) and second(name)


_NOT_A_SPOUSE = _word_set(
    """
    french german spanish italian american british english irish scottish welsh canadian australian indian
    chinese japanese korean dutch polish ukrainian russian swedish norwegian danish finnish greek turkish
    brazilian mexican portuguese argentinian catholic jewish muslim hindu christian buddhist pregnant not
    kiwi aussie scouse latina latino black white asian mormon vegan vegetarian deaf blind sick ok okay aries
    taurus gemini cancer virgo libra scorpio sagittarius capricorn aquarius pisces tory labour gen
    """
)
"""What "my wife is …" says she is rather than who: a nationality, a faith, a sign, a state."""


def _could_be_a_spouse(name: str) -> bool:
    """Whether a name after "Tom's wife is" may be hers: a link, or one or two capitalized words with no
    role, nationality nor faith, nothing hyphenated or in capitals ("is French", "is Head of Product",
    "is NOT happy", "Netflix-binged")."""
    if PLACEHOLDER_RE.fullmatch(name):
        return True
    words = name.split()
    return (
        0 < len(words) <= 2
        and words[0].casefold() not in _NOT_A_SPOUSE
        and _no_role(name)
        and not any("-" in word or (word.isupper() and len(word) > 1) for word in words)
        and not any(word.casefold() in _ROLE_PARTS for word in words)
    )


_ROLE_PARTS = _word_set("head lead chief manager director engineer team product officer president vp")


def _a_person_s_name(name: str) -> bool:
    """Whether a name may be a person's, not a firm's ("Kirkland & Ellis", "Acme LLP", "KPMG")."""
    words = name.split()
    return (
        _could_be_a_spouse(name)
        and "&" not in name
        and (not words or words[-1].casefold() not in _FIRM_WORDS)
    )


def _a_relative_s_name(name: str) -> bool:
    """Whether a label's value names a relative ("Sister: [[Rita]]", "Kids: Oscar and Lily"), not says
    something of them ("Kids: Two boys", "Brother: Older, in Munich", "Son: Works at Google")."""
    if PLACEHOLDER_RE.fullmatch(name):
        return True
    words = name.split()
    return (
        0 < len(words) <= 3
        and all(word[:1].isupper() and len(word) > 1 for word in words)
        and not any(word.casefold() in _NOT_A_RELATIVE for word in words)
        and no_kin(name)
    )


_NOT_A_RELATIVE = _word_set(
    "one two three four five six none n/a na yes no older younger elder eldest youngest big little twin twins"
    " step half works worked lives lived married single deceased passed boys girls boy girl kids baby unknown"
)
_FIRM_WORDS = _word_set("llp llc ltd inc plc gmbh co corp group partners associates consulting")


def _a_school(name: str) -> bool:
    """Whether the name says a school's: a university, a college, … or an acronym (`MIT`, `UCL`)."""
    words = name.split()
    return bool(words) and (
        not _SCHOOL_WORDS.isdisjoint(word.casefold() for word in words)
        or (len(words) == 1 and len(name) > 1 and name.isupper())
    )


def _could_be_a_school(name: str) -> bool:
    """Whether the name could be a school's: one, or a name of capitalized words with no number (`Leeds`;
    not `Couch to 5K`)."""
    return _a_school(name) or (
        not any(c.isdigit() for c in name)
        and all(word[:1].isupper() or word == "of" for word in name.split())
    )


_SCHOOL_WORDS = _word_set(
    "university uni college school academy institute polytechnic conservatoire conservatory seminary"
    " lycée gymnasium sixth-form"
)


def _a_service(name: str) -> bool:
    """Whether the name is of software or a service one subscribes to, known as such (`Netflix`, `EE`)."""
    return is_known_tool(name) or is_provider(name)


_NOT_PITCHED = (
    r"(?![\t\x20]+(?:on\b|to[\t\x20]+(?:the[\t\x20]+)?(?:board|team|leadership|management|execs?|exec[\t\x20]+team"
    r"|investors|stakeholders|clients?|room|customers?)\b))"
)
"""After what was sold, no one won over to it: "sold Marcus on the rewrite", "sold Atlas to the board"."""
_SUBSCRIPTION = r"(?:subscription|account|plan|contract|membership)(?![\w'’-])"


def _no_tool(name: str) -> bool:
    """Whether the name is of no well-known software: "I left Twitter and joined Mastodon" is no job."""
    return not is_known_tool(name)


def _an_employer_quit(name: str) -> bool:
    """Whether a name quit is an employer's: no app, and no gym or club one belongs to ("I quit PureGym",
    "Lena quit Slimming World", "Mia quit Brownies")."""
    return _no_tool(name) and no_membership(name)


def no_membership(name: str) -> bool:
    """Whether a name quit is no gym, club, class or team one belongs to ("I quit PureGym", "Lena quit
    Slimming World", "Mia quit Brownies")."""
    folded = name.casefold()
    return "gym" not in folded and _MEMBERSHIPS.isdisjoint(folded.split())


def no_childs_club(name: str) -> bool:
    """Whether a name left is no child's club or school body, nor a league one plays in ("Mia resigned
    from the School Council", "Jess retired from Bristol Netball League"; not "Mum retired from Leeds City
    Council", "Tess resigned from the BBC Symphony Orchestra": employers)."""
    words = name.casefold().split()
    return (
        _CHILDRENS_CLUBS.isdisjoint(words)
        and words[-1:] != ["league"]
        and not any(f"{a} {b}" in _SCHOOL_BODIES for a, b in itertools.pairwise(words))
    )


_CHILDRENS_CLUBS = _word_set("brownies guides scouts cubs beavers rainbows tots")
_SCHOOL_BODIES = frozenset({"school council", "student council", "student union", "school committee"})
_MEMBERSHIPS = _word_set(
    "club fitness yoga pilates crossfit leisure harriers runners society choir world watchers parkrun class"
    " classes league bootcamp committee team band brownies guides scouts cubs beavers rainbows tots netball"
    " football rugby hockey swimming karate judo gymnastics"
)
"""Words of the names of what one joins as a member: a gym, a club, a class, a team, "Slimming World",
"Brownies", "Tumble Tots"."""


def _no_day_or_team(name: str) -> bool:
    """Whether the name is no weekday, month or department ("We switched to Tuesdays" uses nothing)."""
    folded = name.casefold()
    return folded not in _CALENDAR_OR_TEAM and folded.removesuffix("s") not in _CALENDAR_OR_TEAM


_KIN: tuple[tuple[str, str, str, str, str], ...] = (
    # (words, the word ending its phrase, the word before a name, someone's predicate, the writer's)
    (_SIBLING_WORDS, _SIBLING, _SIBLING_BEFORE_NAME, "sibling_of", "sibling_of"),
    (_PARENT_WORDS, _PARENT, _PARENT_BEFORE_NAME, "parent_of", "child_of"),
    (_CHILD_WORDS, _CHILD, _CHILD_BEFORE_NAME, "child_of", "parent_of"),
)
"""Each kind of family: "Ana is my mother" makes the writer her child."""


def _family_patterns() -> list[VerbPattern]:
    """The family table's patterns: "Tom is Ana's brother", "Ana is my sister", "my brother Luis"."""

    def family(template: str, predicate: str, words: str, writer: bool) -> VerbPattern:
        label = predicate.replace("_", " ")
        return _pattern(template, predicate, label, False, "person", "person", keywords=words, writer=writer)

    return [
        *(family(rf"{{S}} is {{O}}['’]s {kin}", theirs, words, False) for words, kin, _, theirs, _ in _KIN),
        *(family(rf"{{O}} is my {kin}", mine, words, True) for words, kin, _, _, mine in _KIN),
        *(family(rf"(?i:my|our) {before} {{O}}", mine, words, True) for words, _, before, _, mine in _KIN),
        # Someone's, named by the way: "Priya's brother Raj came climbing", "Ben's daughter Maya".
        # Not "Instagram's parent Meta": a company's.
        *(
            family(rf"{{S}}['’]s (?!parents?\b){before} {{O}}", mine, words, False)
            for words, _, before, _, mine in _KIN
        ),
    ]


VERB_PATTERNS: tuple[VerbPattern, ...] = (
    # "The NUC now runs Jellyfin instead of Plex": the old one ends, a service too (before the plain "runs").
    _pattern(rf"{{S}} {_ADVERB}runs {{O}} instead of {{A}}", "runs", "runs", True, None, "software",
             keywords="runs"),
    # Past tense too: "ran X from 12 March" says what it ran from that date on.
    _pattern(rf"{{S}} {_ADVERB}(?:runs|ran|is running|was running|has been running|is now running"
             r"|is still running)(?! on) {O}" + _NOT_A_BUSINESS_AHEAD,
             "runs", "runs", True, None, "software", keywords="runs ran running"),
    _pattern(r"{S} (?:runs|is running) on {O}", "runs_on", "runs on", False, "software", None,
             keywords="runs running"),
    # Where software lives: "Atlas is deployed on AWS", "Atlas is hosted on Heroku".
    _pattern(r"{S} (?:is|are) (?:now )?(?:deployed|hosted) (?:on|to|at|in) {O}", "runs_on", "runs on", False,
             "software", None, keywords="deployed hosted"),
    # What it keeps its data in, talks with, is written in: "Atlas stores its data in Postgres",
    # "Atlas integrates with Slack", "Atlas is written in Go" (and "the book is written in French").
    _pattern(r"{S} (?:stores|keeps) (?:its|their|all) (?:[a-z]+ )?(?:data|state|files|logs|events|metadata)"
             r" in {O}", "uses", "uses", False, "software", None, keywords="stores keeps"),
    _pattern(r"{S} (?:now )?integrates with {O}", "integrates_with", "integrates with", False, "software",
             None, keywords="integrates"),
    _pattern(r"{S} (?:is|was|are|were) (?:mostly |entirely |all )?written in {O}", "written_in", "written in",
             False, keywords="written"),
    # A system moved to another: "Atlas was migrated to Postgres", a switch as "switched from A to B" is
    # (not "Ana was switched to Team Blue").
    _pattern(r"{S} (?:was|has been|got) migrated (?:over )?to {O}", "runs", "runs", True, None, "software",
             keywords="migrated"),
    _pattern(r"(?i:switched|migrated|moved|changed|converted) {T} (?:back |over )?from {A} to "
             + _NO_ARTICLE + "{O}", "runs", "runs", True, None, "software", keywords="from", software=True),
    # Moved to a machine, named with its article: "Moved Plex from the NUC to the Synology" runs it
    # there (not "Plex runs Synology"); not to "a VM", which names no machine of its own.
    _pattern(r"(?i:migrated|moved) {S} (?:over |back )?(?:from " + _ARTICLE + "{A} )?to " + _ARTICLE
             + _NOT_A_BOX + "{O}", "runs_on", "runs on", False, "software", None, keywords="migrated moved",
             software=True),
    # A switch leaves one current value: it asserts the functional `runs`, so pass 2 supersedes.
    # Not "Anna moved from Berlin to Hamburg": a person moves house, a project migrates.
    # To a firmware or system, what a machine runs; to anything else, what a person or a project uses
    # (below, after the writer's own: "Ana switched from VS Code to Neovim").
    _pattern(r"{S} (?:switched|migrated) from {A} to {O}", "runs", "runs", True, None, "software",
             keywords="from", object_test=lambda name: is_system(name) or is_service(name)),
    # "Uninstalled Dropbox from FIN-LT-022": no more (removed or deleted, of software only).
    # Not "from Ana's laptop" (hers is the machine), nor "from the Okta dashboard" (a part of a thing).
    _pattern(r"(?i:uninstalled) {O} from {S}(?!['’]s\b)" + _NOT_A_MODIFIER, "runs", "runs", True, None,
             "software", keywords="uninstalled", ends=True),
    # "Replaced Plex with Jellyfin on the NUC": the old one ends, a service too.
    _pattern(r"(?i:replaced) {A} with {O} on {S}", "runs", "runs", True, None, "software",
             keywords="replaced"),
    _pattern(r"(?i:switched|migrated) {S} (?:over |back )?to " + _NO_ARTICLE + "{O}", "runs", "runs", True,
             None,
             "software", keywords="switched migrated", software=True),
    _pattern(r"(?i:installed|flashed) {O} on {S}", "runs", "runs", True, None, "software",
             keywords="installed flashed"),
    _pattern(r"(?i:updated|upgraded|flashed) {S} (?:to|with) {O}", "runs", "runs", True, None, "software",
             keywords="updated upgraded flashed", software=True),
    # Before the plain "uses": "Atlas now uses Postgres instead of MySQL" ends its use of MySQL.
    _pattern(rf"{{S}} {_ADVERB}uses {{O}} instead of {{A}}", "uses", "uses", False, keywords="instead"),
    _pattern(rf"{{S}} {_ADVERB}uses {{O}}", "uses", "uses", False, keywords="uses"),
    _pattern(r"{S} no longer uses {O}", "uses", "uses", False, keywords="longer", ends=True),
    # "Atlas started using Sentry", "Ana stopped using Notion": from that day, or no more from it.
    _pattern(r"{S} (?:just |finally )?(?:started|began) using {O}", "uses", "uses", False,
             keywords="started began"),
    _pattern(r"{S} (?:just |finally )?(?:stopped|quit) using {O}" + _USE_ENDS, "uses", "uses", False,
             keywords="stopped quit", ends=True),
    _pattern(rf"{{S}} (?:works|worked|is working|has worked|has been working) {_HOW_WORKED}(?:at|for) {{O}}"
             + _NOT_A_SESSION, "works_for", "works for", True, "person", "organization",
             keywords="works worked working"),
    _pattern(rf"{{S}} (?:works|worked|is working|has worked|has been working) {_HOW_WORKED}(?:at|in|from) the"
             rf" {{N}} {_any_of(_SITES)} of {{O}}", "works_for", "works for", True, "person", "organization",
             keywords="works worked working"),
    _pattern(r"{S} (?:just )?(?:started|starts|began|begins) working (?:at|for) {O}", "works_for",
             "works for", True, "person", "organization", keywords="working"),
    # A job named: "Ana is a senior designer at Figma", "Tom is the new CTO of Acme" (only a chief is
    # "of" a company: "the director of Inception" may be a film's), "Ana joined Acme as a designer".
    _pattern(rf"{{S}} is (?:now )?{_A_ROLE} (?:at|for) {{O}}", "works_for", "works for", True, "person",
             "organization", keywords=_ROLE_WORDS),
    _pattern(rf"{{S}} is (?:now )?(?:the|our|their) (?:new )?(?:{_CHIEF}|{_A_DIRECTOR}) of {{O}}",
             "works_for", "works for", True, "person", "organization", keywords=_ROLE_WORDS),
    _pattern(rf"{{S}} works as {_A_ROLE_OR_ROLE} (?:at|for) {{O}}", "works_for", "works for", True, "person",
             "organization", keywords="works"),
    _pattern(rf"{{S}} (?:just )?(?:joined|joins|started at) {{O}}{_WHEN_JOINED} as {_A_ROLE_OR_ROLE}",
             "works_for", "works for", True, "person", "organization", keywords=_ROLE_WORDS),
    # Several named at once: "Ana and Sam work at Acme", "Tom, Ana and Sam live in Porto".
    _pattern(r"{SS} (?:work|worked|are working|have worked) (?:at|for) {O}", "works_for", "works for", True,
             "person", "organization", keywords="work worked working"),
    _pattern(r"{SS} (?:live|are living|have lived) in {O}", "lives_in", "lives in", True, "person", "place",
             keywords="live living lived"),
    _pattern(rf"{{SS}} {_ADVERB}use {{O}}", "uses", "uses", False, keywords="use"),
    _pattern(r"{S} is employed (?:at|by) {O}", "works_for", "works for", True, "person", "organization",
             keywords="employed"),
    _pattern(r"{S} (?:lives|is living|has lived) in {O}", "lives_in", "lives in", True, "person", "place",
             keywords="lives living lived"),
    _pattern(r"{S} (?:is|are) (?:located|based|headquartered) in {O}", "located_in", "located in", True,
             None, "place", keywords="located based headquartered"),
    _pattern(r"{S} (?:is|are) (?:a |an )?part of {O}", "part_of", "part of", False, keywords="part"),
    # Not "Biscuit belongs to Mum really": a family member owns, and has no parts.
    _pattern(r"{S} belongs to {O}", "part_of", "part of", False, keywords="belongs", object_test=no_kin),
    _pattern(r"{S} (?:is|are) (?:a )?members? of {O}", "member_of", "member of", False, None, "organization",
             keywords="member members"),
    # A team within an employer: "Tom is on the Payments team", "Ana joined the Platform squad" (no
    # new employer: "works_for" stays where it was).
    _pattern(r"{S} (?:is|['’]s|are|['’]re) (?:now |also |still )?on {O}" + NO_NOUN_AFTER, "member_of",
             "member of", False, None, "organization", keywords="on", object_test=_a_team),
    _pattern(r"{S} (?:has |have |just |has just |have just )?joined {O}" + NO_NOUN_AFTER, "member_of",
             "member of", False, None, "organization", keywords="joined", object_test=_a_team),
    # A seat on a board: "Tom is on the board of Globex", "Ana joined the board of Acme".
    _pattern(r"{S} (?:is|sits|has been) on the board of {O}", "member_of", "member of", False, "person",
             "organization", keywords="board"),
    _pattern(r"{S} (?:just )?joined the board of {O}", "member_of", "member of", False, "person",
             "organization", keywords="board"),
    # Not "Ana requires Tom's approval": what is required is Tom's something.
    _pattern(r"{S} requires {O}(?!['’]s(?![\w'’-]))", "depends_on", "depends on", False, keywords="requires"),
    _pattern(r"{S} (?:depends|relies) on {O}", "depends_on", "depends on", False,
             keywords="depends relies"),
    _pattern(r"{S} (?:was |is |were |are )?(?:created|written|developed|designed|maintained) by {O}",
             "created_by", "created by", False, None, "person", keywords="by"),
    _pattern(r"{S} (?:founded|co-founded|cofounded) {O}", "founded", "founded", False, "person",
             "organization", keywords="founded cofounded"),
    _pattern(r"{S} is (?:the|a|an|one of the) (?:co-?)?founders? of {O}", "founded", "founded", False,
             "person", "organization", keywords="founder cofounder founders cofounders"),
    _pattern(r"{O} was (?:co-)?founded by {S}", "founded", "founded", False, "person", "organization",
             keywords="founded"),
    _pattern(r"{S} is (?:now )?(?:the|our) (?:tech |technical |team |project )?lead (?:for|of|on) {O}",
             "leads", "leads", False, "person", None, keywords="lead"),
    _pattern(r"{S} (?:leads|manages|heads) {O}" + _NOT_A_MODIFIER, "leads", "leads", False, "person", None,
             keywords="leads manages heads"),
    # "Priya got promoted to tech lead of Atlas": leads it from then.
    _pattern(r"{S} (?:got|was|has been|just got) promoted to (?:the )?(?:tech |technical |team "
             r"|project )?lead (?:for|of|on) {O}", "leads", "leads", False, "person", None,
             keywords="promoted"),
    _pattern(rf"{{S}} reports to {_ROLE_BEFORE_NAME}{{O}}", "reports_to", "reports to", True, "person",
             "person", keywords="reports", object_test=_no_role),
    # The writer's reports: "Ravi reports to me", "Ravi and Lena report to me", "Ravi is my direct report".
    _pattern(r"{S} (?:now |directly )?reports (?:directly )?to {ME}(?![\x20\t]+that\b)", "reports_to",
             "reports to", True, "person", "person", keywords="reports"),
    _pattern(r"{SS} (?:now |directly )?report (?:directly )?to {ME}", "reports_to", "reports to", True,
             "person", "person", keywords="report"),
    _pattern(r"{S} is (?:now )?(?:one of )?{ME}y (?:new )?direct report", "reports_to", "reports to", True,
             "person", "person", keywords="report reports"),
    # "Ana married Tom last week", "I married Dan on Saturday!" (not "married into the family").
    _pattern(r"{S} (?:just )?married {O}" + _NOT_A_COUPLE, "married_to", "married to", True, "person",
             "person", keywords="married", needs=_NO_OFFICIANT),
    _pattern(r"{I} (?:just )?married {O}" + _NOT_A_COUPLE, "married_to", "married to", True, "person",
             "person", keywords="married"),
    # "Chris got promoted to senior analyst at Lloyds".
    _pattern(rf"{{S}} (?:got|was|has been|just got) promoted to {_A_ROLE_OR_ROLE} (?:at|with) {{O}}",
             "works_for", "works for", True, "person", "organization", keywords="promoted"),
    _pattern(rf"{{I}} (?:got|was|have been|just got) promoted to {_A_ROLE_OR_ROLE} (?:at|with) {{O}}",
             "works_for", "works for", True, "person", "organization", keywords="promoted"),
    _pattern(r"{S} (?:is|got) married to {O}", "married_to", "married to", True, "person", "person",
             keywords="married"),
    _pattern(r"{S} (?:divorced|got divorced from|is divorced from) {O}", "married_to", "married to", True,
             "person", "person", keywords="divorced", ends=True),
    # Not "I divorced Spotify", "I've divorced Twitter for good": an app is no spouse.
    _pattern(r"{I}(?: am|['’]m| have|['’]ve)? (?:just |finally |officially )?(?:divorced|got divorced from"
             r"|been divorced from|divorced from) {O}", "married_to", "married to", True, "person", "person",
             keywords="divorced", ends=True, object_test=_no_tool),
    # "My divorce from Olga was finalised today", once it is (not "… could take two years", nor "Ana's
    # divorce from Tom": hers).
    _pattern(r"(?i:my) divorce (?:from|with) {O} (?:was |is |has been |got |finally )?(?:finali[sz]ed|final"
             r"|through|official|granted|came through)", "married_to", "married to", True, "person", "person",
             keywords="divorce", ends=True, writer=True, object_test=_no_tool),
    # Whose manager someone is: "Omar is Ana's manager" says Ana reports to Omar.
    _pattern(r"{O} is {S}['’]s (?:new )?(?:manager|boss|line manager)(?![\w'’-])", "reports_to", "reports to",
             True, "person", "person", keywords="manager boss"),
    # Not "Grace owns the Postgres runbooks": a name before a thing is no thing owned.
    _pattern(r"{S} owns {O}" + _NOT_A_MODIFIER, "owns", "owns", False, keywords="owns"),
    # Not "Ana is the owner of the Kafka cluster": an owned Kafka cluster, no Kafka ("the Atlas project"
    # is Atlas).
    _pattern(r"{S} is (?:now )?the owner of {O}" + _NOT_A_MODIFIER_BUT_A_BUSINESS, "owns", "owns", False,
             keywords="owner"),
    # A company taking over another: "Acme acquired Initech in 2023", "Initech was acquired by Acme".
    _pattern(r"{S} (?:acquired|has acquired|acquires) {O}", "owns", "owns", False, None, "organization",
             keywords="acquired acquires"),
    _pattern(r"{O} (?:was|has been|is being|got) (?:acquired|bought) by {S}", "owns", "owns", False, None,
             "organization", keywords="acquired bought"),
    _pattern(r"{S} is (?:a|an|the) (?:wholly[- ]owned )?subsidiary of {O}", "part_of", "part of", False, None,
             "organization", keywords="subsidiary"),
    _pattern(r"{S} (?:is|was) (?:built|based) (?:on|with|on top of) {O}", "uses", "uses", False, None,
             "software", keywords="built based"),
    # Where someone studies (not "studies the report at Acme": a subject of study is a word or two,
    # with no determiner), or studied until they graduated ("studied physics at MIT" says not when).
    _pattern(rf"{{S}} (?:studies|is studying) {_STUDIED}at {{O}}", "studied_at", "studied at", False,
             "person", "organization", keywords="studies studying"),
    _pattern(r"{S} graduated from {O}", "studied_at", "studied at", False, "person", "organization",
             keywords="graduated", ends=True),
    # Studied once: when, the words do not say ("Priya studied at Bristol" did not begin that day).
    # What was studied names a school ("studied physics at MIT"); a place alone only when a school's
    # name says so ("studied at the University of Bristol"; not "studied at Costa", "at the British
    # Library all afternoon").
    _pattern(rf"{{S}} studied {_STUDIED_SOMETHING}at {{O}}" + _NOT_A_SESSION, "studied_at", "studied at",
             False, "person", "organization", keywords="studied", undated=True),
    _pattern(r"{S} studied at {O}" + _NOT_A_SESSION, "studied_at", "studied at", False, "person",
             "organization", keywords="studied", undated=True, object_test=_a_school),
    _pattern(rf"{{I}} studied {_STUDIED_SOMETHING}at {{O}}" + _NOT_A_SESSION, "studied_at", "studied at",
             False, "person", "organization", keywords="studied", undated=True),
    _pattern(r"{I} studied at {O}" + _NOT_A_SESSION, "studied_at", "studied at", False, "person",
             "organization", keywords="studied", undated=True, object_test=_a_school),
    # "I'm a student at …", "Wei is a PhD student at …", "a second-year MSc student at …".
    _pattern(r"{I}(?: am|['’]m) (?:now |still )?(?:a|an) (?:[A-Za-z][\w-]* ){0,2}student at {O}",
             "studied_at", "studied at", False, "person", "organization", keywords="student"),
    _pattern(r"{S} is (?:now |still )?(?:a|an) (?:[A-Za-z][\w-]* ){0,2}student at {O}", "studied_at",
             "studied at", False, "person", "organization", keywords="student"),
    # Not "I graduated from Couch to 5K": a programme, not a school.
    _pattern(r"{I} graduated from {O}(?![\w'’-])(?![\t\x20]+to\b)", "studied_at", "studied at", False,
             "person", "organization", keywords="graduated", ends=True, object_test=_could_be_a_school),
    _pattern(rf"{{I}}(?: am|['’]m)? (?:study|studying) {_STUDIED_SOMETHING}at {{O}}" + _NOT_A_SESSION,
             "studied_at", "studied at", False, "person", "organization", keywords="study studying"),
    _pattern(r"{I}(?: am|['’]m)? (?:study|studying) at {O}" + _NOT_A_SESSION, "studied_at", "studied at",
             False, "person", "organization", keywords="study studying", object_test=_a_school),
    _pattern(r"{I}(?: am|['’]m) (?:now |also )?(?:a )?members? of {O}", "member_of", "member of", False,
             "person", "organization", keywords="member members"),
    # Family, said of someone ("Tom is Ana's brother"), of the writer ("Ana is my sister") or named by
    # the way ("My brother [[Luis]] drove us"); then the writer's spouse and manager ("Laila is my
    # wife", "Marcus is my manager", "My new manager is Hannah").
    *_family_patterns(),
    # Who someone's spouse is says a marriage holds, not that it began that day.
    _pattern(rf"{{O}} is my {_SPOUSE}", "married_to", "married to", True, "person", "person",
             keywords=_SPOUSE_WORDS, writer=True, undated=True),
    _pattern(rf"{{S}} is {{O}}['’]s {_SPOUSE}(?![\w'’-])", "married_to", "married to", True, "person",
             "person", keywords=_SPOUSE_WORDS, undated=True),
    # "I got married to Lena today!", "Lena and I got married".
    _pattern(r"{I} (?:just |finally )?got married to {O}", "married_to", "married to", True, "person",
             "person", keywords="married"),
    _pattern(r"{O} and I (?:just |finally )?got married(?![\w'’-])(?! to\b)", "married_to", "married to",
             True, "person", "person", keywords="married", writer=True),
    # The writer's: "My wife is Olga", "my husband Tom".
    _pattern(r"(?i:my) (?:wife|husband|spouse) (?:is )?{O}", "married_to", "married to", True, "person",
             "person", keywords="wife husband spouse", writer=True, object_test=_could_be_a_spouse,
             undated=True),
    # Someone's: "Anna and Erik got married last summer", "Ben's wife is Grace", "Anna's husband Erik".
    _pattern(r"{S} and {O} (?:just |finally )?got married(?![\w'’-])(?! to\b)", "married_to", "married to",
             True, "person", "person", keywords="married"),
    _pattern(r"{S}['’]s (?:wife|husband|spouse) (?:is )?{O}", "married_to", "married to", True, "person",
             "person", keywords="wife husband spouse", object_test=_could_be_a_spouse, undated=True),
    # A couple not (or not yet) married: "Lena is my partner", "my boyfriend Tom", "Sofia's partner is
    # [[Tiago]]", "Tiago is Sofia's partner".
    _pattern(rf"{{O}} is my {_PARTNER}", "partner_of", "partner of", True, "person", "person",
             keywords=_PARTNER_WORDS, writer=True, undated=True),
    _pattern(rf"(?i:my) {_LOVER} (?:is )?{{O}}", "partner_of", "partner of", True, "person", "person",
             keywords=_LOVER_WORDS, writer=True, object_test=_could_be_a_spouse, undated=True),
    _pattern(r"{S} is the partner of {O}", "partner_of", "partner of", True, "person", "person",
             keywords="partner", object_test=_a_person_s_name, undated=True),
    # What a person's note's labels say ("Sister: [[Rita]]", "Kids: [[Inês]], [[Duarte]]"), as read.
    _pattern(r"{S} is the sibling of {O}", "sibling_of", "sibling of", False, "person", "person",
             keywords="sibling", object_test=_a_relative_s_name, undated=True),
    _pattern(r"{S} is the parent of {O}", "parent_of", "parent of", False, "person", "person",
             keywords="parent", object_test=_a_relative_s_name, undated=True),
    _pattern(rf"{{S}} is {{O}}['’]s {_PARTNER}", "partner_of", "partner of", True, "person", "person",
             keywords=_PARTNER_WORDS, undated=True),
    _pattern(rf"{{S}}['’]s {_LOVER} (?:is )?{{O}}", "partner_of", "partner of", True, "person",
             "person", keywords=_LOVER_WORDS, object_test=_could_be_a_spouse, undated=True),
    # "My partner is Dana.": a person named, and nothing after (not "Microsoft's partner is OpenAI").
    _pattern(r"(?i:my) partner is {O}(?=[\t\x20]*(?:[.!;]|$))", "partner_of", "partner of", True, "person",
             "person", keywords="partner", writer=True, object_test=_a_person_s_name, undated=True),
    _pattern(rf"{{O}} is (?:now )?my {_MANAGER}", "reports_to", "reports to", True, "person", "person",
             keywords=_MANAGER_WORDS, writer=True),
    _pattern(rf"(?i:my) {_MANAGER} is (?:now )?{{O}}", "reports_to", "reports to", True, "person", "person",
             keywords=_MANAGER_WORDS, writer=True),
    # Not "Tom bought Anna flowers": a name followed by what was bought is who it was bought for.
    # Nor "Lena bought IKEA wardrobes", "Mum bought Priya school shoes": a name before a thing bought.
    _pattern(r"{S} (?:bought|has bought) {O}" + _BOUGHT_FOR + _NOT_A_MODIFIER, "owns", "owns", False,
             keywords="bought"),
    # Not "Anna replaced Notion with Obsidian": that is her switch of tools, not Anna in Notion's place
    # (but "Kim replaced Tom with ten minutes left" is Kim in Tom's); nor "Dave replaced the Baxi with a
    # Worcester Bosch", "Mark replaced the Hotpoint hob": a thing swapped out.
    _pattern(r"{S} (?:replaces|replaced|supersedes|superseded) {O}" + _NOT_WITH_A_NAME + _NOT_A_MODIFIER,
             "replaces", "replaces", False, keywords="replaces replaced supersedes superseded"),
    _pattern(r"{S} supports {O}", "supports", "supports", False, keywords="supports"),
    # First person: the speaker's own state, in a conversation turn or a note with an `author`.
    _pattern(rf"{{I}}(?: have| am|['’]ve|['’]m)? {_ADVERB}(?:work|worked|working) {_HOW_WORKED}(?:at|for)"
             r" {O}" + _NOT_A_SESSION, "works_for", "works for", True, "person", "organization",
             keywords="work worked working"),
    _pattern(rf"{{I}} {_ADVERB}(?:just )?(?:started|got|took) (?:a |my |the )?(?:new )?job (?:at|with) {{O}}",
             "works_for", "works for", True, "person", "organization", keywords="job"),
    _pattern(r"{I}(?: have|['’]ve)? (?:just )?(?:started|began) working (?:at|for) {O}", "works_for",
             "works for", True, "person", "organization", keywords="working"),
    _pattern(rf"{{I}}(?: am|['’]m) (?:now )?{_A_ROLE} (?:at|for) {{O}}", "works_for", "works for", True,
             "person", "organization", keywords=_ROLE_WORDS),
    _pattern(rf"{{I}} (?:just )?(?:joined|started at) {{O}}{_WHEN_JOINED} as {_A_ROLE_OR_ROLE}", "works_for",
             "works for", True, "person", "organization", keywords=_ROLE_WORDS),
    # A new job named as such: someone's ("Priya started a new job at Monzo"), the writer's first day
    # at one, and their last. Not "first day at PyCon", "started at Heathrow", "joined Strava as a member".
    _pattern(rf"{{S}} (?:just |officially )?(?:started|starts) {_JOB} at {{O}}", "works_for", "works for",
             True, "person", "organization", keywords="started starts"),
    # "Ben got a job at Shopify", "Ana landed a role at Figma", "Carla was hired by Netflix" (not "hired
    # by a client": a name is needed, and "got a job at the bakery" names none).
    _pattern(rf"{{S}} (?:just |finally )?(?:got|landed|accepted|took) {_JOB} (?:at|with) {{O}}"
             rf"{_NOT_TURNED_DOWN}",
             "works_for", "works for", True, "person", "organization", keywords="got landed accepted took"),
    _pattern(rf"{{I}} {_ADVERB}(?:just |finally )?(?:landed|accepted) {_JOB} (?:at|with) {{O}}"
             rf"{_NOT_TURNED_DOWN}",
             "works_for", "works for", True, "person", "organization", keywords="landed accepted"),
    # Not "Sara was hired by Tom to paint the house": a job done for someone.
    _pattern(r"{S} (?:was|has been|got|just got) hired by {O}" + _NOT_HIRED_TO, "works_for", "works for",
             True, "person", "organization", keywords="hired"),
    _pattern(r"{I} (?:was|have been|got|just got) hired by {O}" + _NOT_HIRED_TO, "works_for", "works for",
             True, "person", "organization", keywords="hired"),
    _pattern(rf"(?i:first) day (?:at|of|in) {_JOB} at {{O}}", "works_for", "works for", True, "person",
             "organization", keywords="first", writer=True),
    _pattern(rf"(?i:last) day (?:at|of|in) {_JOB} at {{O}}", "works_for", "works for", True, "person",
             "organization", keywords="last", writer=True, ends=True),
    # "my" says whose, where a diary line leaves "I" out: "Started my new job at Stripe today."
    _pattern(r"(?i:started|starting|began) my (?:new )?(?:job|role|position) (?:at|with) {O}", "works_for",
             "works for", True, "person", "organization", keywords="started starting began", writer=True),
    _pattern(r"(?i:quit|left|leaving|quitting|lost|losing) my (?:job|role|position) (?:at|with) {O}",
             "works_for", "works for", True, "person", "organization",
             keywords="quit left leaving quitting lost losing", writer=True, ends=True),
    _pattern(r"(?i:moved) (?:in)?to (?:my|our) (?:new )?(?:flat|apartment|house|home|place) in {O}",
             "lives_in", "lives in", True, "person", "place", keywords="moved", writer=True),
    _pattern(r"{W} (?:just |finally )?moved (?:in)?to (?:my|our|the|a) (?:new )?"
             r"(?:flat|apartment|house|home|place) in {O}", "lives_in", "lives in", True, "person", "place",
             keywords="moved"),
    # Not "I lived in Paris before that": as for "Zoe lived in Paris", when it held is not said.
    # "We" live where the writer lives ("We live in Lisbon now"); "we moved to Slack" is no home.
    _pattern(rf"{{W}}(?: am|['’]m| are|['’]re)? {_ADVERB}(?:live|living) in {{O}}", "lives_in", "lives in",
             True, "person", "place", keywords="live living"),
    _pattern(rf"{{I}}(?: have|['’]ve) {_ADVERB}lived in {{O}}", "lives_in", "lives in", True, "person",
             "place", keywords="lived"),
    # Before the plain one: "I now use Neovim instead of Vim" ends the use of Vim.
    _pattern(rf"{{W}} {_ADVERB}use {{O}} instead of {{A}}{_CLAUSE_ENDS}", "uses", "uses", False, "person",
             keywords="instead"),
    _pattern(rf"{{I}} {_ADVERB}use {{O}}", "uses", "uses", False, "person", keywords="use"),
    _pattern(r"{W}(?: have|['’]ve)? (?:just |finally )?(?:started|began) using {O}", "uses", "uses", False,
             "person", keywords="started began"),
    _pattern(r"{W}(?: have|['’]ve)? (?:just |finally )?(?:stopped|quit) using {O}" + _USE_ENDS, "uses",
             "uses", False, "person", keywords="stopped quit", ends=True),
    _pattern(r"{W} no longer use {O}" + _USE_ENDS, "uses", "uses", False, "person", keywords="longer",
             ends=True),
    _pattern(r"{W} (?:do not|don['’]t) use {O},? any\s?more(?![\w'’-])", "uses", "uses", False, "person",
             keywords="anymore more", ends=True),
    # A subscription cancelled ends its use: "I cancelled Netflix" (a service known as one), "Cancelled
    # my Audible subscription", "Lena cancelled her Audible subscription" (any name, said a subscription).
    # Not "I cancelled Zoom with Priya", "… and called instead": a call cancelled.
    _pattern(r"{W}(?: have|['’]ve)? (?:just |finally )?(?:cancell?ed|unsubscribed from) {O}"
             + _NOT_A_MODIFIER + r"(?![\t\x20]+(?:with|and|for|on)\b)", "uses", "uses", False, "person",
             keywords="cancelled canceled unsubscribed", ends=True, object_test=_a_service),
    _pattern(rf"(?i:cancelled|canceled) (?:my|our) {{O}} {_SUBSCRIPTION}", "uses", "uses", False, "person",
             keywords="cancelled canceled", ends=True, writer=True),
    _pattern(rf"{{S}} (?:just |finally )?cancell?ed (?:her|his|their) {{O}} {_SUBSCRIPTION}", "uses", "uses",
             False, "person", keywords="cancelled canceled", ends=True),
    # A thing sold is no longer owned: "Lena sold the Golf to Marek", "Sold my Corolla." (not "sold
    # Tesla shares": what is named before the noun is not what was sold).
    # Not "Priya sold Marcus on the rewrite", "Tom sold Atlas to the board": won over, pitched.
    _pattern(r"{S} (?:just |finally )?sold {O}" + _NOT_A_MODIFIER + _NOT_PITCHED, "owns", "owns",
             False, keywords="sold", ends=True, object_test=no_kin),
    _pattern(r"{W}(?: have|['’]ve)? (?:just |finally )?sold (?:my|our|the) {O}" + _NOT_A_MODIFIER, "owns",
             "owns", False, "person", keywords="sold", ends=True),
    _pattern(r"(?i:sold) (?:my|our) {O}" + _NOT_A_MODIFIER, "owns", "owns", False, "person", keywords="sold",
             ends=True, writer=True),
    # Not "I moved to Obsidian from Notion": a move "from" somewhere may be a switch of tools.
    # Not "we moved to Phase 2", "we moved to Airtable": what a team moves to is seldom a home (a
    # flat in it is: "We moved into our new flat in Pankow", above).
    _pattern(rf"{{I}}(?: have|['’]ve)? {_ADVERB}(?:just )?(?:moved|relocated) (?:back )?to {{O}}{_NOT_FROM}",
             "lives_in", "lives in", True, "person", "place", keywords="moved relocated"),
    # Someone's medicines, as a carer's notes say them: "Dad is on warfarin 5mg", "Mum takes metformin".
    _pattern(rf"{{S}} (?:is|['’]s|has been|['’]s been) (?:now |still |currently |back )?on {_DRUG}", "takes",
             "takes", False, "person", "medication", keywords="on", object_test=is_medicine),
    _pattern(rf"{{S}} (?:still |now |currently )?(?:takes|is taking) {_DRUG}", "takes", "takes", False,
             "person", "medication", keywords="takes taking", object_test=is_medicine),
    _pattern(rf"{{S}} (?:has |['’]s )?(?:just |finally )?(?:started|began) (?:taking |on ){_DRUG}", "takes",
             "takes", False, "person", "medication", keywords="started began", object_test=is_medicine),
    _pattern(rf"{{S}} (?:just |finally )?(?:stopped|quit) taking {_DRUG}", "takes", "takes", False, "person",
             "medication", keywords="stopped quit", ends=True, object_test=is_medicine),
    _pattern(rf"{{S}} (?:is|['’]s) (?:no longer on|no longer taking|now off|off) {_DRUG}", "takes", "takes",
             False, "person", "medication", keywords="longer off", ends=True, object_test=is_medicine),
    # A medicine switched for another: "Mum switched from warfarin to apixaban", "Dad stopped taking
    # warfarin, switched to apixaban" (the old one ends that day).
    _pattern(rf"{{S}} (?:just |has |has just )?(?:switched|changed|moved) from {_OLD_DRUG} to {_DRUG}",
             "takes", "takes", False, "person", "medication", keywords="switched changed moved",
             object_test=is_medicine),
    _pattern(rf"{{S}} (?:just |has |has just )?(?:stopped|quit) taking {_OLD_DRUG},? (?:and )?"
             rf"(?:switched|changed|moved) to {_DRUG}", "takes", "takes", False, "person", "medication",
             keywords="switched changed moved", object_test=is_medicine),
    _pattern(rf"{{I}}(?: have|['’]ve)? (?:just )?(?:switched|changed|moved) from {_OLD_DRUG} to {_DRUG}",
             "takes", "takes", False, "person", "medication", keywords="switched changed moved",
             object_test=is_medicine),
    # The writer's medicines: "I started taking sertraline 50mg", "I'm on lisinopril", "I take
    # metformin 500mg twice a day"; "I stopped taking sertraline", "I'm off citalopram now" end them.
    _pattern(rf"{{I}}(?: have|['’]ve)? (?:just |finally )?(?:started|began|restarted) (?:taking |on ){_DRUG}",
             "takes", "takes", False, "person", "medication", keywords="started began restarted",
             object_test=is_medicine),
    _pattern(rf"{{I}}(?: am|['’]m) (?:now |still |currently |back )?on {_DRUG}", "takes", "takes", False,
             "person", "medication", keywords="on", object_test=is_medicine),
    _pattern(rf"{{I}}(?: (?:still |now |currently )?take| am (?:still |now |currently )?taking"
             rf"|['’]m (?:still |now |currently )?taking|(?: have|['’]ve) been (?:on|taking)) {_DRUG}",
             "takes", "takes", False, "person", "medication", keywords="take taking been",
             object_test=is_medicine),
    _pattern(rf"{{I}}(?: am|['’]m) no longer (?:on|taking) {_DRUG}", "takes", "takes", False, "person",
             "medication", keywords="longer", ends=True, object_test=is_medicine),
    _pattern(rf"{{I}}(?: have|['’]ve)? (?:just |finally )?(?:stopped|quit) taking {_DRUG}", "takes", "takes",
             False, "person", "medication", keywords="stopped quit", ends=True, object_test=is_medicine),
    _pattern(rf"{{I}}(?: am|['’]m| have|['’]ve)? (?:now |finally )?(?:off|come off|came off) {_DRUG}",
             "takes", "takes", False, "person", "medication", keywords="off", ends=True,
             object_test=is_medicine),
    # A switch of the writer's tools: the new one used from that day, the old one no more.
    _pattern(r"{W}(?: have|['’]ve)? (?:just |finally )?(?:switched|migrated) (?:back )?from {A} "
             r"(?:back )?to {O}",
             "uses", "uses", False, "person", keywords="switched migrated"),
    # A project moved from one well-known tool to another: "Atlas moved from MySQL to Postgres" (not
    # "Tom moved from Leeds to York": a home).
    _pattern(r"{S} (?:moved|migrated) (?:over )?from {A} to {O}", "uses", "uses", False, None, "software",
             keywords="moved", object_test=lambda name: is_known_tool(name) and not is_system(name)),
    # Someone's or something's, to anything but a system: "Atlas switched from MySQL to Postgres".
    # Not a family's or a child's switch of nursery, club or medicine ("Leo switched from Little Acorns to
    # Busy Bees", "Dad switched from Warfarin to Apixaban"): only where a name may be software's.
    _pattern(r"{S} (?:switched|migrated) from {A} (?:back )?to {O}", "uses", "uses", False, None, "software",
             keywords="from", object_test=lambda name: not is_system(name) and not is_service(name),
             software=True),
    # A diary's switch with no subject, the writer's: "Switched from Scrivener to Obsidian for drafting"
    # (only opening its sentence: not "Ana switched from …"; to well-known software only).
    _pattern(r"(?i:switched|migrated)(?<![\w\ue001,][\x20\t][A-Za-z]{8})(?: over| back)? from {A} "
             r"(?:back )?to {O}",
             "uses",
             "uses", False, "person", keywords="switched migrated", writer=True, object_test=is_known_tool),
    # A switch said by its new tool alone, well-known software: "I switched to Obsidian", "We moved over
    # to Linear" (not "I switched to Spanish", "to Tom's team", "to Ryanair": a language, a team, an airline).
    # "… to Obsidian from Notion" ends Notion's use.
    _pattern(r"{W}(?: have|['’]ve)? (?:just |finally |now )?switched(?: over| back)? to {O}(?: from {A})?",
             "uses",
             "uses", False, "person", keywords="switched", object_test=is_known_tool),
    _pattern(r"{W}(?: have|['’]ve)? (?:just |finally |now )?(?:moved|migrated)(?: over)? to {O}"
             r"(?: from {A})?", "uses", "uses", False, "person", keywords="moved migrated",
             object_test=is_known_tool),
    # "We moved from Jira to Linear" (not "We moved from Leeds to York": a home).
    _pattern(r"{W}(?: have|['’]ve)? (?:just |finally )?moved(?: over| back)? from {A} to {O}", "uses", "uses",
             False, "person", keywords="moved", object_test=is_known_tool),
    # A diary's start with no subject, the writer's: "Started using Linear today" (only opening its
    # sentence, as the switch above; well-known software only).
    _pattern(r"(?i:started|began)(?<![\w\ue001,][\x20\t](?i:started))(?<![\w\ue001,][\x20\t](?i:began))"
             r" using {O}", "uses", "uses", False, "person", keywords="started began", writer=True,
             object_test=is_known_tool),
    # A health log's start with no subject: "Started sertraline 50mg today", "Started taking metformin".
    _pattern(rf"(?i:started|began|restarted)(?<![\w\ue001,][\x20\t](?i:started))(?<![\w\ue001,][\x20\t](?i:began))"
             rf" (?:taking |on )?{_DRUG}", "takes", "takes", False, "person", "medication",
             keywords="started began restarted", writer=True, object_test=is_medicine),
    _pattern(r"{I}(?: am|['’]m) (?:now )?married to {O}", "married_to", "married to", True, "person",
             "person", keywords="married"),
    # The writer's own company: "I founded Fernhill Studio in 2022", "We co-founded Acme".
    _pattern(r"{W}(?: have|['’]ve)? (?:founded|co-founded|cofounded) {O}", "founded", "founded", False,
             "person", "organization", keywords="founded cofounded"),
    _pattern(rf"{{I}} {_ADVERB}report to {_ROLE_BEFORE_NAME}{{O}}", "reports_to", "reports to", True,
             "person", "person", keywords="report", object_test=_no_role),
    # A job that ended: not "I left Paris" (a place), only a job or "quit" (one quits an employer).
    _pattern(r"{I} (?:just |also )?(?:quit|left|lost) (?:my|the) (?:job|position|role) (?:at|with) {O}",
             "works_for", "works for", True, "person", "organization", keywords="quit left lost", ends=True),
    # Not "I quit Instagram", "I quit Duolingo": an app is no employer.
    _pattern(r"{I} (?:just )?quit {O}", "works_for", "works for", True, "person", "organization",
             keywords="quit", ends=True, object_test=_an_employer_quit),
    # Someone's too: "Omar quit Loomly" (not "Tom quit Instagram", "Ana quit Duolingo").
    _pattern(r"{S} (?:just |finally )?quit {O}" + _NOT_A_MODIFIER, "works_for", "works for", True, "person",
             "organization", keywords="quit", ends=True, object_test=_an_employer_quit),
    # A job lost: "I got laid off from Shopify", "Tom got fired from Initech" (not "let go from the Acme
    # project", "fired from the Initech softball team": a part of it; nor "Got fired from …" with no
    # subject, which may go on about whoever the line before named).
    _pattern(rf"{{S}} (?:was|got|has been|had been|just got) {_LAID_OFF} {{O}}{_NOT_A_MODIFIER}",
             "works_for", "works for", True, "person", "organization",
             keywords="laid let redundant fired sacked", ends=True),
    _pattern(rf"{{I}}(?: have| had|['’]ve|['’]d)? (?:was |got |been |just got ){_LAID_OFF} "
             rf"{{O}}{_NOT_A_MODIFIER}",
             "works_for", "works for", True, "person", "organization",
             keywords="laid let redundant fired sacked", ends=True),
    # A job left by resigning or retiring: "Tom resigned from Initech" (not "resigned from the board").
    _pattern(r"{S} (?:just )?(?:resigned|retired) from {O}", "works_for", "works for", True, "person",
             "organization", keywords="resigned retired", ends=True, object_test=no_childs_club),
    _pattern(r"{I}(?: have|['’]ve)? (?:just )?(?:resigned|retired) from {O}", "works_for", "works for", True,
             "person", "organization", keywords="resigned retired", ends=True, object_test=no_childs_club),
    # Someone's job that ended, named as a job: "Ana left her job at Acme" (not "Ana left Lisbon").
    _pattern(rf"{{S}} (?:just |finally |also )?(?:quit|left|lost) {_JOB} (?:at|with) {{O}}", "works_for",
             "works for", True, "person", "organization", keywords="quit left lost", ends=True),
    # A move from one employer to the next: "I left Google to join Datadog", "Priya left Monzo and
    # joined Stripe", "Left my job at Acme to join Initech": the new one from that day, the old one
    # ended on it (not "left Lisbon for Porto": a move of home, nor "left the meeting to join a call").
    _pattern(rf"{{S}} (?:just |finally )?left {_BARE_OLD}{_WHEN_JOINED},? (?:and|to) {_JOINED} "
             rf"{_BARE_NEW}{_JOINED_END}",
             "works_for", "works for", True, "person", "organization", keywords="left", object_test=_no_tool,
             needs=_JOB_CUE),
    _pattern(rf"{{I}}(?: have|['’]ve)? (?:just |finally )?(?:left|quit) {_BARE_OLD}{_WHEN_JOINED},? "
             rf"(?:and|to) {_JOINED} {_BARE_NEW}{_JOINED_END}", "works_for", "works for", True, "person",
             "organization", keywords="left quit", object_test=_no_tool, needs=_JOB_CUE),
    _pattern(rf"{{S}} (?:just |finally )?(?:left|quit) (?:his|her|their) (?:job|role|position) (?:at|with) "
             rf"{{A}} (?:and|to) {_JOINED} {{O}}", "works_for", "works for", True, "person", "organization",
             keywords="left quit"),
    # "Priya left Greenleaf in Aug 2024, now at Wren Kitchen" (as a person's note says it: "Left …").
    _pattern(rf"{{S}} (?:left|quit) {_BARE_OLD}{_WHEN_LEFT},? (?:and )?now (?:at|with) {{O}}", "works_for",
             "works for", True, "person", "organization", keywords="left quit", object_test=_no_tool),
    _pattern(rf"(?i:left|quit) my (?:job|role|position) (?:at|with) {{A}} (?:and|to) {_JOINED} {{O}}",
             "works_for", "works for", True, "person", "organization", keywords="left quit", writer=True),
    # A job or a home that is over, said as such: "Ana no longer works at Acme", "I don't work for
    # Acme anymore" (not "Ana doesn't work at Acme": she may never have).
    _pattern(r"{S} no longer works (?:at|for) {O}", "works_for", "works for", True, "person", "organization",
             keywords="longer", ends=True),
    _pattern(r"{I} no longer work (?:at|for) {O}", "works_for", "works for", True, "person", "organization",
             keywords="longer", ends=True, writer=True),
    _pattern(r"{S} (?:does not|doesn['’]t) work (?:at|for) {O},? any\s?more(?![\w'’-])", "works_for",
             "works for", True, "person", "organization", keywords="anymore more", ends=True),
    _pattern(r"{I} (?:do not|don['’]t) work (?:at|for) {O},? any\s?more(?![\w'’-])", "works_for",
             "works for", True, "person", "organization", keywords="anymore more", ends=True, writer=True),
    _pattern(r"{S} no longer lives in {O}", "lives_in", "lives in", True, "person", "place",
             keywords="longer", ends=True),
    _pattern(r"{W} no longer live in {O}", "lives_in", "lives in", True, "person", "place",
             keywords="longer", ends=True, writer=True),
    # French
    _pattern(r"{S} (?:utilise|utilisent) {O}", "uses", "uses", False, keywords="utilise utilisent"),
    _pattern(r"{S} (?:travaille|travaillent) (?:chez|pour) {O}", "works_for", "works for", True,
             "person", "organization", keywords="travaille travaillent"),
    _pattern(r"{S} (?:habite|vit) (?:à|a|en|au) {O}", "lives_in", "lives in", True, "person", "place",
             keywords="habite vit"),
    # "Ana ne travaille plus chez Acme": a job or a home that is over.
    _pattern(r"{S} ne (?:travaille|travaillent) plus (?:chez|pour) {O}", "works_for", "works for", True,
             "person", "organization", keywords="plus", ends=True),
    _pattern(r"{S} n['’](?:habite|habitent|vit|vivent) plus (?:à|a|en|au) {O}", "lives_in", "lives in", True,
             "person", "place", keywords="plus", ends=True),
    _pattern(r"{S} (?:fait|font) partie (?:de|du|des|de la) {O}", "part_of", "part of", False,
             keywords="partie"),
    # "Ana est designer chez Figma", "Tom est le nouveau CTO d'Acme", "Ana a rejoint Acme en tant que
    # designer", "Tom est le frère d'Ana", "Acme a racheté Initech".
    _pattern(rf"{{S}} est (?:maintenant )?{_A_FR}(?:nouveau |nouvelle )?{_ROLE_FR} (?:chez |à |{_OF_FR})"
             r"{O}", "works_for", "works for", True, "person", "organization", keywords=_ROLE_WORDS_FR),
    _pattern(rf"{{S}} a rejoint {{O}} (?:en tant que|comme) {_A_FR}{_ROLE_FR}", "works_for", "works for",
             True, "person", "organization", keywords=_ROLE_WORDS_FR),
    # A birth: "Anjali had a baby girl called Asha", "We had a baby boy, named Leo" (not a puppy called
    # Biscuit).
    _pattern(r"{S} (?:just )?had (?:a|her|his|their) (?:baby|baby girl|baby boy|little girl|little boy|son"
             r"|daughter),? (?:called|named) {O}", "parent_of", "parent of", False, "person", "person",
             keywords="called named"),
    _pattern(r"{W}(?: have|['’]ve)? (?:just )?had (?:a|our) (?:baby|baby girl|baby boy|little girl|little boy"
             r"|son|daughter),? (?:called|named) {O}", "parent_of", "parent of", False, "person", "person",
             keywords="called named"),
    _pattern(rf"{{S}} est {_THE_FR}{_SIBLING_FR} {_OF_FR}{{O}}", "sibling_of", "sibling of", False, "person",
             "person", keywords=_SIBLING_WORDS_FR),
    _pattern(rf"{{S}} est {_THE_FR}{_PARENT_FR} {_OF_FR}{{O}}", "parent_of", "parent of", False, "person",
             "person", keywords=_PARENT_WORDS_FR),
    _pattern(rf"{{S}} est {_THE_FR}{_CHILD_FR} {_OF_FR}{{O}}", "child_of", "child of", False, "person",
             "person", keywords=_CHILD_WORDS_FR),
    _pattern(r"{S} a (?:racheté|acquis) {O}", "owns", "owns", False, None, "organization",
             keywords="racheté acquis"),
    _pattern(r"{O} a été (?:racheté|rachetée|acquis|acquise) par {S}", "owns", "owns", False, None,
             "organization", keywords="racheté rachetée acquis acquise"),
)  # fmt: skip

PREDICATE_LABELS: dict[str, str] = {p.predicate: p.label for p in VERB_PATTERNS}
"""Label of every predicate the table can produce."""

PREDICATE_SYNONYMS: dict[str, str] = {
    "works_at": "works_for",
    "employer": "works_for",
    "employed_by": "works_for",
    "lives_at": "lives_in",
    "based_in": "located_in",
    "uses_firmware": "runs",
    "runs_firmware": "runs",
    "belongs_to": "part_of",
}
"""Inline-field and frontmatter keys users commonly write for a predicate of the table.

The offline extractor keeps the user's own key as the predicate (`works_at:: [[X]]` gives
`works_at`); pass 2 may fold these into the table's predicate.
"""

FUNCTIONAL_PREDICATES: frozenset[str] = frozenset(
    {p.predicate for p in VERB_PATTERNS if p.functional}
    | {alias for alias, target in PREDICATE_SYNONYMS.items() if any(
        p.functional and p.predicate == target for p in VERB_PATTERNS)}
)  # fmt: skip
"""Predicates with one current value per subject (the table's, plus their common synonyms)."""
SIDE_BY_SIDE: dict[str, Callable[[str], bool]] = {"runs": is_service}
"""Functional predicates some of whose values hold beside the others, by the value's name: a machine
runs one firmware or system at a time, and any number of services besides."""
TIMELESS_PREDICATES = frozenset({"sibling_of", "parent_of", "child_of"})
"""Predicates that hold for good: the day a note says one is not when it began."""


@dataclass(frozen=True, slots=True)
class PatternHit:
    """One relation read from a sentence, names still raw (placeholders or Capitalized words)."""

    pattern: VerbPattern
    subject: str
    object: str
    old: str | None
    """The value the relation replaces ("switched X from A to B": A), if the pattern has one."""
    start: int
    """Where the match starts in the sentence: what comes before it may take the statement back."""
    end: int
    """Where the match ends: the clause it stands in goes on to the next clause's start."""
    past_state: bool
    """A state in the past tense ("worked at", "ran", "lived in"): it held once, since no date said."""
    listed: bool = False
    """An object listed after the verb's first ("runs Plex and Pi-hole"): of a functional relation,
    it holds only where its kind runs side by side (`SIDE_BY_SIDE`)."""


_WORDS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_PATTERNS_BY_KEYWORD: dict[str, tuple[int, ...]] = {}
"""Positions in VERB_PATTERNS of the patterns each keyword screens in."""
for _index, _verb_pattern in enumerate(VERB_PATTERNS):
    for _keyword in _verb_pattern.keywords:
        _PATTERNS_BY_KEYWORD[_keyword] = (*_PATTERNS_BY_KEYWORD.get(_keyword, ()), _index)
_KEYWORDS = frozenset(_PATTERNS_BY_KEYWORD)


@lru_cache(maxsize=256)
def _screened(keywords: frozenset[str]) -> tuple[VerbPattern, ...]:
    """The patterns, in table order, that a sentence holding these keywords may match."""
    return tuple(
        VERB_PATTERNS[i] for i in sorted({i for word in keywords for i in _PATTERNS_BY_KEYWORD[word]})
    )


def match_verb_patterns(text: str, words: frozenset[str] | None = None) -> list[PatternHit]:
    """Apply every pattern to a placeholder sentence; return the hits in table order, then text order.

    `words` are the sentence's lowercase words, when the caller has them already.
    """
    if words is None:
        words = frozenset(word.lower() for word in _WORDS.findall(text))
    if _KEYWORDS.isdisjoint(words):
        return []
    hits: list[PatternHit] = []
    seen: set[tuple[str, str, str, int]] = set()
    for pattern in _screened(_KEYWORDS.intersection(words)):
        if pattern.needs is not None and pattern.needs.search(text) is None:
            continue
        for match in pattern.regex.finditer(text):
            found = match.groupdict()
            if found.get("subjects"):  # `{SS}`: a hit for each of the names listed
                if not _OPENS_CLAUSE.search(text[: match.start()]):
                    continue  # "I moved to Paris and I work at …": the list's first name is another's
                past = pattern.functional and _PAST_STATE.search(match.group(0)) is not None
                for subject in _LISTED.split(found["subjects"]):
                    hits.append(
                        PatternHit(pattern, subject, found["object"], None, match.start(), match.end(), past)
                    )
                continue
            subject = found.get("subject") or found.get("thing") or ""  # `{T}`: a name or an unnamed thing
            # The same relation twice in one candidate may be asked once and stated once ("Priya asked
            # whether Atlas uses Redis. It does: Atlas uses Redis."): each is a hit of its own.
            key = (pattern.predicate, subject, found["object"], match.start())
            if key in seen:
                continue
            seen.add(key)
            past = pattern.functional and _PAST_STATE.search(match.group(0)) is not None
            hits.append(
                PatternHit(
                    pattern, subject, found["object"], found.get("old"), match.start(), match.end(), past
                )
            )
            if not pattern.functional or pattern.predicate in SIDE_BY_SIDE:
                more = _more_objects(text, pattern, subject, match.start(), match.end())
                if found.get("subject") is not None and match.start("object") < match.start("subject"):
                    # "Acme was founded by Ana and Tom": a pattern naming its object first lists subjects.
                    more = [replace(hit, subject=hit.object, object=found["object"]) for hit in more]
                hits.extend(more)
    return hits


_MORE_OBJECT = LazyRegex(
    rf"(?:[ \t]*,[ \t]*(?:and[ \t]+)?|[ \t]+and[ \t]+){_DETERMINER}(?P<object>{NAME})"
    r"(?=[ \t]*(?:[,.;:!?)]|$)|[ \t]+(?:and|for|in|on|at|as|to|with|from|since|because|but|so|too|now"
    r"|today|yesterday)\b)"
)
"""Another object of the same verb, listed: "Atlas depends on Redis, Postgres and Kafka"; the list
ends where its clause does ("Atlas uses Redis and Kafka handles events" lists no Kafka)."""


_MORE_MEDICINE = LazyRegex(
    rf"(?:[ \t]*,[ \t]*(?:and[ \t]+)?|[ \t]+and[ \t]+){_DRUG}"
    r"(?=[ \t]*(?:[,.;:!?)]|$)|[ \t]+(?:and|for|in|on|at|to|since|now|too|daily|twice|once|every|each)\b)"
)
"""Another medicine of the same verb, listed: "I take ramipril, amlodipine and atorvastatin"."""


def _more_objects(text: str, pattern: VerbPattern, subject: str, start: int, end: int) -> list[PatternHit]:
    """The hits of the objects listed after a hit's own, for a relation that may hold many."""
    found = []
    listing = _MORE_MEDICINE if pattern.predicate == "takes" else _MORE_OBJECT
    while (more := listing.match(text, end)) is not None:
        end = more.end()
        found.append(PatternHit(pattern, subject, more.group("object"), None, start, end, False, True))
    return found


_LISTED = re.compile(r",[ ]and[ ]|,[ ]|[ ]and[ ]|[ ]&[ ]")
"""What separates the names of a list (`{SS}`)."""
_OPENS_CLAUSE = re.compile(
    r"(?:^|[,;:(—–]|\b(?:and|but|so|because|then|when|while|since))\s*$", re.IGNORECASE
)
"""What may come before a list of subjects: nothing, or the end of another clause."""
_PAST_STATE = re.compile(
    r"(?i)(?<!has )(?<!have )(?<!['’]ve )\b(?:worked|ran|lived|was running|were running)\b"
)
"""A state verb in the past tense; "has worked" still holds, and "switched" is an event of its day."""
_TAKEN_BACK = _word_set(
    """
    if unless whether suppose supposing assuming imagine pretend
    not no never nobody noone none neither nor without hardly barely
    doubt doubts doubted deny denies denied
    said says say told tells tell claim claims claimed think thinks thought believe believes believed
    mentioned mentions mention reckon reckons reckoned suspect suspects suspected allege alleges alleged
    assume assumes assumed guess guessed
    heard hear hears rumor rumour rumored rumoured reportedly allegedly supposedly according
    wonder wonders wondered ask asks asked hope hopes hoped wish wishes wished
    would could should might must maybe perhaps probably possibly
    ne pas jamais aucun aucune dit dit-il dit-elle pense crois croit
    """
)
"""Words that, before a relation in its clause, say it is asked, supposed, denied or someone's claim."""
_SENTENCE_END = re.compile(r"(?<![.!?…])[.!?…]+[\"'”’)\]*_]*(?=\s|$)")
"""A sentence's end: a run of marks, matched from its first (from each mark, a long run is rescanned)."""
_CLAUSE_BREAK = r"[,;:(—–]|\b(?:and|but|so|because|or|then|et|mais|donc)\b"
_CLAUSE_START = re.compile(_CLAUSE_BREAK, re.IGNORECASE)
_CLAUSE_END = re.compile(rf"{_CLAUSE_BREAK}|\b(?:which|who|whom|whose|where|that|in\s+what)\b", re.IGNORECASE)
"""After a hit, a relative clause is another clause too ("Atlas uses Redis which might be …")."""
_CLAUSE_WORDS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_CLAUSE_OPENERS = _word_set("si")
_RIGHT_BEFORE = _word_set("except besides")
"""Words that take a relation back only right before its subject."""
"""Words that take a relation back only as their clause's first word (French "si": if, or so)."""
_NOT_TAKING_BACK = re.compile(
    r"(?i)\bas\s+(?:i|we|you)\s+(?:said|say|mentioned|know|thought|expected|told\s+\w+)\b"
    r"|\bno\s+(?:wonder|doubt|secret|surprise|news|kidding|question)\b"
    r"|\b(?:can['’]?t|cannot|couldn['’]t)\s+believe\b|\bdidn['’]t\s+know\b|\bbelieve\s+it\s+or\s+not\b"
    r"|\b(?:needless|safe)\s+to\s+say\b|\bnot\s+surprisingly\b|\bglad\s+to\s+hear\b"
    r"|\b(?:i|we)\s+told\s+\w+\b|\bimagine\s+(?:my|our|his|her|their)\s+surprise\b"
)
_QUOTE_MARK = re.compile(r'(?<!\d)"')
"""Phrases that hold a word of `_TAKEN_BACK` and take nothing back ("As I said", "No wonder")."""
_OPENING_QUOTES = frozenset("“«„")
_CLOSING_QUOTES = frozenset("”»")


SENTENCE_REACH = 1000
"""How far from a hit its sentence is looked for: text without sentence marks (a transcript from
speech) is then read in pieces, not as one sentence rescanned for each of its relations."""


def hit_sentence(text: str, hit: PatternHit) -> tuple[int, int]:
    """Where the sentence a hit stands in starts and ends (a list item may hold several)."""
    reach = max(0, hit.start - SENTENCE_REACH)
    start = max((m.end() for m in _SENTENCE_END.finditer(text, reach, hit.start)), default=reach)
    limit = hit.end + SENTENCE_REACH
    after = _SENTENCE_END.search(text, hit.end, limit)
    return start, after.end() if after is not None else min(len(text), limit)


def hit_clause(text: str, hit: PatternHit) -> tuple[int, int]:
    """Where the clause a hit stands in starts and ends: within its sentence, between commas, "and",
    "but", "because" and the like; after the hit, a relative clause ("which might be overkill") is
    another."""
    sentence_start, sentence_end = hit_sentence(text, hit)
    start = max(
        (m.end() for m in _CLAUSE_START.finditer(text, sentence_start, hit.start)), default=sentence_start
    )
    after = _CLAUSE_END.search(text, hit.end, sentence_end)
    return start, after.start() if after is not None else sentence_end


_OPENERS = _word_set(
    """
    and but so now also actually well oh yes yeah yep ok okay anyway btw honestly basically currently my was
    yesterday tonight morning weekend on monday tuesday wednesday thursday friday saturday sunday
    still then recently finally today lately nowadays these days since in this last year month week
    january february march april may june july august september october november december
    """
)
"""Words that may come before a first-person relation in its clause ("Oh, and now I work at SAP")."""


def opens_its_clause(text: str, hit: PatternHit) -> bool:
    """Whether "I" starts its clause, but for a few openers and dates: "Everyone assumes I work at
    Amazon", "I told my boss I work at Netflix" or "In my dream I lived in Rome" state nothing."""
    start = hit_clause(text, hit)[0]
    return all(
        word.lower() in _OPENERS or word.isdigit() for word in _CLAUSE_WORDS.findall(text[start : hit.start])
    )


def is_asserted(text: str, hit: PatternHit) -> bool:
    """Whether a sentence states a hit as so: not a question, a supposition, a denial or someone's words.

    "If Marco works at Amazon, …", "Nobody at Acme uses Jira.", "Anna said Tom works at Microsoft."
    and "Does Phoenix use Redis?" hold the words of a relation, but state none. Only the hit's own
    sentence counts ("Crazy, right?" after it asks nothing of it), and before it only its clause.
    """
    sentence_start, sentence_end = hit_sentence(text, hit)
    clause_end = hit_clause(text, hit)[1]
    # A question asks what its clause says ("Does Phoenix use Redis?"), not what a clause before a
    # tag question says ("Tom works at Google now, can you believe it?").
    asked = text[sentence_start:sentence_end].rstrip(" \t*_\"'”’)]").endswith("?")
    if asked and clause_end == sentence_end:
        return False
    if _hearsay(text, hit, sentence_start, sentence_end, clause_end):
        return False  # "According to Ana, Tom works at Stripe", "Per Ravi, …", "…, Ana says."
    before = text[sentence_start : hit.start]
    # Inside a quotation: someone's words, not the writer's ("'Tom works at Apple,' Anna claimed");
    # a `"` after a digit is inches (`27" monitor`).
    straight = len(_QUOTE_MARK.findall(before))
    curly = sum(c in _OPENING_QUOTES for c in before) - sum(c in _CLOSING_QUOTES for c in before)
    if straight % 2 or curly > 0:
        return False
    # Phrases that take nothing back are blanked first, so their words start no clause either.
    said = _NOT_TAKING_BACK.sub(lambda found: " " * len(found.group()), before)
    clause = said[max((m.end() for m in _CLAUSE_START.finditer(said)), default=0) :]
    # A name's match may start with a word `clean_name` drops: "If Marco works at …" matched whole.
    lead = list(itertools.takewhile(lambda word: word.casefold() in _LEADING_NOISE, hit.subject.split()))
    words = [*_CLAUSE_WORDS.findall(clause), *lead]
    if words and words[0].lower() in _CLAUSE_OPENERS:
        return False
    if words and words[-1].lower() in _RIGHT_BEFORE:
        return False  # "Everyone except Tom uses Linux" (not "Except on weekends Tom works …")
    for word in words:
        folded = word.lower()
        if folded in _TAKEN_BACK or folded.endswith(("n't", "n’t")):
            return False
    return True


_HEARSAY = re.compile(
    r"(?i)\baccording[ \t]+to\b|(?:^[\s*_>-]*(?:as[ \t]+)?|\()per[ \t]+"
    r"(?!(?:year|month|week|day|hour|minute|person|head|cent|se|unit|item|user|seat|night)s?\b)"
    r"|\b(?:not[ \t]+(?:yet[ \t]+)?confirmed|unconfirmed|unverified|allegedly|reportedly|supposedly"
    r"|apparently)\b"
    r"|\bor[ \t]+so[ \t]+(?:I|we)[ \t]+(?:heard|hear|am[ \t]+told|was[ \t]+told|were[ \t]+told)\b"
    r"|\bif[ \t]+\S+(?:[ \t]+\S+)?[ \t]+(?:is|are)[ \t]+(?:right|correct|to[ \t]+be[ \t]+believed)\b"
    r"|^[\s*_>-]*rumou?rs?(?:[ \t]+(?:has[ \t]+it|is|says))?\b"
    r"|,[ \t]*(?:(?-i:[A-Z])[\w'’-]+|\ue000\d+\ue001|(?:my|our|his|her|their)[ \t]+\w+)[ \t]+"
    r"(?:says|said|claims|claimed|reckons|thinks|told[ \t]+me|tells[ \t]+me)[\s.!)*_]*$"
)
"""Words that make a whole sentence someone's claim, or not known: "According to Ana, …", "… (per
Ravi)", "…, Ana says.", "… (not confirmed)", "apparently", "…, or so I heard", "Rumour: …"."""


def _hearsay(text: str, hit: PatternHit, sentence_start: int, sentence_end: int, clause_end: int) -> bool:
    """Whether the sentence says the hit is someone's claim or not known: before it, in its clause or
    opening the sentence ("According to Ana, …", "Tom (apparently) …"); after it, before any other
    clause ("…, Ana says.", "… (not confirmed)", "…, or so I heard"). Not the writer's own source ("Per
    my notes, …"), nor a word of another clause ("I moved to Lyon and apparently that makes me …")."""
    sentence = text[sentence_start:sentence_end]
    clause_start = hit_clause(text, hit)[0]
    for found in _HEARSAY.finditer(sentence):
        start = sentence_start + found.start()
        if _OWN_SOURCE.match(sentence, found.end()):
            continue
        if start < hit.start:
            opening = found.start() == 0 or not sentence[: found.start()].strip(" \t*_>-(")
            if opening or start >= clause_start:
                return True
        elif not _ANOTHER_CLAUSE_WORD.search(text, hit.end, start):
            return True
    return False


_OWN_SOURCE = re.compile(r"(?i)\s*(?:my|our)\b")
_ANOTHER_CLAUSE_WORD = re.compile(r"(?i)\b(?:and|but|so|because|which|that|then|while|since|when)\b")


_LEADING_NOISE = _word_set(
    """
    the a an this that these those my our your his her their its i we you he she they it me us
    yesterday today tomorrow now then also and but so since when while after before if once finally
    still both all some every each in on at for from to with by of as maybe perhaps probably honestly
    actually currently later first next last new old there here what which who where whose how why
    everything nothing something someone everyone nobody anyone
    le la les un une des mon ma mes notre nos il elle ils elles on nous je hier demain si
    der die das ein eine el los las
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday
    """
)
_LEADING_NOISE |= _word_set(
    """
    apparently obviously clearly hopefully unfortunately fortunately luckily sadly basically anyway
    meanwhile suddenly recently usually sometimes often definitely surely certainly literally frankly
    thankfully interestingly eventually initially originally
    """
)
_TRADES = _word_set(
    "plumber builder electrician gardener cleaner window neighbour neighbor roofer joiner carpenter"
    " decorator painter mechanic landlord landlady postman postie childminder babysitter handyman"
)
"""What a diary calls someone before their first name ("Plumber Dave", "Neighbour Tom"): no part of it."""
_QUANTIFIERS = _word_set(
    "most half part rest many few several much none plenty lots all some each both any one"
)
_NAME_OPENERS = _word_set("new los las el san santa")
"""Words that start many names when a name follows ("New Zealand", "Los Angeles"), and are noise
before anything else ("New printer"). "First", "Last" and "Old" open sentences more often than
names ("First Anna …", "Last Christmas Anna …")."""
_VERSION = re.compile(r"^(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+[\w.-]*)$", re.IGNORECASE)


def _begins_a_name(words: list[str]) -> bool:
    """Whether the first word opens the name after it: "New Zealand", "First Direct" (a bank), not
    "Last Tuesday Bob"."""
    if len(words) >= 2 and " ".join(words[:2]).casefold() in _PROVIDERS:
        return True
    if words[0].casefold() not in _NAME_OPENERS or len(words) < 2:
        return False
    following = words[1]
    return following[:1].isupper() and following.casefold() not in _LEADING_NOISE


def clean_name(raw: str, known: frozenset[str] = frozenset()) -> str | None:
    """Turn a raw Capitalized match into an entity name, or None when nothing name-like is left.

    Leading function words, dates and pronouns go ("Yesterday Bob" → "Bob"); a trailing semantic
    version goes ("Marlin 2.1.3" → "Marlin") unless the whole name is `known` (casefolded), so a
    linked "Voron 2.4" stays whole.
    """
    words = raw.split()
    if len(words) == 2 and words[0] == "Jan" and words[1][:1].isupper():
        return raw  # a first name before a surname, opening the name ("Since Jan Tom …" is a month's)
    while words and (words[0].casefold() in _LEADING_NOISE or words[0][0].isdigit()):
        if _begins_a_name(words):
            break
        words.pop(0)
    while len(words) > 1 and words[0].casefold() in _TRADES and words[1][:1].isupper():
        words.pop(0)  # "Plumber Dave", "Window Cleaner Gary": who Dave is, then Dave
    if len(words) > 2 and words[1] == "of" and words[0].casefold() in _QUANTIFIERS:
        del words[:2]  # "Most of Acme" → "Acme"; "Half Moon Bay" stays whole
    if words and words[-1] == "of":
        words.pop()
    if not words:
        return None
    name = " ".join(words)
    if name.casefold() not in known:
        while len(words) > 1 and _VERSION.match(words[-1]):
            words.pop()
        name = " ".join(words)
    if len(name) < 2 and not name.isupper():
        return None
    return name
