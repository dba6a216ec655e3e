// dt-javamid: a Java thread-pool middle tier for the fidelity benchmark
// (Debian's default-jdk-headless). The JDK's own HTTP server
// (com.sun.net.httpserver) with a fixed pool of 4 worker threads: its
// dispatcher thread accepts and waits for readable connections, and
// hands each to the pool (a queue and a condition variable), where a
// worker reads the request and answers it; the upstream call is made by
// the worker through HttpURLConnection, whose keep-alive cache the
// workers share (a connection used by one worker is taken by whichever
// asks next).
//
//	java -cp DIR DtJavamid PORT HOST:PORT LOG
//
// Ground truth, as dt-httpd's: for every request, when its handler
// starts (on the worker that has just read it), that thread looks for
// its own id (the link /proc/thread-self) in
// /sys/distributed-tracer/list_pid and appends "PATH traced|untraced
// TID" to LOG. An upstream failure answers 502.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.Executors;

class DtJavamid {
	private static String upstream;
	private static PrintStream log;

	// The calling thread's id: /proc/thread-self links to PID/task/TID.
	private static String tid() throws IOException {
		return Files.readSymbolicLink(Paths.get("/proc/thread-self"))
			.getFileName().toString();
	}

	private static boolean traced(String tid) {
		try {
			for (String l : Files.readAllLines(Paths.get("/sys/distributed-tracer/list_pid")))
				if (l.startsWith(tid + " "))
					return true;
		} catch (IOException e) {
			return false;
		}
		return false;
	}

	private static void handle(HttpExchange ex) throws IOException {
		String path = ex.getRequestURI().getPath();
		String tid = tid();
		boolean on = traced(tid);
		synchronized (log) {
			log.println(path + (on ? " traced " : " untraced ") + tid);
			log.flush();
		}
		int status;
		byte[] body = new byte[0];
		try {
			HttpURLConnection c = (HttpURLConnection)
				new URL("http://" + upstream + path).openConnection();
			status = c.getResponseCode();
			try (InputStream in = c.getInputStream()) {
				body = in.readAllBytes();
			}
		} catch (IOException e) {
			status = 502;
		}
		ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
		if (body.length > 0) {
			try (OutputStream o = ex.getResponseBody()) {
				o.write(body);
			}
		}
		ex.close();
	}

	public static void main(String[] a) throws IOException {
		if (a.length != 3 || !a[1].contains(":")) {
			System.err.println("usage: dt-javamid PORT HOST:PORT LOG");
			System.exit(2);
		}
		upstream = a[1];
		log = new PrintStream(new FileOutputStream(a[2], true));
		HttpServer s = HttpServer.create(new InetSocketAddress(Integer.parseInt(a[0])), 128);
		s.createContext("/", DtJavamid::handle);
		s.setExecutor(Executors.newFixedThreadPool(4));
		s.start();
	}
}
