"""The τ² domains squall runs, as data: each one's tool modules, database, policy and task files in the wheel."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType, ModuleType

from worlds.tau2 import airline_tools, common_tools, mock_tools, retail_tools, telecom_tools, telecom_user_tools


@dataclass(frozen=True)
class Domain:
    name: str
    tool_modules: tuple[ModuleType, ...]
    database: str
    """The database file in the domain's folder."""
    policy: str
    tasks: str = "tasks.json"
    splits: str = "split_tasks.json"
    without: tuple[str, ...] = ()
    """Tools of the modules that τ² does not give this domain's agent."""
    user_tool_modules: tuple[ModuleType, ...] = ()
    """Dual control: the tools τ² gives the domain's user (telecom's phone); none: the user only talks."""
    user_database: str | None = None
    """The user's own state in the domain's folder (telecom's ``user_db.toml``)."""
    manual: str | None = None
    """A second policy document the agent is given after the main one (telecom's tech-support manual)."""


DOMAINS: MappingProxyType[str, Domain] = MappingProxyType(
    {
        "airline": Domain("airline", (airline_tools, common_tools), "db.json.gz", "policy.txt"),
        "retail": Domain("retail", (retail_tools, common_tools), "db.json.gz", "policy.txt"),
        "mock": Domain("mock", (mock_tools, common_tools), "db.json", "policy.md", without=("calculate",)),
        "telecom": Domain(
            "telecom",
            (telecom_tools, common_tools),
            "db.toml",
            "main_policy.txt",
            tasks="tasks.json.gz",
            without=("calculate",),
            user_tool_modules=(telecom_user_tools,),
            user_database="user_db.toml",
            manual="tech_support_manual.txt",
        ),
    }
)
"""Domain name -> how squall builds it. A plain constant: a new domain is its tool module and one line here."""

NOT_SUPPORTED: MappingProxyType[str, str] = MappingProxyType(
    {
        "banking_knowledge": "its tools are found in a knowledge base and unlocked mid-conversation; not built yet",
    }
)
"""τ² domains the wheel ships that squall lists but cannot run, with the reason."""

DEFAULT_SPLIT = "base"
"""Every task of the domain, as τ²'s runner takes them when no split is named."""
