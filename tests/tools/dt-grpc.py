"""dt-grpc.py: t-fidelity's gRPC server (Debian's python3-grpcio, no
protobuf: every method takes and returns raw bytes), behind nginx's
grpc_pass, over a UNIX socket and over TCP. Its requests are read by
gRPC's poller and run by a pool of WORKERS threads. For every call
(its message: a path, "/f-grpc/1") it looks for its own thread id in
/sys/distributed-tracer/list_pid (in a request it has not answered
yet: a line that ends with "answered" does not count), asks the
backend (HOST:PORT) for that path on a connection of its own, appends
"PATH traced|untraced TID" to LOG and answers with the backend's body.

usage: dt-grpc.py UNIX_PATH TCP_PORT HOST:PORT LOG WORKERS
"""
import concurrent.futures
import http.client
import os
import sys
import threading

import grpc

LIST = '/sys/distributed-tracer/list_pid'


def traced(tid):
    """Whether thread tid is flagged in a request it has not answered."""
    try:
        with open(LIST) as f:
            for line in f:
                w = line.split()
                if w and w[0] == str(tid) and w[-1] != 'answered':
                    return True
    except OSError:
        pass
    return False


class Handler(grpc.GenericRpcHandler):
    """Every method: one unary call, bytes in, bytes out."""

    def __init__(self, backend, log):
        self.host, self.port = backend.rsplit(':', 1)
        self.log = log

    def service(self, details):
        return grpc.unary_unary_rpc_method_handler(self.call)

    def call(self, request, context):
        path = request.decode(errors='replace')
        tid = threading.get_native_id()
        t = traced(tid)
        try:
            c = http.client.HTTPConnection(self.host, int(self.port),
                                           timeout=60)
            c.request('GET', path)
            r = c.getresponse()
            body = r.read()
            c.close()
            ok = r.status == 200
        except OSError:
            body, ok = b'', False
        # One write per line: the pool's threads share the log.
        os.write(self.log, ('%s %s %d\n' % (
            path, 'traced' if t else 'untraced', tid)).encode())
        if not ok:
            context.abort(grpc.StatusCode.UNAVAILABLE, 'backend failed')
        return body


def main():
    if len(sys.argv) != 6:
        sys.exit('usage: dt-grpc.py UNIX_PATH TCP_PORT HOST:PORT LOG WORKERS')
    unix, port, backend, log, workers = sys.argv[1:]
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=int(workers))
    server = grpc.server(pool, handlers=[Handler(backend, fd)])
    if not server.add_insecure_port('unix:' + unix):
        sys.exit('dt-grpc.py: cannot listen on ' + unix)
    if not server.add_insecure_port('127.0.0.1:' + port):
        sys.exit('dt-grpc.py: cannot listen on 127.0.0.1:' + port)
    server.start()
    # nginx's workers run as nobody.
    os.chmod(unix, 0o666)
    server.wait_for_termination()


if __name__ == '__main__':
    main()
