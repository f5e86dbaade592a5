"""Commands by id over a WebSocket, as Chromium's DevTools protocol and
WebDriver BiDi both take them: one call at a time (two coroutines reading
replies from one socket would take each other's), events skipped."""
import asyncio
import itertools
import json


class SocketRPC:
    def __init__(self, socket):
        self.socket = socket
        self.ids = itertools.count(1)
        self.lock = asyncio.Lock()

    def failure(self, reply):
        """The error a reply carries, as text, or None (each protocol says it its own way)."""
        return None

    async def call(self, method, **params):
        async with self.lock:
            message_id = next(self.ids)
            await self.socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
            while True:
                reply = json.loads(await self.socket.recv())
                if reply.get("id") == message_id:
                    error = self.failure(reply)
                    if error is not None:
                        raise RuntimeError(f"{method}: {error}")
                    return reply["result"]
