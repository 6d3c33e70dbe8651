"""A minimal agent service behind ``http:``: from ``examples/``, in squall's environment,

    ../.venv/bin/python http_agent.py --port 9000 &
    ../.venv/bin/squall run --world smart_home --limit 2 --agent http://127.0.0.1:9000/agent

squall POSTs one ``squall-agent/1`` request per conversation turn to ``/agent`` and reads the reply from the JSON
body (the protocol as OpenAPI: ``sim/agents/outside/openapi.json``); before the run it POSTs the handshake,
``{"protocol": "squall-agent/1", "kind": "hello"}``. The agent itself is ``my_agents.support.respond``: a service
in any language does the same with its own.
"""

import argparse

from aiohttp import web
from my_agents.support import respond

from sim.agents.outside.protocol import AgentRequest, HelloReply


async def agent(http: web.Request) -> web.Response:
    body = await http.json()
    if body.get("kind") == "hello":
        return web.json_response(HelloReply(kind="hello", agent="http_agent.py").model_dump())
    reply = await respond(AgentRequest.model_validate(body))
    return web.json_response(reply.model_dump(mode="json"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000)
    options = parser.parse_args()
    app = web.Application()
    app.router.add_post("/agent", agent)
    web.run_app(app, host=options.host, port=options.port, print=lambda line: print(line, flush=True))


if __name__ == "__main__":
    main()
