"""Seven linked domains of executable APIs (home, information, media, shopping, food, communication, time)
over copy-on-write tables, with a tool dependency graph, intent primitives and composed conversations."""

from worlds.domains.multidomain.pack import MultiDomainPack

__all__ = ["MultiDomainPack"]
