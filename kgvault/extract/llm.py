"""The LLM extractor: each chunk through a model (litellm), validated, cached, concurrent and costed.

A request carries the rules `kgvault prompt` prints and the vault's ontology so far (system), then
the chunk with numbered lines, its reference time and speakers (user), secrets masked. The answer
must be a draft: code fences are stripped, and an answer that is not JSON or breaks the schema is
shown its errors once; a second failure fails the chunk, with the reason, and nothing of it is
kept. Quotes not found in the chunk drop their item (counted). Answers are cached by model,
prompt version, chunk text, reference time and speakers — not by the ontology, so a new note does
not invalidate every answer. Failed chunks are not cached: the next build retries only them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kgvault.extract import Extraction
from kgvault.extract.draft import Draft, validate_items
from kgvault.layout import STATE_DIR
from kgvault.prompt import ChunkMessage, Ontology, chunk_message, prompt_version, system_prompt
from kgvault.records import Chunk, Source
from kgvault.secrets import mask_secrets

LLM_CACHE_DIR = f"{STATE_DIR}/cache/llm"
EXTRACTOR = "llm@1"
ESTIMATED_COMPLETION_TOKENS = 600
"""What a dry run assumes a model answers per chunk, for its cost estimate."""
_FENCED = re.compile(r"^\s*```[\w-]*\s*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)
_NOT_QUOTED = "supporting_text not found in the chunk"
_LONGEST_PAUSE = 600.0
"""Seconds a retry waits at most, whatever the backoff or a server's Retry-After says."""
_RETRIED = (
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "Timeout",
    "APIConnectionError",
    "BadGatewayError",
)


@dataclass(frozen=True, slots=True)
class LlmSettings:
    """How to reach the model and how hard to try."""

    model: str
    api_base: str | None = None
    jobs: int = 4
    timeout: float = 60.0
    """Seconds one request may take."""
    retries: int = 3
    """Extra attempts after a rate limit, a server error or a timeout."""
    backoff: float = 1.0
    """Seconds before the first retry; doubled for each next one."""
    max_cost: float | None = None
    """Stop sending requests once this many US dollars are spent."""
    refresh: bool = False
    """Ask the model again even when an answer is cached."""
    dry_run: bool = False
    """Send nothing: estimate the tokens and cost of what would be sent."""
    confidential: bool = False
    """Send notes marked `sensitivity: confidential` too (they are extracted offline otherwise)."""
    templates: Path | None = None


@dataclass
class LlmStats:
    """What the model cost, for the build report."""

    calls: int = 0
    cache_hits: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    dropped: int = 0
    """Items left out because their quote was not in the chunk (or they broke the schema twice)."""
    estimated: bool = False
    """A dry run: the tokens and cost are estimates, and no call was made."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The `llm` object of the build report."""
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "failed": self.failed,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
        }

    def spent(self, prompt: int, completion: int, cost: float) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.cost_usd += cost


@dataclass(frozen=True, slots=True)
class _Request:
    """One chunk as it will be sent, and the text its quotes are checked against."""

    chunk: Chunk
    key: str
    user: str
    said: str
    source_description: str


class ModelFailure(Exception):
    """A chunk the model could not extract; the message is the reason shown in coverage."""

    def __init__(self, message: str, *, answered: bool = True) -> None:
        super().__init__(message)
        self.answered = answered
        """Whether the model was reached and answered (unusably); False when the request failed."""


def extract_with_model(
    chunks: Sequence[Chunk],
    sources: Sequence[Source],
    settings: LlmSettings,
    vault: Path,
    ontology: Ontology | None,
    *,
    offline: Callable[[Sequence[Chunk], Sequence[Source]], list[Extraction]],
) -> tuple[list[Extraction], LlmStats]:
    """Extract every chunk, in chunk order: prose and conversations by the model, the rest by `offline`.

    Properties (frontmatter), draft files and notes marked confidential never reach the model.
    """
    by_path = {source.path: source for source in sources}
    stats = LlmStats(estimated=settings.dry_run)
    version = prompt_version(settings.templates)
    cache = AnswerCache(vault / LLM_CACHE_DIR, writable=not settings.dry_run)
    results: dict[int, Extraction] = {}
    local = [
        (position, chunk)
        for position, chunk in enumerate(chunks)
        if not _for_model(chunk, by_path[chunk.source_path], settings)
    ]
    for (position, _), extraction in zip(local, offline([c for _, c in local], sources), strict=True):
        results[position] = extraction
    waiting: list[tuple[int, _Request]] = []
    for position, chunk in enumerate(chunks):
        if position in results:
            continue
        request = _request(chunk, settings, version)
        cached = None if settings.refresh else cache.get(request.key)
        if cached is not None:
            stats.cache_hits += 1
            results[position] = _from_answer(request, cached, settings)
        else:
            waiting.append((position, request))
    if waiting:
        system = system_prompt(ontology, templates=settings.templates)
        if settings.dry_run:
            _estimate(system, [r for _, r in waiting], settings, stats)
            for position, request in waiting:
                results[position] = _not_sent(request, settings, "dry run: not sent")
        else:
            client = ModelClient(settings, system, stats)
            breaker = _Breaker()
            with ThreadPoolExecutor(max_workers=settings.jobs) as pool:
                done = pool.map(
                    lambda item: _extract_one(item[1], client, cache, settings, stats, breaker), waiting
                )
                for (position, _), extraction in zip(waiting, done, strict=True):
                    results[position] = extraction
    # A chunk the model failed on is read by the rules meanwhile: a model that cannot be reached
    # leaves the vault as an offline build makes it, not emptied. The next build asks again.
    failed = [
        (position, x.draft.skip_reason.removeprefix("failed: "))
        for position, x in sorted(results.items())
        if x.draft.skip_reason is not None and x.draft.skip_reason.startswith("failed: ")
    ]
    if failed:
        read = offline([results[position].chunk for position, _ in failed], sources)
        for (position, reason), extraction in zip(failed, read, strict=True):
            results[position] = replace(extraction, failure=reason)
    stats.dropped = sum(
        1 for x in results.values() if x.extractor.startswith(EXTRACTOR) for reason in x.dropped
    )
    return [results[position] for position in range(len(chunks))], stats


def is_confidential(source: Source) -> bool:
    """Whether a note's frontmatter marks it `sensitivity: confidential`: kept from the model."""
    return str(source.meta.get("sensitivity", "")).strip().lower() == "confidential"


def _for_model(chunk: Chunk, source: Source, settings: LlmSettings) -> bool:
    """Whether a chunk goes to the model: prose and turns, unless its note is confidential or it is
    headings only (a transcript's title: nothing to extract, nothing to pay for)."""
    if chunk.kind not in ("section", "turns"):
        return False
    lines = [line.strip() for line in chunk.text.split("\n")]
    if chunk.kind == "section" and all(not line or line.startswith("#") for line in lines):
        return False
    return settings.confidential or not is_confidential(source)


def _request(chunk: Chunk, settings: LlmSettings, version: str) -> _Request:
    """The masked, numbered chunk and its cache key."""
    if chunk.turns:
        numbered = [
            (turn.line_start + i, f"{_when(turn.time)}{turn.speaker}: {line}" if i == 0 else line)
            for turn in chunk.turns
            for i, line in enumerate(mask_secrets(turn.text)[0].split("\n"))
        ]
        said = "\n".join(mask_secrets(turn.text)[0] for turn in chunk.turns)
        speakers = tuple(dict.fromkeys(turn.speaker for turn in chunk.turns))
    else:
        masked = mask_secrets(chunk.text)[0]
        numbered = [(chunk.line_start + i, line) for i, line in enumerate(masked.split("\n"))]
        said, speakers = masked, ()
    when = chunk.turns[0].time if chunk.turns and chunk.turns[0].time else chunk.reference_time
    reference = when.isoformat() if when is not None else None
    description = _description(chunk)
    message = ChunkMessage(description, reference, speakers, tuple(numbered))
    user = chunk_message(message, templates=settings.templates)
    key_text = json.dumps([settings.model, version, said, reference, speakers], ensure_ascii=False)
    key = hashlib.sha256(key_text.encode("utf-8")).hexdigest()
    return _Request(chunk, key, user, said, description)


def _when(moment: Any) -> str:
    return f"[{moment.isoformat(sep=' ', timespec='minutes')}] " if moment is not None else ""


def _description(chunk: Chunk) -> str:
    """`path lines a-b`, at most 120 characters (a long path loses its start)."""
    suffix = f" lines {chunk.line_start}-{chunk.line_end}"
    path = chunk.source_path
    if len(path) + len(suffix) > 120:
        path = "…" + path[-(120 - len(suffix) - 1) :]
    return path + suffix


class _Breaker:
    """Stops asking a model that failed on the first chunks and answered none (no key, no server):
    every other chunk would wait out the same retries."""

    LIMIT = 3

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.answered = 0
        self.failures: list[str] = []

    def open(self) -> str | None:
        """Why no more requests are sent, or None."""
        with self._lock:
            if self.answered or len(self.failures) < self.LIMIT:
                return None
            return f"not sent: the model failed on the first {self.LIMIT} chunks ({self.failures[0]})"

    def record(self, failure: str | None) -> None:
        with self._lock:
            if failure is None:
                self.answered += 1
            else:
                self.failures.append(failure)


def _extract_one(
    request: _Request,
    client: ModelClient,
    cache: AnswerCache,
    settings: LlmSettings,
    stats: LlmStats,
    breaker: _Breaker,
) -> Extraction:
    """Ask the model about one chunk (and once more, with its errors, if the answer is unusable)."""
    stopped = breaker.open()
    if stopped is not None:
        with stats._lock:
            stats.failed += 1
        return _not_sent(request, settings, f"failed: {stopped}")
    try:
        answer = client.ask(request.user)
        try:
            draft, dropped = _checked(answer, request)
        except ModelFailure as first:
            answer = client.ask(request.user, (answer, _repair_note(str(first))))
            draft, dropped = _checked(answer, request)
        else:
            # A dropped quote is the hallucination guard, a generic name is only cleared: no repair.
            broken = [r for r in dropped if _NOT_QUOTED not in r and "is generic; cleared" not in r]
            if broken:
                retry = client.ask(request.user, (answer, _repair_note("; ".join(broken))))
                with contextlib.suppress(ModelFailure):  # else the first answer's valid items stand
                    draft, dropped = _checked(retry, request)
    except ModelFailure as failure:
        with stats._lock:
            stats.failed += 1
        breaker.record(None if failure.answered else str(failure))
        return _not_sent(request, settings, f"failed: {failure}")
    breaker.record(None)
    cache.put(request.key, {"draft": _dump(draft), "dropped": dropped, "model": settings.model})
    return Extraction(request.chunk, draft, f"{EXTRACTOR} {settings.model}", tuple(dropped))


def _repair_note(errors: str) -> str:
    return (
        f"Your answer could not be used: {errors}. Answer again with the corrected draft: one JSON "
        "object following the rules, nothing else."
    )


def _checked(answer: str, request: _Request) -> tuple[Draft, list[str]]:
    """Parse and validate an answer; `ModelFailure` when it is not a usable draft at all."""
    raw = _parse(answer)
    raw["schema_version"] = "kgvault.draft/1"
    raw["source_description"] = request.source_description
    raw.setdefault(
        "reference_time", request.chunk.reference_time.isoformat() if request.chunk.reference_time else None
    )
    if isinstance(raw.get("episode_name"), str):
        raw["episode_name"] = raw["episode_name"][:30]
    if isinstance(raw.get("skip_reason"), str):
        # A model's words land in the coverage table: one plain line, no links of its own.
        reason = " ".join(raw["skip_reason"].replace("[[", "[").replace("]]", "]").split())
        raw["skip_reason"] = reason[:200] or None
    try:
        draft, dropped = validate_items(raw, request.said)
    except ValueError as error:
        raise ModelFailure(f"not a valid draft ({error})") from error
    return draft, dropped


def _parse(answer: str) -> dict[str, Any]:
    """The JSON object of an answer: a code fence around it is taken off; a list of drafts is merged."""
    text = answer.strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group("body").strip()
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ModelFailure(f"the answer is not JSON ({error.args[0] if error.args else error})") from error
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
        merged: dict[str, Any] = dict(data[0])
        for kind in ("nodes", "entities", "relations", "links"):
            merged[kind] = [
                x for item in data for x in (item.get(kind) or [] if isinstance(item.get(kind), list) else [])
            ]
        data = merged
    if not isinstance(data, dict):
        raise ModelFailure("the answer is JSON but not a draft object")
    return data


def _from_answer(request: _Request, cached: dict[str, Any], settings: LlmSettings) -> Extraction:
    """A cached answer, validated again like any draft."""
    try:
        draft, dropped = validate_items(dict(cached["draft"]), request.said)
    except (ValueError, KeyError, TypeError):
        return _not_sent(request, settings, "failed: the cached answer is damaged; run with --refresh")
    return Extraction(request.chunk, draft, f"{EXTRACTOR} {settings.model}", tuple(dropped))


def _not_sent(request: _Request, settings: LlmSettings, reason: str) -> Extraction:
    return Extraction(request.chunk, Draft(skip_reason=reason), f"{EXTRACTOR} {settings.model}")


def _dump(draft: Draft) -> dict[str, Any]:
    return draft.model_dump(mode="json", exclude_none=True, exclude_defaults=True)


def _estimate(system: str, requests: list[_Request], settings: LlmSettings, stats: LlmStats) -> None:
    """A dry run's tokens (about four characters a token) and cost, from litellm's local price list."""
    litellm = _litellm()
    for request in requests:
        prompt = (len(system) + len(request.user)) // 4
        stats.prompt_tokens += prompt
        stats.completion_tokens += ESTIMATED_COMPLETION_TOKENS
        try:
            prompt_cost, completion_cost = litellm.cost_per_token(
                model=settings.model, prompt_tokens=prompt, completion_tokens=ESTIMATED_COMPLETION_TOKENS
            )
        except Exception:  # an unknown model has no price: its cost is not counted
            continue
        stats.cost_usd += prompt_cost + completion_cost


# -- the model --------------------------------------------------------------------------------------


class ModelClient:
    """Calls the model through litellm: one request in flight per job, retries with backoff, a budget."""

    def __init__(self, settings: LlmSettings, system: str, stats: LlmStats) -> None:
        self.settings = settings
        self.system = system
        self.stats = stats
        self.litellm = _litellm()
        self.response_format = _response_format(self.litellm, settings.model)

    def ask(self, user: str, repair: tuple[str, str] | None = None) -> str:
        """The model's answer to one chunk (with the previous answer and its errors, for a repair)."""
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": user}]
        if repair is not None:
            messages += [{"role": "assistant", "content": repair[0]}, {"role": "user", "content": repair[1]}]
        settings = self.settings
        for attempt in range(settings.retries + 1):
            if settings.max_cost is not None and self.stats.cost_usd >= settings.max_cost:
                raise ModelFailure(f"not sent: --max-cost {settings.max_cost} USD reached")
            try:
                response = self.litellm.completion(**self._arguments(messages))
            except Exception as error:
                retried = type(error).__name__ in _RETRIED or _status(error) in (429, 500, 502, 503, 504)
                if retried and attempt < settings.retries:
                    # A server that says how long to wait (a rate limit's Retry-After) is believed.
                    # At most ten minutes: doubled a hundred times the pause would overflow.
                    pause = settings.backoff * 2 ** min(attempt, 30)
                    time.sleep(min(max(pause, _retry_after(error) or 0.0), _LONGEST_PAUSE))
                    continue
                raise ModelFailure(_describe(error), answered=False) from error
            self._count(response)
            content = response.choices[0].message.content
            if not isinstance(content, str) or not content.strip():
                raise ModelFailure("the model's answer is empty")
            return content
        raise ModelFailure("no answer")  # not reached: the loop returns or raises

    def _arguments(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        settings = self.settings
        arguments: dict[str, Any] = {
            "model": settings.model,
            "messages": messages,
            "timeout": settings.timeout,
            "num_retries": 0,
            "temperature": 0,
        }
        if settings.api_base:
            arguments["api_base"] = settings.api_base
            if settings.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
                arguments["api_key"] = "none"  # a local OpenAI-compatible server wants no key
        if self.response_format is not None:
            arguments["response_format"] = self.response_format
        return arguments

    def _count(self, response: Any) -> None:
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        try:
            cost = float(self.litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # a model with no known price costs what we cannot know: 0
            cost = 0.0
        self.stats.spent(prompt, completion, cost)


def _response_format(litellm: Any, model: str) -> dict[str, Any] | None:
    """JSON mode where the provider has it: the draft's schema, else any JSON object, else nothing."""
    try:
        if litellm.supports_response_schema(model=model):
            from kgvault.extract.draft import Draft

            schema = Draft.model_json_schema()
            return {"type": "json_schema", "json_schema": {"name": "draft", "schema": schema}}
        params = litellm.get_supported_openai_params(model=model) or []
    except Exception:
        return None
    return {"type": "json_object"} if "response_format" in params else None


def _status(error: Exception) -> int | None:
    status = getattr(error, "status_code", None)
    return status if isinstance(status, int) else None


MAX_RETRY_AFTER = 60.0
"""The longest a server's Retry-After makes us wait before a retry (longer asks wait this long)."""


def _retry_after(error: Exception) -> float | None:
    """Seconds the server asked to wait before the next request, if its error response said."""
    # litellm keeps the provider's headers apart (its own `response` is rebuilt without them).
    headers = getattr(error, "litellm_response_headers", None) or getattr(
        getattr(error, "response", None), "headers", None
    )
    if headers is None:
        return None
    try:
        if (millis := headers.get("retry-after-ms")) is not None:
            seconds = float(millis) / 1000
        elif (value := headers.get("retry-after")) is None:
            return None
        else:
            try:
                seconds = float(value)
            except ValueError:  # an HTTP date
                from email.utils import parsedate_to_datetime

                seconds = parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError, AttributeError, OverflowError):
        return None  # a header we cannot read: the backoff alone decides
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _describe(error: Exception) -> str:
    """A one-line reason for a failed request, without the provider's long traces."""
    message = " ".join(str(error).split())
    if len(message) > 200:
        message = message[:197] + "…"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _litellm() -> Any:
    """Import litellm only when a model is set, and keep it off the network: the local price list."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


class AnswerCache:
    """Answers by key under `VAULT/.kgvault/cache/llm/`: readable JSON, nothing but the draft."""

    def __init__(self, folder: Path, *, writable: bool = True) -> None:
        self.folder = folder
        self.enabled = not any(p.is_symlink() for p in (folder, folder.parent, folder.parent.parent))
        self.writable = writable and self.enabled
        """A dry run reads answers (it estimates only what would be sent) but keeps none."""

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        if not self.enabled:
            return None
        try:
            data = json.loads(self._path(key).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get("draft"), dict) else None

    def put(self, key: str, data: dict[str, Any]) -> None:
        if not self.writable:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{threading.get_ident()}.kgvault-tmp")
            temporary.write_text(
                json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", "utf-8"
            )
            os.replace(temporary, path)
        except OSError:
            pass  # an answer that cannot be kept is only asked again next time
