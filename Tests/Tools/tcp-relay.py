#!/usr/bin/env python3
"""tcp-relay.py LISTEN_PORT TARGET_PORT [BYTES_PER_SECOND]

Relays TCP connections from 127.0.0.1:LISTEN_PORT to 127.0.0.1:TARGET_PORT, optionally slowing
the client-to-target direction to BYTES_PER_SECOND, so a test can put a slow link in front of a
server and cut it (by killing this process) while a transfer is in flight. Prints "ready" once
it listens. Loopback only; it stops when killed.
"""
import asyncio
import sys


async def pipe(reader, writer, rate):
    try:
        while True:
            chunk = await reader.read(16384)
            if not chunk:
                break
            writer.write(chunk)
            await writer.drain()
            if rate:
                await asyncio.sleep(len(chunk) / rate)
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main():
    listen_port, target_port = int(sys.argv[1]), int(sys.argv[2])
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 0

    async def relay(client_reader, client_writer):
        try:
            target_reader, target_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, target_writer, rate), pipe(target_reader, client_writer, 0))

    server = await asyncio.start_server(relay, "127.0.0.1", listen_port, reuse_address=True)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
