"""τ²'s telecom as a dual-control world: the agent's database and the user's phone, kept in step.

The agent acts on the carrier's database (``worlds.tau2.telecom_tools``), the user on its phone
(``worlds.tau2.telecom_user_tools``: ``sim.core.DualControlWorld``). What one side does reaches the other as τ²'s
environment syncs it, before every call on either side and before the checks: the line's status, roaming and data
allowance decide what the phone can do; a bill the agent asks payment for appears on the phone, and once the user
pays it the bill is paid in the database. A task's environment assertions are checked on the final state
(``sim.core.CheckingWorld``), for the ``tau2_reward`` judge.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from sim.core import ToolCall, ToolResult, ToolSpec, WorldCheck
from sim.core.task_state import changed, flatten
from worlds.common.toolbook import Toolkit
from worlds.tau2.database import Database, Tables
from worlds.tau2.source import Tau2Error
from worlds.tau2.telecom_phone import Phone
from worlds.tau2.telecom_setup import AGENT_CHECKS, AGENT_SETUP, USER_CHECKS, USER_SETUP
from worlds.tau2.telecom_tools import awaiting_payment, get_customer_by_phone
from worlds.tau2.world import Tau2World, detached


def sync(db: Database, phone: Phone) -> None:
    """τ²'s environment sync: the phone's surroundings from the user's line, and a payment request either way."""
    number = phone.around["phone_number"]
    if number is None:
        return
    line = next((row for _, row in db.rows("lines") if row["phone_number"] == number), None)
    if line is None:
        raise Tau2Error(f"telecom: no line has the user's phone number {number}")
    plan = db.row("plans", line["plan_id"])
    if plan is None:
        raise Tau2Error(f"telecom: line {line['line_id']} names an unknown plan {line['plan_id']}")
    around = phone.around
    around["line_active"] = line["status"] == "Active"
    around["roaming_allowed"] = bool(line["roaming_enabled"])
    around["mobile_data_usage_exceeded"] = line["data_used_gb"] >= plan["data_limit_gb"] + line["data_refueling_gb"]
    request = around["payment_request"]
    if request is not None and request["paid"]:
        db.edit("bills", request["bill_id"])["status"] = "Paid"
        around["payment_request"] = None
    if around["payment_request"] is None:
        waiting = awaiting_payment(db, get_customer_by_phone(db, number))
        if waiting:
            around["payment_request"] = {"bill_id": waiting[0]["bill_id"], "amount_due": waiting[0]["total_due"],
                                         "paid": False}  # fmt: skip


def initial_sides(base: Tables, phone: Mapping[str, Any], actions: Sequence[Mapping[str, Any]]) -> tuple[Tables, Any]:
    """The database and phone a task starts from: its initialization actions run in order on their side, each
    followed by a sync. Raises Tau2Error naming an action squall does not know or one that fails."""
    db, device = Database(base), Phone(dict(phone))
    sync(db, device)
    for action in actions:
        name, arguments = action["func_name"], dict(action.get("arguments") or {})
        side, functions = (device, USER_SETUP) if action.get("env_type") == "user" else (db, AGENT_SETUP)
        if name not in functions:
            raise Tau2Error(f"telecom: unknown initialization action {name} ({action.get('env_type')})")
        try:
            functions[name](side, **arguments)
        except Exception as error:
            raise Tau2Error(f"telecom: initialization action {name}({arguments}) failed: {error}") from error
        sync(db, device)
    return db.frozen(), device.data


class TelecomWorld(Tau2World):
    """One episode: the carrier's database (the agent's side) and the user's phone."""

    def __init__(
        self,
        name: str,
        toolkit: Toolkit,
        base: Tables,
        instructions: str,
        user_toolkit: Toolkit,
        phone: Mapping[str, Any],
        assertions: Sequence[Mapping[str, Any]] = (),
        seed: int = 0,
    ) -> None:
        super().__init__(name, toolkit, base, instructions, seed)
        self._user_toolkit = user_toolkit
        self._phone_base = copy.deepcopy(dict(phone))
        self.phone = Phone(self._phone_base)
        self._assertions = list(assertions)

    def execute(self, call: ToolCall) -> ToolResult:
        sync(self.db, self.phone)
        result = super().execute(call)
        sync(self.db, self.phone)
        return result

    def user_specs(self) -> list[ToolSpec]:
        return list(self._user_toolkit.specs)

    async def user_call(self, call: ToolCall) -> ToolResult:
        return self.user_execute(call)

    def user_execute(self, call: ToolCall) -> ToolResult:
        """The user's call, run now: what ``user_call`` answers."""
        sync(self.db, self.phone)
        result = detached(self._user_toolkit.run(self.phone, call))
        sync(self.db, self.phone)
        return result

    def end_checks(self) -> list[WorldCheck]:
        """The task's environment assertions on both sides, as τ² checks them after the conversation."""
        sync(self.db, self.phone)
        checks = []
        for assertion in self._assertions:
            side = "user" if assertion.get("env_type") == "user" else "agent"
            name, arguments = str(assertion["func_name"]), dict(assertion.get("arguments") or {})
            functions = USER_CHECKS if side == "user" else AGENT_CHECKS
            state: Any = self.phone if side == "user" else self.db
            if name not in functions:
                raise Tau2Error(f"telecom: unknown environment assertion {name} ({side})")
            got = functions[name](state, **arguments)
            expected = assertion.get("assert_value", True)
            detail = f"expected {expected}, got {got}" + (
                f": {assertion['message']}" if assertion.get("message") else ""
            )
            checks.append(WorldCheck(name=name, side=side, arguments=arguments, passed=got == expected, detail=detail))
        return checks

    def snapshot(self) -> Any:
        return {"db": self.db.snapshot(), "phone": copy.deepcopy(self.phone.data)}

    def restore(self, snapshot: Any) -> None:
        self.db.restore(snapshot["db"])
        self.phone = Phone(snapshot["phone"])

    def state_hash(self) -> str:
        text = json.dumps([self.db.changes(), self.phone.data], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def task_state(self) -> dict[str, Any]:
        """The database's changes and the phone's, under ``phone.``: the state judge sees both sides."""
        return self.db.changes() | changed(flatten({"phone": self._phone_base}), flatten({"phone": self.phone.data}))
