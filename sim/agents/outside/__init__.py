"""Agents that live outside squall (``--agent http:URL``, ``python:module:function``, ``command:"PROG ARGS"``).

squall's episode loop still drives them: its user speaks, the outside agent answers, its judges score. Each turn the
agent is sent one request (``protocol``: the conversation as the user saw it, the instructions, and the URL where the
episode's tools are served over MCP) and answers one reply. Its own model calls never pass squall's gateway: the usage
on its turns is what it reports.
"""
