"""The ids squall makes up for tool calls: for a call a provider sent without one, a call of a text or scripted
agent, and the gold calls an isolated setup replays into the history a model is shown.

A provider's own ids are kept verbatim (in the trace and in the history sent back to it); an id squall invents must
be one that every major provider accepts when it comes back in a later request: Mistral requires exactly 9 letters
and digits (``[a-zA-Z0-9]{9}``), Anthropic ``[a-zA-Z0-9_-]+``, OpenAI at most 40 characters. So an invented id is
exactly 9 ASCII letters and digits: a 4-letter prefix (``call``, ``gold``) and the number, 5 decimal digits
(``call00000`` ... ``call99999``); past 99,999 the prefix's first letter and 8 base-36 digits (``c0000255s``).
"""

from __future__ import annotations

import string

CALL_ID_LENGTH = 9
_BASE36 = string.digits + string.ascii_lowercase


def invented_call_id(number: int, prefix: str = "call") -> str:
    """The ``number``-th (0-based) invented id with ``prefix`` (4 letters): 9 letters and digits."""
    digits = CALL_ID_LENGTH - len(prefix)
    if number < 10**digits:
        return f"{prefix}{number:0{digits}d}"
    out = ""
    while number:
        number, digit = divmod(number, 36)
        out = _BASE36[digit] + out
    return prefix[0] + out.rjust(CALL_ID_LENGTH - 1, "0")[-(CALL_ID_LENGTH - 1) :]
