#!/usr/bin/python3
"""dt-pymid: a Python middle tier whose every request goes through a
thread pool, as gRPC's Python server's calls do (concurrent.futures: a
job handed to a worker through CPython's SimpleQueue, the queue
`dtracer python` follows). For bench/nginx.sh: what following that
queue costs a Python server.

    dt-pymid.py PORT HOST:PORT WORKERS

The main thread accepts each connection and submits it to a pool of
WORKERS threads; the worker reads one HTTP/1.x request, asks the
upstream for the same path over a connection it keeps (HTTP/1.1), and
answers with the upstream's body (Connection: close). An upstream
failure answers 502.
"""
import concurrent.futures
import http.client
import socket
import sys
import threading

local = threading.local()


def upstream(host, port, path):
    """The upstream's status and body for path (a kept connection)."""
    for _ in range(2):
        c = getattr(local, 'conn', None)
        if c is None:
            c = local.conn = http.client.HTTPConnection(host, port,
                                                        timeout=30)
        try:
            c.request('GET', path)
            r = c.getresponse()
            return r.status, r.read()
        except (OSError, http.client.HTTPException):
            c.close()
            local.conn = None
    return 502, b''


def serve(conn, host, port):
    """One request on conn, answered, conn closed."""
    with conn:
        head = b''
        while b'\r\n\r\n' not in head and len(head) < 8192:
            b = conn.recv(4096)
            if not b:
                return
            head += b
        words = head.split(b' ', 2)
        path = words[1].decode('latin-1') if len(words) > 2 else '/'
        status, body = upstream(host, port, path)
        if status != 200:
            status, body = 502, b''
        conn.sendall(b'HTTP/1.1 %d X\r\nContent-Length: %d\r\n'
                     b'Connection: close\r\n\r\n' % (status, len(body)) +
                     body)


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: dt-pymid.py PORT HOST:PORT WORKERS')
    host, port = sys.argv[2].rsplit(':', 1)
    pool = concurrent.futures.ThreadPoolExecutor(int(sys.argv[3]))
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('0.0.0.0', int(sys.argv[1])))
    s.listen(128)
    while True:
        conn, _ = s.accept()
        pool.submit(serve, conn, host, int(port))


if __name__ == '__main__':
    main()
