"""The prompt of one draft: a few related operations, their schemas compacted, within a token bound.

A real spec does not fit one prompt (Twilio's whole schemas are ~100k tokens, Discord's ~409k), and a task uses one
to three operations anyway. So each draft is offered a batch: a seed operation, taken round-robin over the spec
(the operations not offered yet first, so ``n`` drafts cover ``n`` seeds), and the operations related to it —
``search``: ranked by BM25 over names and descriptions with the seed's text as the query (the tool-search stressor's
lexical index); ``tag``: sharing the seed's first tag; ``spec``: its neighbours in spec order. Operations join in
that order while the prompt stays under ``max_tokens`` (counted with the caller's tokenizer: the CLI passes
tiktoken's) and the batch under ``max_operations``; the seed is shortened (no known responses, then only its
signature) rather than left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sim.core import ChatMessage
from worlds.simulated.canonical import canonical_json
from worlds.simulated.operations import ApiOperation
from worlds.stressors.search.index import LexicalRanker

CountTokens = Callable[[str], int]
Grouping = Literal["search", "tag", "spec"]
GROUPINGS: tuple[Grouping, ...] = ("search", "tag", "spec")
DOC_CHARS = 200
PARAM_DOC_CHARS = 60
ENUM_SHOWN = 8
SKETCH_DEPTH = 3
EXAMPLE_CHARS = 400
EXAMPLES_PER_OPERATION = 2
EARLIER_CHARS = 160
PER_MESSAGE = 4
"""Tokens a chat message costs beyond its text, and 3 priming the reply: OpenAI's published approximation, as
``sim.llm.tokens.count_messages`` counts it."""

SYSTEM = """\
You write test tasks for an AI assistant that uses the API "{title}". Each task is one realistic request a user of \
the service would make, and the exact API calls that fulfil it.
Answer with one JSON object and nothing else:
{{"request": "<what the user says, naming every value the calls need>", \
"calls": [{{"name": "<operation>", "arguments": {{...}}}}], \
"answer": <the exact value(s) the reply must give, copied from the calls' responses: a string, a number or a list \
of them; null when the request only asks for a change>}}
Use only the operations listed, with arguments that fit their schemas (* marks a required argument); leave out \
optional arguments the request does not need; refer to ids that appear in the known responses where you can."""


class PromptBoundTooSmall(ValueError):
    """The token bound cannot hold the instructions and one operation at its shortest."""


def sketch(schema: Any, depth: int = 0) -> str:
    """A JSON schema in a few words: ``{id*: string, tags: [string], kind: one of a|b}``."""
    if not isinstance(schema, Mapping):
        return "any"
    if "enum" in schema and isinstance(schema["enum"], Sequence):
        values = [canonical_json(v) if not isinstance(v, str) else v for v in schema["enum"]]
        more = "|…" if len(values) > ENUM_SHOWN else ""
        return "one of " + "|".join(values[:ENUM_SHOWN]) + more
    if "const" in schema:
        return f"= {canonical_json(schema['const'])}"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), Sequence):
            return " | ".join(sketch(s, depth) for s in schema[key][:4])
    kind = schema.get("type")
    text = "|".join(map(str, kind)) if isinstance(kind, list) else str(kind or "any")
    if "format" in schema:
        text += f"({schema['format']})"
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and properties:
        if depth >= SKETCH_DEPTH:
            return "object"
        required = set(schema.get("required") or ())
        inner = ", ".join(f"{k}{'*' if k in required else ''}: {sketch(v, depth + 1)}" for k, v in properties.items())
        return "{" + inner + "}"
    if isinstance(schema.get("items"), Mapping):
        return "[" + (sketch(schema["items"], depth + 1) if depth < SKETCH_DEPTH else "any") + "]"
    if "default" in schema:
        text += f" = {canonical_json(schema['default'])}"
    return text


def arguments_line(operation: ApiOperation) -> str:
    """The operation's arguments, one ``name*: sketch "doc"`` each, ``;``-separated."""
    properties = operation.parameters.get("properties") or {}
    required = set(operation.parameters.get("required") or ())
    parts = []
    for name, schema in properties.items():
        doc = str(schema.get("description", "")) if isinstance(schema, Mapping) else ""
        note = f' "{doc[:PARAM_DOC_CHARS]}"' if doc else ""
        parts.append(f"{name}{'*' if name in required else ''}: {sketch(schema, 1)}{note}")
    return "; ".join(parts) or "none"


def operation_text(operation: ApiOperation, known: Sequence[tuple[Any, Any]], detail: int) -> str:
    """The operation as the prompt shows it: detail 2 with known responses, 1 without, 0 its signature only."""
    doc = " ".join((operation.description or operation.summary).split())
    lines = [f"- {operation.name} ({operation.method.upper()} {operation.path}): {doc[: DOC_CHARS if detail else 80]}"]
    line = arguments_line(operation)
    lines.append(f"  arguments: {line if detail else line[:EXAMPLE_CHARS]}")
    for arguments, response in known[:EXAMPLES_PER_OPERATION] if detail == 2 else ():
        text = f"{canonical_json(arguments)} -> {canonical_json(response)}"
        lines.append(f"  known response: {text[:EXAMPLE_CHARS]}{' …(cut)' if len(text) > EXAMPLE_CHARS else ''}")
    return "\n".join(lines)


@dataclass
class OperationBatches:
    """Picks each draft's operations: seeds round-robin over the spec, related operations by ``grouping``."""

    operations: Sequence[ApiOperation]
    grouping: Grouping = "search"
    offered: set[int] = field(default_factory=set)
    _turn: int = field(default=0, init=False)
    _ranker: LexicalRanker | None = field(default=None, init=False)

    def related(self, seed: int) -> list[int]:
        """Every operation in the order it may join the seed's batch, the seed first."""
        count = len(self.operations)
        ring = [(seed + k) % count for k in range(count)]
        if self.grouping == "spec":
            return ring
        if self.grouping == "tag":
            tags = self.operations[seed].tags
            if tags:
                return [i for i in ring if tags[0] in self.operations[i].tags]
        if self._ranker is None:
            self._ranker = LexicalRanker.build([_search_text(op) for op in self.operations])
        ranked = [i for i, score in self._ranker.rank(_search_text(self.operations[seed]), count) if score > 0]
        return [seed, *(i for i in ranked if i != seed)]

    def next_seed(self) -> int:
        """The first operation (from where the last seed was) not offered yet; once all were, the next in turn."""
        count = len(self.operations)
        start = self._turn
        fresh = next((i for i in ((start + k) % count for k in range(count)) if i not in self.offered), start % count)
        self._turn = fresh + 1
        return fresh


def _search_text(operation: ApiOperation) -> str:
    return f"{operation.name} {' '.join(operation.tags)} {operation.summary or operation.description[:DOC_CHARS]}"


def prompt_tokens(messages: Sequence[ChatMessage], count: CountTokens) -> int:
    return sum(count(m.content or "") + PER_MESSAGE for m in messages) + 3


@dataclass(frozen=True)
class DraftPrompt:
    messages: list[ChatMessage]
    operations: tuple[str, ...]
    """The operations offered, by name, seed first."""
    tokens: int


def build_prompt(
    title: str,
    batches: OperationBatches,
    known: Callable[[str], Sequence[tuple[Any, Any]]],
    earlier: Sequence[str],
    number: int,
    total: int,
    count: CountTokens,
    max_tokens: int,
    max_operations: int,
) -> DraftPrompt:
    """Draft ``number``'s messages, under ``max_tokens``. Raises PromptBoundTooSmall when not even the seed's
    signature fits."""
    system = ChatMessage(role="system", content=SYSTEM.format(title=title))
    tail = ["", f"Write task {number + 1} of {total}."]
    shown_earlier = [f"- {text[:EARLIER_CHARS]}" for text in earlier]
    while shown_earlier and _tokens(system, [], shown_earlier, tail, count) > max_tokens // 2:
        shown_earlier = shown_earlier[1:]  # the latest drafts matter most to avoid repeating
    if shown_earlier:
        tail = ["", "Tasks written already (write a different one):", *shown_earlier, *tail]
    seed = batches.next_seed()
    base = _tokens(system, [], [], tail, count)
    used, blocks, chosen = base, [], []
    for index in batches.related(seed)[:max_operations]:
        operation = batches.operations[index]
        for detail in (2, 1, 0) if index == seed else (2, 1):
            text = operation_text(operation, known(operation.name), detail)
            cost = count(text) + 1  # and its newline; the whole is counted again below
            if used + cost <= max_tokens:
                used += cost
                blocks.append(text)
                chosen.append(index)
                break
        else:  # too long beside the rest: left out (a shorter related one may still fit), unless it is the seed
            if index == seed:
                raise PromptBoundTooSmall(
                    f"--max-prompt-tokens {max_tokens} is too small: the instructions take {base} tokens and "
                    f"operation {operation.name} at its shortest does not fit beside them"
                )
    messages = _messages(system, blocks, tail)
    while (tokens := prompt_tokens(messages, count)) > max_tokens and len(blocks) > 1:
        blocks.pop()  # tokens merged across a join: rare, and one operation fewer always settles it
        chosen.pop()
        messages = _messages(system, blocks, tail)
    if tokens > max_tokens:
        raise PromptBoundTooSmall(
            f"--max-prompt-tokens {max_tokens} is too small for even one operation ({tokens} tokens)"
        )
    batches.offered.update(chosen)
    return DraftPrompt(messages, tuple(batches.operations[i].name for i in chosen), tokens)


def _messages(system: ChatMessage, blocks: Sequence[str], tail: Sequence[str]) -> list[ChatMessage]:
    return [system, ChatMessage(role="user", content="\n".join(["Operations:", *blocks, *tail]))]


def _tokens(
    system: ChatMessage, blocks: Sequence[str], earlier: Sequence[str], tail: Sequence[str], count: CountTokens
) -> int:
    return prompt_tokens(_messages(system, blocks, [*earlier, *tail]), count)
