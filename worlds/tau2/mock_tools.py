"""τ²'s mock domain (a tiny task tracker, for testing the harness), written for squall from τ²'s documented behaviour.

Tables ``tasks`` and ``users``. New tasks take the id ``task_<n>``, n one more than the tasks there are.
"""

from __future__ import annotations

from typing import Any

from worlds.common.errors import ToolError
from worlds.common.toolbook import action, lookup, optional, string
from worlds.tau2.database import Database

STATUSES = ("pending", "completed")


@action(
    "Create a task for a user.",
    user_id=string("The id of the user the task is for, such as 'user_1'."),
    title=string("The task's title."),
    description=optional(string("The task's description.")),
)
def create_task(db: Database, user_id: str, title: str, description: str | None = None) -> Any:
    if ("users", user_id) not in db:
        raise ToolError("not_found", "not_found", f"User {user_id} not found")
    task_id = f"task_{sum(1 for _ in db.rows('tasks')) + 1}"
    task = {"task_id": task_id, "title": title, "description": description, "status": "pending"}
    db.insert("tasks", task_id, task)
    db.edit("users", user_id)["tasks"].append(task_id)
    return task


@lookup("List every user.")
def get_users(db: Database) -> Any:
    return [user for _, user in db.rows("users")]


@action(
    "Set a task's status.",
    task_id=string("The task's id, such as 'task_1'."),
    status=string("The new status.", enum=STATUSES),
)
def update_task_status(db: Database, task_id: str, status: str) -> Any:
    if ("tasks", task_id) not in db:
        raise ToolError("not_found", "not_found", f"Task {task_id} not found")
    task = db.edit("tasks", task_id)
    task["status"] = status
    return task
