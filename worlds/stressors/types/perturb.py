"""Query perturbations: the user asks for the same thing in noisier words, and every value survives.

Real users are polite or terse, tell side stories, type in odd case and forget punctuation; an agent should
still find the same calls. ``on_task`` rewrites every rendering a user simulator may pick (explicit,
coreferential, paraphrases) and leaves the gold alone, so the same gold scores. Values are protected: the spans
of the original text that are gold argument values (strings, numbers; case-insensitive), the ``refers_to`` name,
and name-like tokens (a digit, or a capital not opening a sentence) are never changed by any operator.

Row params: ``op`` (a key of ``OPERATORS``), ``intensity`` (chance each eligible site is changed) and for
``distractor`` ``stories`` (how many irrelevant sentences to prepend). The randomness comes from the stressor's
seed and the task id, so ``on_task`` is a pure function of them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sim.core import Task
from worlds.stressors.copies import copies
from worlds.stressors.paraphrases import Written, load_written
from worlds.stressors.protect import PRONOUNS, Mask, goal_values, protected_mask, usable
from worlds.stressors.scenario import Scenario, ScenarioStressor

SYNONYMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("turn on", ("switch on",)),
    ("switch on", ("turn on",)),
    ("turn off", ("switch off",)),
    ("switch off", ("turn off",)),
    ("set a", ("create a", "make a")),
    ("show me", ("let me see", "list")),
    ("list", ("show me",)),
    ("tell me", ("let me know",)),
    ("what's", ("what is",)),
    ("what is", ("what's",)),
    ("can you", ("could you", "would you")),
    ("i want", ("i'd like",)),
    ("find me", ("look up",)),
    ("cancel", ("call off",)),
    ("check", ("look at",)),
)
"""Meaning-preserving swaps of everyday request verbs; matched as whole words, initial capital kept."""
PREFIXES = ("Hi! ", "Hello there. ", "Quick request: ", "If you don't mind: ", "Hey, ")
SUFFIXES = (" Thanks!", " Thank you so much.", " Cheers.", " I'd really appreciate it.", " Thanks in advance.")
STORIES = (
    "My sister visited last weekend and we talked about her garden.",
    "I just got back from a long walk with the dog.",
    "The people next door are painting their fence again.",
    "I've been trying to learn to bake bread lately.",
    "My cousin keeps sending me photos of his new kitchen.",
    "It rained all morning so I stayed in and read.",
)
"""Irrelevant openers: no names, numbers or anything a tool could take as an argument."""
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def _free(mask: Mask, start: int, end: int) -> bool:
    return not any(mask[start:end])


def _paraphrase(text: str, mask: Mask, rng: random.Random, p: Mapping[str, Any]) -> str:
    intensity = float(p.get("intensity", 1.0))
    edits: list[tuple[int, int, str]] = []
    taken = [False] * len(text)
    for phrase, options in SYNONYMS:
        for m in re.finditer(rf"\b{re.escape(phrase)}\b", text, flags=re.IGNORECASE):
            if not _free(mask, m.start(), m.end()) or any(taken[m.start() : m.end()]):
                continue
            if rng.random() >= intensity:
                continue
            new = rng.choice(options)
            if m.group()[0].isupper():
                new = new[0].upper() + new[1:]
            edits.append((m.start(), m.end(), new))
            taken[m.start() : m.end()] = [True] * (m.end() - m.start())
    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    if rng.random() < 0.5:
        return rng.choice(PREFIXES) + out
    return out.rstrip() + rng.choice(SUFFIXES)


def _distractor(text: str, mask: Mask, rng: random.Random, p: Mapping[str, Any]) -> str:
    count = max(1, min(int(p.get("stories", 1)), len(STORIES)))
    story = " ".join(rng.sample(STORIES, count))
    first = text[:1]
    if first and not mask[0] and not text.startswith(tuple(f"{w} " for w in PRONOUNS)):
        first = first.lower()
    return f"{story} Anyway, {first}{text[1:]}"


def _case_mix(text: str, mask: Mask, rng: random.Random, p: Mapping[str, Any]) -> str:
    intensity = float(p.get("intensity", 0.5))
    chars = list(text)
    words = [m for m in _WORD.finditer(text) if _free(mask, m.start(), m.end())]
    changed = False
    for m in words:
        if rng.random() >= intensity:
            continue
        word = m.group()
        style = rng.choice(("upper", "lower", "title", "random"))
        if style == "upper":
            new = word.upper()
        elif style == "lower":
            new = word.lower()
        elif style == "title":
            new = word.title()
        else:
            new = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word)
        if new == word:
            new = word.swapcase()
        chars[m.start() : m.end()] = list(new)
        changed = changed or new != word
    if not changed and words:
        m = rng.choice(words)
        chars[m.start() : m.end()] = list(m.group().swapcase())
    return "".join(chars)


def _punctuation_noise(text: str, mask: Mask, rng: random.Random, p: Mapping[str, Any]) -> str:
    intensity = float(p.get("intensity", 0.5))
    out: list[str] = []
    for i, c in enumerate(text):
        if mask[i] or rng.random() >= intensity:
            out.append(c)
        elif c in ".,!?;:" and (i + 1 == len(text) or text[i + 1] == " "):
            out.append(rng.choice(("", c + c, c + c + c, "!" if c in ".?" else c)))
        elif c == " " and 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha():
            out.append(rng.choice(("  ", ", ", "   ")))
        else:
            out.append(c)
    noisy = "".join(out)
    return noisy if noisy != text else text + rng.choice(("..", "!!", " ?"))


OPERATORS: dict[str, Callable[[str, Mask, random.Random, Mapping[str, Any]], str]] = {
    "paraphrase_rules": _paraphrase,
    "distractor": _distractor,
    "case_mix": _case_mix,
    "punctuation_noise": _punctuation_noise,
}


WRITTEN = "paraphrase_written"
"""The op that picks a wording written beforehand (``worlds.stressors.paraphrases``) instead of rewriting."""


class Perturb(ScenarioStressor):
    """Rewrites what the user says with one operator; gold and tools are left alone."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        op = self.params.get("op")
        self.written: Written | None = None
        if op == WRITTEN:
            self.written = load_written(Path(self.params["file"])) if self.params.get("file") else {}
        elif op not in OPERATORS:
            raise ValueError(f"{self.name}: op must be one of {', '.join([*OPERATORS, WRITTEN])}, got {op!r}")
        self.operator = OPERATORS.get(op, _paraphrase)
        self.base = self.rng.getrandbits(64)

    def perturb(self, text: str, values: list[str], rng: random.Random) -> str:
        return self.operator(text, protected_mask(text, values), rng, self.params)

    def on_task(self, task: Task) -> Task:
        rng = random.Random(f"{self.base}:{task.id}")  # the same task always gets the same wording
        goals = []
        for index, goal in enumerate(task.goals):
            intent = goal.user
            if self.written is not None:
                # Another wording written beforehand (by a model, or the task's own), if one keeps every value and
                # is no copy of the request (a file written before copies were refused may hold some).
                written = self.written.get((task.id, index), intent.paraphrases)
                options = usable(goal, [w for w in written if not copies(intent.explicit, w)])
                chosen = rng.choice(options) if options else intent.explicit
                goals.append(goal.model_copy(update={"user": intent.model_copy(update={"explicit": chosen})}))
                continue
            values = goal_values(goal)
            user = intent.model_copy(  # what the intent says beside its wordings (refers_to, withheld) is kept
                update={
                    "explicit": self.perturb(intent.explicit, values, rng),
                    "coreferential": None
                    if intent.coreferential is None
                    else self.perturb(intent.coreferential, values, rng),
                    "paraphrases": [self.perturb(p, values, rng) for p in intent.paraphrases],
                }
            )
            goals.append(goal.model_copy(update={"user": user}))
        return task.model_copy(update={"goals": goals})

    @classmethod
    def affected_goals(cls, task: Task, scenario: Scenario) -> list[int]:
        """Every goal for a rewriting operator; for written wordings, only the goals that got one (the others keep
        their own words: no reworded goal to measure). Whether a goal gets one does not depend on the seed."""
        if scenario.params.get("op") != WRITTEN:
            return list(range(len(task.goals)))
        stressed = cls(scenario, 0).on_task(task)
        return [g for g, (a, b) in enumerate(zip(task.goals, stressed.goals, strict=True)) if a.user != b.user]


STRESSOR = Perturb
