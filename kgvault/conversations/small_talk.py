"""Small talk: turns that carry no memory (greetings, thanks, reactions), and why a turn gave nothing."""

from __future__ import annotations

import re

from kgvault.records import Turn

# One sentence of pure social glue. Each alternative must be the whole sentence (bar a capitalised
# name or an emoji after it), so "Thanks to Bob I fixed the heater" and "Super sick" are not small talk.
_GLUE = re.compile(
    r"""(?ix)^\W*(?:(?:omg|wow|oh|aw+|yay|ah)[\s,!]+)?(?:
        (?:hi|hello|hey|hiya|yo|howdy|greetings|good\ (?:morning|afternoon|evening|night)|bye|goodbye
          |see\ (?:you|ya)(?:\ (?:soon|later|tomorrow))?|take\ care|talk\ (?:soon|later)|cheers|later)
      | (?:thanks|thank\ you|thx|ty|many\ thanks|thanks\ (?:a\ lot|so\ much)|thank\ you\ so\ much)
          (?:\ (?:for\ (?:sharing|asking|the\ (?:help|advice|tip|tips|chat|support))))?
      | (?:no\ (?:problem|worries)|you'?re\ welcome|anytime|my\ pleasure|of\ course|sure(?:\ thing)?)
      | (?:ok(?:ay)?|k|yes|yeah|yep|yup|no|nope|nah|right|true|indeed|exactly|agreed|same(?:\ here)?
          |me\ too|you\ too)
      | (?:lol|lmao|haha+|hehe+|omg|wow+|whoa|ooh+|aw+|yay+|nice|cool|great|awesome|amazing|perfect|sweet
          |lovely|wonderful|fantastic|brilliant|neat|oh|ah|hmm+|interesting|congrats|congratulations|bravo)
      | (?:that'?s|this\ is|it'?s|sounds|looks|how)\ (?:so\ |really\ |very\ |super\ )?
          (?:great|awesome|amazing|cool|nice|good|wonderful|fantastic|lovely|fun|interesting|exciting|sweet
            |perfect|incredible|beautiful|true|right|fair|tough|hard|sad|terrible|awful)(?:\ news|\ idea)?
      | (?:i'?m\ )?(?:so\ |really\ |very\ )?(?:glad|happy\ for\ you|proud\ of\ you)
          (?:\ (?:to\ hear(?:\ (?:that|it|from\ you))?|for\ you|y'all|to\ help|you\ (?:liked|enjoyed)\ it))?
      | (?:that\ )?sounds\ (?:so\ |really\ |super\ )?(?:great|awesome|amazing|fun|lovely|wonderful|nice
          |cool|good|fantastic|exciting|interesting|incredible|tough|hard|rough)(?:\ to\ me)?
      | (?:glad|happy|good)\ to\ (?:hear|see|know)(?:\ (?:that|it|you))?
      | (?:nice|good|great)\ (?:to\ (?:see|meet|hear\ from)\ you|talking\ to\ you|chatting)(?:\ too|\ again)?
      | how\ (?:are|have)\ you(?:\ been|\ doing)?(?:\ lately)?
      | how'?s\ it\ going | what'?s\ up | what'?s\ new | how\ about\ you | and\ you | you\ too
      | happy\ (?:birthday|new\ year|holidays|christmas|easter|anniversary|mother'?s\ day|father'?s\ day)
      | merry\ christmas | x+ | (?:so\ |very\ |really\ )?proud(?:\ of\ (?:you|him|her|them|us))?
      | (?:good|best\ of)\ luck(?:\ (?:with|on|for)\ [\w\s'-]+)? | have\ fun | enjoy(?:\ it)?
      | (?:i'?m\ )?(?:so\ |really\ |very\ )?sorry\ (?:to\ hear\ (?:that|about\ (?:that|it))|for\ your\ loss)
      | long\ time\ no\ (?:see|talk|chat|hear) | oh\ no | oh\ (?:wow|my|man|dear) | me\ neither
      | (?:i\ )?(?:totally\ |completely\ |absolutely\ |so\ )?agree(?:\ with\ you)?
      | (?:totally|absolutely|definitely|for\ sure|of\ course)
      | (?:i\ )?(?:just\ )?wanted\ to\ (?:say\ (?:hi|hello|hey)|check\ in)
      | what\ an?\ (?:experience|adventure|day|story|journey|ride|trip)
      | get\ well\ soon | feel\ better(?:\ soon)? | well\ done | safe\ travels | sleep\ well | night\ night
      | (?:amazing|great|brilliant|wonderful|fantastic|exciting|lovely|fab|sad|terrible|awful)\ news
      | welcome\ (?:home|back)(?:\ little\ one)?
      | (?:so|how)\ (?:cute|sweet|lovely|exciting) | (?:love|miss)\ (?:you|it)(?:\ too)?
      | on\ my\ way | omw | count\ me\ in | sounds\ like\ a\ plan
      | (?:running\ )?(?:\d+|five|ten|a\ few)\ mins?(?:utes)?\ late(?:\ sorry)?
      # The glue of calls and meetings: who hears whom, whose screen, starting and wrapping up.
      | sorry | apologies | pardon | excuse\ me | go\ ahead | after\ you | hold\ on | bear\ with\ me
      | (?:just\ )?(?:one|a)\ (?:sec|second|moment|minute)
      | (?:sorry\ )?(?:i\ was|i'?m|you'?re|you\ are|we\ can'?t\ hear\ you)(?:\ still)?\ on\ mute
      | loud\ and\ clear | you'?re\ breaking\ up | (?:can|do)\ you\ hear\ me(?:\ now|\ okay|\ ok)?
      | let'?s\ (?:get\ started|begin|start|kick\ (?:it\ )?off|dive\ in|wrap\ (?:it\ )?up|get\ going)
      | (?:i\ think\ )?that'?s\ (?:everything|all|it)(?:\ (?:for\ (?:today|now|me)|from\ me))?
      | (?:great|good|nice)\ (?:work|job|point|question)
      | (?:(?:sounds|looks)\ good|works\ for\ me)(?:\ to\ me)?
      | let\ me\ share\ my\ screen | next\ slide(?:\ please)? | see\ you\ (?:next\ week|on\ \w+day)
      # The glue of chats in the other languages WhatsApp brings: German, Spanish, French,
      # Portuguese, Italian thanks, wishes, greetings and reactions.
      | danke(?:\ (?:schön|sehr|dir|euch))? | gute\ besserung | (?:herzlichen\ )?glückwunsch | alles\ gute
      | super | toll | prima | genial | bis\ (?:bald|später|morgen|dann) | gern\ geschehen
      | gracias | felicidades | enhorabuena | qué\ (?:bien|guay|pena|bonito) | recupérate(?:\ pronto)?
      | buen(?:os|as)\ (?:días|tardes|noches) | hasta\ (?:luego|mañana|pronto) | de\ nada
      | merci(?:\ (?:beaucoup|à\ (?:vous|toi|tous)))? | félicitations(?:\ à\ (?:vous|toi)(?:\ deux)?)?
      | trop\ (?:bien|cool|mignon) | bonne\ (?:chance|nuit|journée|soirée) | à\ (?:demain|bientôt|plus)
      | bisous | bon\ courage | de\ rien | coucou | bonjour | bonsoir
      | obrigad[oa] | parabéns | que\ (?:legal|bom|pena|lindo) | ótimo | boa\ (?:sorte|noite)
      | bom\ dia | até\ (?:logo|amanhã|já) | beijos? | valeu | melhoras
      | grazie(?:\ mille)? | auguri | complimenti | buon(?:giorno|anotte|asera) | a\ domani
    # Then whom it is to, and a kiss: "Get well soon mum x", "Merry Christmas lovely xx".
    )(?:[\s,]+(?:(?!(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|tonight)\b)
        (?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?|mum|mom|dad|son|love|lovely|babe|hun|mate|guys|all
        |everyone|everybody
        |team|darling|sweetie|bro|sis|fam|folks))?(?:[\s,]+x+)?[\W_]*$""",
)
# Wishes and thanks said to someone, whose name a chat writes in lowercase ("congrats ravi!!!").
_ADDRESSED = re.compile(
    r"(?i)^\W*(?:(?:omg|wow|oh|aw+|yay)[\s,!]+)?(?:congrats|congratulations|happy\s+birthday|get\s+well\s+soon"
    r"|well\s+done|thanks|thank\s+you|bye|hi|hello|hey|hiya|merry\s+christmas|happy\s+new\s+year|good\s+luck"
    r"|love\s+you|miss\s+you|night\s+night)[\s,]+[\w'-]+(?:[\s,]+x+)?[\W_]*$"
)
# A request to the listener ("Write a cover letter …", "Translate 'I moved …'", "Pretend you are
# my grandmother …"): what an assistant is asked to do, no memory of the one asking.
_REQUEST = re.compile(
    r"""(?ix)^\W*(?:please\s+)?(?:
        write|rewrite|translate|explain|summari[sz]e|give|make|create|list|tell|show|help|pretend
      | imagine(?!\s+(?:my|our|his|her|their)\s+surprise)
      | generate|draft|describe|compare|suggest|recommend|convert|calculate|design|outline|brainstorm
      | provide|define|draw|compose|proofread|paraphrase|rephrase|continue|ignore|act\s+as|role-?play
      | fix|correct|improve|shorten|simplify
      | (?:can|could|would|will)\s+you | i\s+(?:want|need)\s+you\s+to(?!\s+(?:know|understand|hear)\b)
      | let'?s\s+(?:role-?play|pretend|play\s+a\s+game)
    )\b"""
)
# A turn that opens a story or a game ("Let's roleplay. I am a knight who …"): all of it is fiction.
_FICTION = re.compile(
    r"(?i)^\W*(?:please\s+)?(?:let'?s\s+(?:role-?play|pretend|play\s+a\s+game)|role-?play|pretend"
    r"|imagine\s+(?:you|that|a|an|if)|(?:write|tell)\s+(?:me\s+)?a\s+(?:story|poem|tale))\b"
)
_PIECE_END = re.compile(r"[.!?…,;:]+(?:\s+|$)|\n+")
_NO_LETTERS = re.compile(r"^[\W\d_]*$")
_NAME = re.compile(r"^[A-Z][\w'-]*(?: [A-Z][\w'-]*)?$")


def is_small_talk(text: str) -> bool:
    """Whether every piece of a turn is a greeting, thanks, a reaction, a name or an emoji.

    Pieces are cut at sentence ends and commas, so "Wow, that's cool, Caroline!" is small talk
    while "Thanks, I adopted Miso" is not.
    """
    pieces = [p.strip() for p in _PIECE_END.split(text.strip()) if p.strip()]
    if not all(
        _NO_LETTERS.match(p) or _GLUE.match(p) or _ADDRESSED.match(p) or _NAME.match(p) for p in pieces
    ):
        return False
    # A name alone is an answer ("Where did you move to?" "San Francisco."), not glue.
    return not any(_NAME.match(p) for p in pieces) or any(_GLUE.match(p) for p in pieces)


def is_request(text: str) -> bool:
    """Whether a sentence asks the listener to do something ("Write a cover letter for …")."""
    return _REQUEST.match(text) is not None


def is_fiction(text: str) -> bool:
    """Whether a turn opens a story, a game or a role play: nothing in it is anyone's memory."""
    return _FICTION.match(text) is not None


def silence_reason(turn: Turn) -> str:
    """Why a turn produced nothing, for the coverage table."""
    if is_small_talk(turn.text):
        return "small talk"
    if turn.role == "assistant":
        return "an assistant's answer, no general fact in it"
    return "no statement"
