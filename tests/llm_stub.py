"""An OpenAI-compatible chat-completions server on 127.0.0.1 for tests and the LLM bench.

`StubLLM` serves POST `/v1/chat/completions` (and `/chat/completions`) from a daemon thread and
records every request body. What it answers is decided by `respond(body) -> Reply`; by default it
reads the numbered lines (`N| text`) of the user message kgvault sends (templates/prompts/chunk.md.j2)
and answers with a valid draft quoting the first non-empty one. Helpers build the faulty answers the
fault tests need (rate limits, server errors, slow answers, non-JSON, broken drafts, code fences,
invented quotes) and `first_then` answers the first request(s) one way and the rest another.

Nothing here imports kgvault: the stub stands for a model, outside the program under test.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Reply",
    "Responder",
    "StubLLM",
    "chunk_lines",
    "default_draft",
    "default_reply",
    "fenced",
    "first_then",
    "invalid_schema",
    "mentions",
    "not_json",
    "rate_limited",
    "server_error",
    "slow",
    "system_message",
    "unquoted",
    "user_message",
    "when",
    "with_draft",
]

_LINE = re.compile(r"^(\d+)\| ?(.*)$")
_REFERENCE = re.compile(r"^Reference time: (\d{4}-\d{2}-\d{2})", re.MULTILINE)
_SPEAKER_PREFIX = re.compile(r"^(?:\[[^\]]*\] )?[^:\n]{1,40}: ")
_CAPITALIZED = re.compile(r"\b[A-Z][a-z]{2,}\b")
_STOP = frozenset(
    {"The", "This", "That", "Today", "Yesterday", "Then", "When", "What", "And", "But", "Ignore"}
)


@dataclass(frozen=True, slots=True)
class Reply:
    """One answer of the stub: a status, a JSON body (or raw text), after a delay, with headers."""

    status: int = 200
    body: Any = None
    """A JSON-serializable body; ignored when `text` is set."""
    text: str | None = None
    """A raw body sent as is (not JSON)."""
    delay: float = 0.0
    """Seconds to wait before answering."""
    headers: dict[str, str] = field(default_factory=dict)


Responder = Callable[[dict[str, Any]], Reply]


@dataclass(slots=True)
class Seen:
    """One request as the stub received it: its body, and when it started and was answered (monotonic)."""

    body: dict[str, Any]
    raw: str
    """The body exactly as received (decoded as UTF-8)."""
    path: str
    started: float
    finished: float | None = None
    """None while the stub is still answering (or sleeping before it answers)."""


# -- reading a kgvault request --------------------------------------------------------------------


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # the list-of-parts form
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def user_message(body: dict[str, Any]) -> str:
    """The first user message of a request: the chunk (a repair request adds its note after it)."""
    for message in body.get("messages", []):
        if message.get("role") == "user":
            return _content(message)
    return ""


def system_message(body: dict[str, Any]) -> str:
    """The system message of a request: the rules and the vault's ontology."""
    for message in body.get("messages", []):
        if message.get("role") == "system":
            return _content(message)
    return ""


def chunk_lines(user: str) -> list[tuple[int, str]]:
    """The (line number, text) of every `N| text` line of a user message."""
    found = []
    for line in user.split("\n"):
        match = _LINE.match(line)
        if match:
            found.append((int(match.group(1)), match.group(2)))
    return found


def _reference_date(user: str) -> str | None:
    match = _REFERENCE.search(user)
    return match.group(1) if match else None


def default_draft(body: dict[str, Any]) -> dict[str, Any]:
    """A valid draft for the chunk of a request: one node quoting its first non-empty line.

    Episodic (an observation dated the reference time) when the chunk has a reference time, a
    semantic fact otherwise; plus an entity for the line's first capitalized word, if any.
    """
    user = user_message(body)
    lines = [text for _, text in chunk_lines(user) if text.strip()]
    if not lines:
        return {"skip_reason": "empty chunk", "nodes": [], "entities": [], "relations": []}
    # The first line of prose: a heading alone is quoted only when the chunk has nothing else.
    first = next((text for text in lines if not text.lstrip().startswith("#")), lines[0])
    said = _SPEAKER_PREFIX.sub("", first, count=1).strip() or first.strip()
    quote = said[:80].strip()
    title = " ".join(quote.split()[:8]).strip(" .,:;!?") or "A statement"
    reference = _reference_date(user)
    node: dict[str, Any] = {
        "title": title,
        "body": said,
        "tags": ["notes/stub"],
        "confidence": "medium",
        "origin": "stated",
        "supporting_text": quote,
    }
    if reference:
        node.update(memory_layer="episodic", type="observation", timestamp=reference)
    else:
        node.update(memory_layer="semantic", type="fact")
    draft: dict[str, Any] = {"episode_name": title[:30], "nodes": [node], "entities": [], "relations": []}
    # A name, not the capital every sentence starts with.
    names = [word for word in _CAPITALIZED.findall(said.split(" ", 1)[-1]) if word not in _STOP]
    if names:
        draft["entities"] = [{"name": names[0], "entity_type": "concept", "supporting_text": names[0]}]
        node["entities"] = [names[0]]
    return draft


def completion(content: str, model: str = "stub") -> dict[str, Any]:
    """The OpenAI chat.completion object answering `content`, with a made-up usage."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
    }


# -- replies --------------------------------------------------------------------------------------


def with_draft(draft: dict[str, Any] | str, *, delay: float = 0.0, model: str = "stub") -> Reply:
    """A 200 answer whose message content is the draft (as JSON) or the given text."""
    content = draft if isinstance(draft, str) else json.dumps(draft, ensure_ascii=False)
    return Reply(body=completion(content, model), delay=delay)


def default_reply(body: dict[str, Any]) -> Reply:
    """The well-behaved model: a valid draft built from the chunk (answered as the model asked for)."""
    return with_draft(default_draft(body), model=str(body.get("model") or "stub"))


def rate_limited(retry_after: float = 0) -> Responder:
    """429 Too Many Requests with a Retry-After header."""
    error = {"error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": "rate_limit"}}
    return lambda _body: Reply(status=429, body=error, headers={"Retry-After": f"{retry_after:g}"})


def server_error(status: int = 500) -> Responder:
    """A server error (500 by default)."""
    error = {"error": {"message": "The server had an error", "type": "server_error", "code": None}}
    return lambda _body: Reply(status=status, body=error)


def slow(delay: float, then: Responder = default_reply) -> Responder:
    """Answer like `then`, but only after `delay` seconds (longer than the client timeout: a timeout)."""

    def respond(body: dict[str, Any]) -> Reply:
        reply = then(body)
        return Reply(reply.status, reply.body, reply.text, delay, reply.headers)

    return respond


def not_json(_body: dict[str, Any] | None = None) -> Reply:
    """A 200 answer whose content is prose, not JSON."""
    return with_draft("Sure! Here are the facts I found: the printer works. Let me know if you need more.")


def invalid_schema(body: dict[str, Any]) -> Reply:
    """JSON that breaks the draft schema: an episodic node without timestamp, a 0.3-confidence relation."""
    line = next((text for _, text in chunk_lines(user_message(body)) if text.strip() and text[0] != "#"), "")
    quote = _SPEAKER_PREFIX.sub("", line, count=1).strip()[:60]
    draft = {
        "nodes": [
            {
                "memory_layer": "episodic",
                "type": "observation",
                "title": "Something happened",
                "supporting_text": quote,
            }
        ],
        "entities": [{"name": "Alpha"}, {"name": "Beta"}],
        "relations": [
            {"subject": "Alpha", "predicate": "knows", "label": "knows", "object": "Beta", "confidence": 0.3}
        ],
    }
    return with_draft(draft)


def fenced(body: dict[str, Any]) -> Reply:
    """The default draft wrapped in a ```json code fence."""
    text = json.dumps(default_draft(body), ensure_ascii=False, indent=2)
    return with_draft(f"```json\n{text}\n```")


def unquoted(body: dict[str, Any]) -> Reply:
    """The default draft plus a node whose supporting_text is nowhere in the chunk."""
    draft = default_draft(body)
    invented = {
        "memory_layer": "semantic",
        "type": "fact",
        "title": "The moon is made of cheese",
        "supporting_text": "the moon is made of green cheese",
    }
    draft["nodes"] = [*draft.get("nodes", []), invented]
    return with_draft(draft)


def first_then(first: Responder, then: Responder = default_reply, *, times: int = 1) -> Responder:
    """Answer the first `times` requests with `first`, every later one with `then` (thread-safe)."""
    lock = threading.Lock()
    count = [0]

    def respond(body: dict[str, Any]) -> Reply:
        with lock:
            count[0] += 1
            early = count[0] <= times
        return first(body) if early else then(body)

    return respond


def when(
    match: Callable[[dict[str, Any]], bool], special: Responder, other: Responder = default_reply
) -> Responder:
    """Answer the requests `match` accepts with `special`, the others with `other`."""
    return lambda body: special(body) if match(body) else other(body)


def mentions(text: str) -> Callable[[dict[str, Any]], bool]:
    """A request whose chunk (user message) contains `text`."""
    return lambda body: text in user_message(body)


# -- the server -----------------------------------------------------------------------------------


class StubLLM:
    """An OpenAI-compatible server on 127.0.0.1 (ephemeral port), run as a context manager.

    `respond` may be replaced at any time (between builds); `requests` is what it received.
    """

    def __init__(self, respond: Responder = default_reply) -> None:
        self.respond = respond
        self._seen: list[Seen] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --

    def __enter__(self) -> StubLLM:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                started = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                text = (self.rfile.read(length) if length else b"").decode("utf-8", "replace")
                try:
                    body = json.loads(text or "{}")
                except ValueError:
                    body = {}
                if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                    self._send(Reply(status=404, body={"error": {"message": f"no route {self.path}"}}))
                    return
                seen = Seen(body, text, self.path, started)
                with stub._lock:
                    stub._seen.append(seen)
                try:
                    reply = stub.respond(body)
                except Exception as error:  # a broken responder is a 500, visible in the test
                    reply = Reply(status=500, body={"error": {"message": f"stub responder: {error!r}"}})
                if reply.delay:
                    time.sleep(reply.delay)
                with contextlib.suppress(OSError):  # the client gave up (a timeout): nobody to answer
                    self._send(reply)
                seen.finished = time.monotonic()

            def do_GET(self) -> None:
                self._send(Reply(status=404, body={"error": {"message": "stub serves POST only"}}))

            def _send(self, reply: Reply) -> None:
                if reply.text is not None:
                    data = reply.text.encode("utf-8")
                    kind = "text/plain; charset=utf-8"
                else:
                    data = json.dumps(reply.body if reply.body is not None else {}).encode("utf-8")
                    kind = "application/json"
                self.send_response(reply.status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="stub-llm", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # -- what tests read --

    @property
    def port(self) -> int:
        assert self._server is not None, "the stub is not running"
        return int(self._server.server_address[1])

    @property
    def api_base(self) -> str:
        """The `--api-base` that reaches this stub."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def seen(self) -> list[Seen]:
        """Every request received so far, in the order they arrived (answered or not yet)."""
        with self._lock:
            return list(self._seen)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The body of every request so far."""
        return [s.body for s in self.seen]

    def user_messages(self) -> list[str]:
        return [user_message(body) for body in self.requests]

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()

    def raw_bodies(self) -> Iterator[str]:
        """Every request body as received, for searching for text that must not have been sent."""
        for seen in self.seen:
            yield seen.raw

    def max_concurrency(self) -> int:
        """The most requests the stub was handling at one moment (those still open count as open)."""
        seen = self.seen
        now = time.monotonic()
        events = sorted(
            [(s.started, 1) for s in seen]
            + [(s.finished if s.finished is not None else now, -1) for s in seen],
            key=lambda event: (event[0], event[1]),
        )
        most = current = 0
        for _, step in events:
            current += step
            most = max(most, current)
        return most
