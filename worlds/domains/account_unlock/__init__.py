"""``account_unlock``: a small bank desk whose user holds tools of its own (dual control), outside τ².

The agent unlocks accounts and turns on two-factor sign-in; what it needs to do so is on the user's phone (the
unlock code texted to it, the authenticator app enrolled on it), which only the user can act on: the world gives
the user ``read_messages`` and ``enroll_authenticator`` (``sim.core.DualControlWorld``). The task state holds both
sides, so the state judge sees what the user did, and the gold of each task places the user's acts among the
agent's calls (``Goal.user_gold``).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from sim.core import Goal, GoldCall, Task, ToolCall, ToolResult, ToolSpec, UserGoldCall, UserIntent, WorldContext
from sim.core.task_state import changed, flatten
from worlds.common.toolbook import ToolBook, Toolkit
from worlds.domains.account_unlock import phone, tools
from worlds.domains.account_unlock.tools import DeskState, unlock_code

WORLD_NAME = "account_unlock"
ACCOUNTS: dict[str, dict[str, Any]] = {
    "alice": {"locked": True, "two_factor": False},
    "bob": {"locked": False, "two_factor": False},
}
INSTRUCTIONS = (
    "You are the bank's account desk. You cannot see the customer's phone: when something is on it (a code you "
    "texted) or must be done on it (enrolling the authenticator app), ask the customer to do it and tell you what "
    "it shows."
)
AGENT_TOOLS = Toolkit([ToolBook.collect(WORLD_NAME, [tools])])
USER_TOOLS = Toolkit([ToolBook.collect(f"{WORLD_NAME}:phone", [phone])])


def builtin_tasks() -> list[Task]:
    """Two tasks, one per shape of dual control: agent-user-agent, and user-agent."""
    unlock = Goal(
        user=UserIntent(explicit="My account alice is locked, please unlock it."),
        gold=[
            GoldCall(name="send_unlock_code", arguments={"username": "alice"}),
            GoldCall(name="unlock_account", arguments={"username": "alice", "code": unlock_code("alice")}),
        ],
        user_gold=[UserGoldCall(name="read_messages", after=1)],
        gold_answer="unlocked",
    )
    two_factor = Goal(
        user=UserIntent(explicit="Please turn on two-factor sign-in for my account bob."),
        gold=[GoldCall(name="enable_two_factor", arguments={"username": "bob"})],
        user_gold=[UserGoldCall(name="enroll_authenticator", after=0)],
        gold_answer="two-factor",
    )
    return [
        Task(id="unlock_alice", world=WORLD_NAME, description="The code is on the user's phone.", goals=[unlock]),
        Task(id="two_factor_bob", world=WORLD_NAME, description="The app must be enrolled first.", goals=[two_factor]),
    ]


class AccountUnlockWorld:
    """One episode's accounts and the user's phone. Deterministic: no clock, no randomness."""

    name = WORLD_NAME

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.state = DeskState(accounts=copy.deepcopy(ACCOUNTS))

    def specs(self) -> list[ToolSpec]:
        return list(AGENT_TOOLS.specs)

    def instructions(self) -> str:
        return INSTRUCTIONS

    async def call(self, call: ToolCall) -> ToolResult:
        return AGENT_TOOLS.run(self.state, call)

    def user_specs(self) -> list[ToolSpec]:
        return list(USER_TOOLS.specs)

    async def user_call(self, call: ToolCall) -> ToolResult:
        return USER_TOOLS.run(self.state, call)

    def snapshot(self) -> Any:
        return {"accounts": self.state.accounts, "phone": self._phone()}

    def restore(self, snapshot: Any) -> None:
        phone_state = snapshot["phone"]
        self.state = DeskState(
            accounts=copy.deepcopy(snapshot["accounts"]),
            inbox=list(phone_state["inbox"]),
            authenticator=phone_state["authenticator"],
        )

    def state_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.snapshot(), sort_keys=True).encode()).hexdigest()[:16]

    def task_state(self) -> dict[str, Any]:
        """Both sides' changes: the accounts (the agent's) and the phone (the user's)."""
        base = flatten({"accounts": ACCOUNTS, "phone": {"inbox": [], "authenticator": False}})
        return changed(base, flatten(copy.deepcopy(self.snapshot())))

    def _phone(self) -> dict[str, Any]:
        return {"inbox": list(self.state.inbox), "authenticator": self.state.authenticator}


class AccountUnlockPack:
    """Serves the built-in tasks, or any given tasks over the same accounts."""

    name = WORLD_NAME
    same_world_every_seed = True

    def __init__(self, tasks: Sequence[Task] | None = None) -> None:
        self._tasks = tuple(tasks) if tasks is not None else tuple(builtin_tasks())

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(AGENT_TOOLS.specs)

    def new_world(self, seed: int, context: WorldContext | None = None) -> AccountUnlockWorld:
        return AccountUnlockWorld(seed)
