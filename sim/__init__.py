"""squall engine: config, planning, episode loop, agents, LLM gateway, store, report, CLI."""
