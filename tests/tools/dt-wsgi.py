"""dt-wsgi.py: t-fidelity's WSGI application, run by gunicorn's sync
workers (one process, one thread, one request at a time) behind nginx,
over a UNIX socket or over TCP. For every request it looks for its own
thread id in /sys/distributed-tracer/list_pid (in a request it has not
answered yet: a line that ends with "answered" does not count), asks
the backend (BACKEND, host:port) for the same path on a connection of
its own, appends "PATH traced|untraced TID" to LOG and answers with the
backend's body.

usage (gunicorn's app from this file, copied as dt_wsgi.py):
    DT_WSGI_BACKEND=HOST:PORT DT_WSGI_LOG=LOG gunicorn dt_wsgi:app
"""
import http.client
import os
import threading

LIST = '/sys/distributed-tracer/list_pid'
HOST, PORT = os.environ['DT_WSGI_BACKEND'].rsplit(':', 1)
LOG = os.open(os.environ['DT_WSGI_LOG'],
              os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)


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


def app(environ, start_response):
    path = environ.get('PATH_INFO', '/')
    tid = threading.get_native_id()
    t = traced(tid)
    try:
        c = http.client.HTTPConnection(HOST, int(PORT), timeout=60)
        c.request('GET', path)
        r = c.getresponse()
        body = r.read()
        c.close()
        status = '200 OK' if r.status == 200 else '502 Bad Gateway'
    except OSError:
        body, status = b'', '502 Bad Gateway'
    # One write per line: the workers share LOG (O_APPEND).
    os.write(LOG, ('%s %s %d\n' % (path, 'traced' if t else 'untraced',
                                   tid)).encode())
    start_response(status, [('Content-Length', str(len(body)))])
    return [body]
