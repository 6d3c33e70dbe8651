"""The user's own tools in the account desk: its phone (dual control). The agent never calls these."""

from __future__ import annotations

from typing import Any

from worlds.common.toolbook import action, lookup
from worlds.domains.account_unlock.tools import DeskState


@lookup("Read the text messages on your phone.")
def read_messages(state: DeskState) -> Any:
    return list(state.inbox) or "No messages."


@action("Enroll your phone in the bank's authenticator app.")
def enroll_authenticator(state: DeskState) -> Any:
    state.authenticator = True
    return "The authenticator app is enrolled on this phone."
