<?php
/*
 * dt-fpm.php: t-fidelity's PHP application, run by php-fpm's workers
 * (a process each, one request at a time) behind nginx's FastCGI, over
 * a UNIX socket or over TCP. For every request it looks for its own id
 * in /sys/distributed-tracer/list_pid (in a request it has not answered
 * yet: a line that ends with "answered" does not count), asks the
 * backend (DT_FPM_BACKEND, host:port) for the same path, appends
 * "PATH traced|untraced TID" to DT_FPM_LOG and answers with the
 * backend's body.
 */
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$tid = getmypid();
$traced = false;
foreach (@file('/sys/distributed-tracer/list_pid') ?: [] as $line) {
	$w = preg_split('/\s+/', trim($line));
	if ($w[0] === strval($tid) && end($w) !== 'answered') {
		$traced = true;
		break;
	}
}
$body = @file_get_contents('http://' . getenv('DT_FPM_BACKEND') . $path);
// One write per line: the workers share the log (O_APPEND).
file_put_contents(getenv('DT_FPM_LOG'),
	$path . ($traced ? ' traced ' : ' untraced ') . $tid . "\n",
	FILE_APPEND);
if ($body === false) {
	http_response_code(502);
	$body = '';
}
header('Content-Length: ' . strlen($body));
echo $body;
