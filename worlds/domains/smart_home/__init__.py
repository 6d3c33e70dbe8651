"""Smart home world: rooms, lights, thermostats, locks, speakers, TVs, plugs, blinds and scenes."""

from worlds.domains.smart_home.pack import SmartHomePack
from worlds.domains.smart_home.world import WORLD_NAME, SmartHomeWorld

__all__ = ["WORLD_NAME", "SmartHomePack", "SmartHomeWorld"]
