"""The account desk's agent tools (the bank's side) and the state both sides act on.

The agent can send an unlock code but never read it: the code arrives on the user's phone, and only the user's
``read_messages`` (``phone``) shows it. Two-factor sign-in can be turned on only once the user's phone has enrolled the
authenticator app, which only the user can do. So every task needs the agent and the user to act together.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.toolbook import action, lookup, string

USERNAME = string("The account's username, such as 'alice'.")


@dataclass
class DeskState:
    """One episode's accounts (the agent's side) and the user's phone (the user's side)."""

    accounts: dict[str, dict[str, Any]]
    inbox: list[str] = field(default_factory=list)
    """Text messages on the user's phone, oldest first."""
    authenticator: bool = False
    """The user's phone has enrolled the authenticator app."""


def unlock_code(username: str) -> str:
    """The code the desk sends for an account: fixed per account (so a task's gold can name it), never shown to
    the agent."""
    return str(int(hashlib.sha256(f"unlock:{username}".encode()).hexdigest(), 16) % 900_000 + 100_000)


def _account(state: DeskState, username: str) -> dict[str, Any]:
    found = state.accounts.get(username)
    if found is None:
        raise ToolError("not_found", "not_found", f"No account named '{username}'")
    return found


# --- the agent's tools -------------------------------------------------------------------------------------------


@lookup("Look up an account: whether it is locked and whether two-factor sign-in is on.", username=USERNAME)
def get_account(state: DeskState, username: str) -> Any:
    account = _account(state, username)
    return {"username": username, "locked": account["locked"], "two_factor": account["two_factor"]}


@action("Text a one-time unlock code to the phone on file for a locked account.", username=USERNAME)
def send_unlock_code(state: DeskState, username: str) -> Any:
    account = _account(state, username)
    if not account["locked"]:
        raise ToolError("failed", "not_locked", f"Account '{username}' is not locked")
    account["code_sent"] = True
    state.inbox.append(f"Your unlock code for {username} is {unlock_code(username)}")
    return "A code was texted to the phone on file. Ask the user to read it to you."


@action(
    "Unlock an account with the code the user read from their phone.",
    username=USERNAME,
    code=string("The six-digit code the user read out."),
)
def unlock_account(state: DeskState, username: str, code: str) -> Any:
    account = _account(state, username)
    if not account.get("code_sent"):
        raise ToolError("failed", "no_code_sent", "Send an unlock code first")
    if code.strip() != unlock_code(username):
        raise ToolError("failed", "wrong_code", "The code does not match")
    account.update(locked=False, code_sent=False)
    return f"Account '{username}' is unlocked."


@action("Turn on two-factor sign-in; the user's phone must have enrolled the authenticator app.", username=USERNAME)
def enable_two_factor(state: DeskState, username: str) -> Any:
    account = _account(state, username)
    if not state.authenticator:
        raise ToolError("failed", "not_enrolled", "The user's phone has not enrolled the authenticator app yet")
    account["two_factor"] = True
    return f"Two-factor sign-in is on for '{username}'."
