"""The reference study's tag protocol: ``<API_CALL>{"api": NAME, "params": {...}}</API_CALL>`` or ``<End of Turn>``.

A ``text:`` agent run with ``--text-protocol tags`` is taught this format instead of ReAct. Each step is one of:

- one call, ``<API_CALL>{"api": "set_light", "params": {"room": "kitchen"}}</API_CALL>``; its result comes
  back as ``<API_RESULT>...</API_RESULT>``;
- a reply to the user that ends with ``<End of Turn>``, which ends the agent's turn.

The parser (``text_parse``) reads both protocols whatever the prompt taught: the call JSON may name the tool under
``api``/``name``/``function``/``tool``/``api_name`` and the arguments under ``params``/``parameters``/
``arguments``/``args``. Without an arguments key, the other keys beside the name are the arguments
(``{"api": "list_rooms"}`` has none); with neither a name nor arguments the step is a ``no_action`` error naming
the keys it found.

Mixed replies (a rule, never silent): a reply that holds a call *and* ``<End of Turn>`` runs the call and the
turn goes on; the ``<End of Turn>`` is ignored, the model is told so beside the result, and the agent records
an agent fault ``agent:mixed_call_and_end`` in the trace. Why the call wins: the model cannot have seen the
result it would be answering with, so ending the turn would answer the user blind. The same holds in the
ReAct style. A marker inside an argument value is content, not a mix.

A reply with ``<End of Turn>`` and no call is a final answer: the text before the marker (text after it is
dropped, with a note). A reply with neither is a final answer too (the marker forgotten).
"""

from __future__ import annotations

import json
import re
from types import MappingProxyType
from typing import Any

from sim.agents.text_calls import Action, FinalAnswer, ParseError, Step

END_OF_TURN = "<End of Turn>"
END_OF_TURN_RE = re.compile(r"<\|?[ \t]*end[ \t_-]*of[ \t_-]*turn[ \t]*\|?>", re.IGNORECASE)
"""``<End of Turn>`` as models write it: any case, spaces, underscores or dashes, ``<|end_of_turn|>``."""
MIXED_CALL_AND_END = "mixed_call_and_end"
MIXED_NOTE = (
    f"{END_OF_TURN} in the same reply as a call was ignored: the call ran and your turn goes on. "
    f"Read the result, then reply to the user in a separate message that ends with {END_OF_TURN}."
)
RESULT_OPEN, RESULT_CLOSE = "<API_RESULT>", "</API_RESULT>"
STOP = (RESULT_OPEN,)
"""Stop before the model invents its own result."""

FORMAT = f"""\
To call an API, write exactly one call and then stop (a short thought before it is fine):
<API_CALL>{{"api": "<the API name>", "params": {{<the arguments as one JSON object>}}}}</API_CALL>

The API's result then comes back to you as:
{RESULT_OPEN}<the result as JSON>{RESULT_CLOSE}

When you are done, need something from the user, or cannot go on, write your reply to the user and end it with
{END_OF_TURN}

Rules:
- One <API_CALL> per reply. Never write an {RESULT_OPEN} yourself.
- "api" is exactly one API name from the list; "params" is one JSON object ({{}} if there are none):
  double-quoted keys and strings, true/false/null.
- Never write {END_OF_TURN} in a reply that has an <API_CALL>: the call runs, {END_OF_TURN} is ignored and
  counted as a protocol error. Wait for the result, then reply."""

NO_TOOLS = f"No APIs are available in this conversation: always reply to the user, ending with {END_OF_TURN}."
RETRY = (
    "Reply again with exactly one of:\n"
    '<API_CALL>{"api": "<one API name>", "params": {"argument": "value"}}</API_CALL>\n'
    f"or, to reply to the user:\n<your reply> {END_OF_TURN}"
)
HINTS = MappingProxyType(
    {
        "unknown_tool": "Use one of the API names listed below, spelled exactly.",
        "bad_arguments": '"params" must be one JSON object with double-quoted keys: {"key": "value", "n": 3}.',
        "no_action": f"Every reply must be either one <API_CALL>...</API_CALL> or a reply ending with {END_OF_TURN}.",
        "empty": f"Every reply must be either one <API_CALL>...</API_CALL> or a reply ending with {END_OF_TURN}.",
        "empty_answer": f"Write your reply to the user before {END_OF_TURN}.",
    }
)


def apply_end_of_turn(step: Step, body: str) -> Step:
    """The mixed-reply rule (module docstring) for a step parsed from the reply ``body``."""
    if isinstance(step, Action):
        # A marker inside an argument value is content (a message that quotes it), not the model ending its turn.
        in_arguments = len(END_OF_TURN_RE.findall(json.dumps(step.arguments, ensure_ascii=False)))
        if len(END_OF_TURN_RE.findall(body)) <= in_arguments:
            return step
        thought = END_OF_TURN_RE.sub("", step.thought or "").strip() or None
        update = {"end_of_turn_ignored": True, "thought": thought, "notes": (*step.notes, MIXED_NOTE)}
        return step.model_copy(update=update)
    if isinstance(step, FinalAnswer) and END_OF_TURN_RE.search(step.text):
        answer, after = split_at_end_of_turn(step.text)
        if not answer and not after:
            return ParseError(code="empty_answer", message=f"The reply before {END_OF_TURN} was empty.")
        note = (f"Text after {END_OF_TURN} was ignored.",) if answer and after else ()
        return step.model_copy(update={"text": answer or after, "notes": (*step.notes, *note)})
    return step


def split_at_end_of_turn(text: str) -> tuple[str, str]:
    """The text before the first marker (the answer) and what follows it, markers removed."""
    parts = END_OF_TURN_RE.split(text, maxsplit=1)
    after = END_OF_TURN_RE.sub("", parts[1]).strip() if len(parts) > 1 else ""
    return parts[0].strip(), after


def render_call(name: str, arguments: dict[str, Any]) -> str:
    body = json.dumps({"api": name, "params": arguments}, ensure_ascii=False)
    return f"<API_CALL>{body}</API_CALL>"


def render_result(body: str) -> str:
    return f"{RESULT_OPEN}{body}{RESULT_CLOSE}"
