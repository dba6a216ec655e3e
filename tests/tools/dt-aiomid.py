#!/usr/bin/python3
"""dt-aiomid: a Python asyncio middle tier for the fidelity benchmark
(Debian's python3-aiohttp). One aiohttp server; each request makes two
upstream calls, one after the other, through one ClientSession whose
connector keeps at most 2 connections to the upstream: under load the
calls wait for a connection while the loop reads other requests, and
asyncio resumes a request's task a turn of the loop after its answer
was read, so reads of other requests come between.

    dt-aiomid.py PORT HOST:PORT LOG

Upstream paths: the request's path, then /1 and /2. Ground truth, as
dt-httpd's: for every request, when its handler starts, the loop thread
looks for its own id in /sys/distributed-tracer/list_pid and appends
"PATH traced|untraced TID" to LOG. An upstream failure answers 502.
"""
import asyncio
import re
import sys
import threading

import aiohttp
from aiohttp import web

LIST = '/sys/distributed-tracer/list_pid'


def traced():
    me = f'{threading.get_native_id()} '
    try:
        with open(LIST, encoding='ascii') as f:
            return any(line.startswith(me) for line in f)
    except OSError:
        return False


async def handle(request):
    app = request.app
    state = 'traced' if traced() else 'untraced'
    app['log'].write(f'{request.path} {state} {threading.get_native_id()}\n')
    app['log'].flush()
    body = []
    try:
        for part in ('1', '2'):
            url = f'http://{app["upstream"]}{request.path}/{part}'
            async with app['session'].get(url) as up:
                body.append(await up.read())
                if up.status != 200:
                    return web.Response(status=up.status, body=b''.join(body))
    except (aiohttp.ClientError, asyncio.TimeoutError):
        return web.Response(status=502)
    return web.Response(body=b''.join(body))


async def session(app):
    conn = aiohttp.TCPConnector(limit=2)
    app['session'] = aiohttp.ClientSession(connector=conn)
    yield
    await app['session'].close()


def main():
    if len(sys.argv) != 4 or not re.fullmatch(r'[^:]+:\d+', sys.argv[2]) \
            or not sys.argv[1].isdigit():
        sys.stderr.write('usage: dt-aiomid.py PORT HOST:PORT LOG\n')
        sys.exit(2)
    app = web.Application()
    app['upstream'] = sys.argv[2]
    app['log'] = open(sys.argv[3], 'a', encoding='ascii')
    app.cleanup_ctx.append(session)
    app.router.add_get('/{tail:.*}', handle)
    web.run_app(app, port=int(sys.argv[1]), access_log=None,
                print=None, handle_signals=True)


if __name__ == '__main__':
    main()
