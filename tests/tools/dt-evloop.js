// dt-evloop: a JavaScript event loop in the middle of a chain, for the
// fidelity tests (Node.js, Debian's nodejs). One http server; each
// request's upstream call is made on the next turn of the loop
// (setImmediate) through one kept-alive http.Agent of two sockets, so
// that under load the calls wait in the agent's queue while the loop
// reads other requests: the upstream write of a request comes long after
// its read. The answer is the upstream's body.
//
//   node dt-evloop.js PORT HOST:PORT LOG
//
// Ground truth, as dt-httpd's: for every request, when its handler runs
// (right after the loop read it), the loop thread looks for its own id
// in /sys/distributed-tracer/list_pid and appends
// "PATH traced|untraced TID" to LOG. An upstream failure answers 502.
'use strict';
const fs = require('fs');
const http = require('http');

const [port, upstream, logPath] = process.argv.slice(2);
if (!port || !upstream || !logPath || !/^[^:]+:\d+$/.test(upstream)) {
	process.stderr.write('usage: node dt-evloop.js PORT HOST:PORT LOG\n');
	process.exit(2);
}
const [uhost, uport] = upstream.split(':');
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
const log = fs.openSync(logPath, 'a');
const me = `${process.pid} `;	// the loop thread: its id is the pid

function traced() {
	let list;
	try {
		list = fs.readFileSync('/sys/distributed-tracer/list_pid', 'utf8');
	} catch (e) {
		return false;
	}
	return list.split('\n').some((l) => l.startsWith(me));
}

function answer(res, code, body) {
	res.statusCode = code;
	res.end(body);
}

http.createServer((req, res) => {
	fs.writeSync(log, `${req.url} ${traced() ? 'traced' : 'untraced'} ${process.pid}\n`);
	setImmediate(() => {
		const up = http.get({ agent, host: uhost, port: uport, path: req.url }, (ur) => {
			const body = [];
			ur.on('data', (d) => body.push(d));
			ur.on('end', () => answer(res, ur.statusCode, Buffer.concat(body)));
		});
		up.on('error', () => answer(res, 502));
	});
}).listen(Number(port));
