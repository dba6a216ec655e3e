/*
 * Unit tests of dtracer/interim.c, the very file the module builds: what
 * a server's write is from its first bytes (egress.c peeks them): an
 * interim answer (HTTP/1.x 1xx but 101, a TLS handshake) or the answer.
 */
#include <string.h>

#include "interim.h"
#include "tap.h"

static u32 next;

/* A write of len bytes whose first n are s (next: a ServerHello's). */
static enum dt_answer of_len(const char *s, unsigned int n, unsigned long len)
{
	return dt_answer_of((const u8 *)s, n, len, &next);
}

/* A write of the n bytes s. */
static enum dt_answer of(const char *s, unsigned int n)
{
	return of_len(s, n, n);
}

/* A write of the string s, its head as egress.c peeks it. */
static enum dt_answer text(const char *s)
{
	size_t n = strlen(s);

	return of_len(s, n < DT_ANSWER_HEAD ? (unsigned int)n : DT_ANSWER_HEAD,
		      n);
}

int main(void)
{
	/* a ServerHello record (122 bytes) */
	static const char hello[] = "\x16\x03\x03\x00\x7a\x02\x00\x00\x76\x03\x03\x11";
	static const char hello_short[] = "\x16\x03\x03\x00\x7a";
	static const char finished12[] = "\x16\x03\x03\x00\x28\x14\x00\x00\x0c\x00\x00\x00";
	static const char ccs[] = "\x14\x03\x03\x00\x01\x01";
	static const char data[] = "\x17\x03\x03\x01\x1a\xab\xcd\xef\x01\x02\x03\x04";
	static const char alert[] = "\x15\x03\x03\x00\x02\x01\x00";
	static const char sslv2ish[] = "\x16\x02\x00\x00\x10\x02\x00\x00\x00\x00\x00\x00";
	static const char tls_future[] = "\x16\x03\x05\x00\x10\x02\x00\x00\x00\x00\x00\x00";

	ok(text("HTTP/1.1 100 Continue\r\n\r\n") == DT_ANSWER_INTERIM,
	   "HTTP/1.1 100 Continue: interim");
	ok(text("HTTP/1.0 103 Early Hints\r\nLink: </s.css>\r\n\r\n") == DT_ANSWER_INTERIM,
	   "HTTP/1.0 103 Early Hints: interim");
	ok(text("HTTP/1.1 101 Switching Protocols\r\n") == DT_ANSWER_FINAL,
	   "101 Switching Protocols: the answer (the stream that follows is)");
	ok(text("HTTP/1.1 200 OK\r\n\r\n") == DT_ANSWER_FINAL &&
	   text("HTTP/1.1 199 x\r\n\r\n") == DT_ANSWER_INTERIM &&
	   text("HTTP/1.1 204 No Content\r\n\r\n") == DT_ANSWER_FINAL,
	   "2xx: the answer; any other 1xx: interim");
	ok(text("HTTP/2.0 100 x\r\n\r\n") == DT_ANSWER_FINAL &&
	   text("HTTP/1.2 100 x\r\n\r\n") == DT_ANSWER_FINAL &&
	   text("HTTP/1.1 1x0 x\r\n\r\n") == DT_ANSWER_FINAL &&
	   text("HTTP/1.1  100 x\r\n\r\n") == DT_ANSWER_FINAL &&
	   text("http/1.1 100 x\r\n\r\n") == DT_ANSWER_FINAL,
	   "not HTTP/1.0 or 1.1, a status not three digits, another case: the answer");
	ok(text("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n") == DT_ANSWER_FINAL &&
	   text("HTTP/1.1 100 Continue\r\n") == DT_ANSWER_FINAL &&
	   of_len("HTTP/1.1 100 Continue\r\n\r\n", 25, 1025) == DT_ANSWER_FINAL,
	   "a 100 Continue with the answer after it in one write, its head cut short, or more bytes than it: the answer");
	ok(of("HTTP/1.1 100\r\n\r", 15) == DT_ANSWER_FINAL &&
	   of("HTTP/1.1 100\r\n\r\n", 16) == DT_ANSWER_INTERIM,
	   "a head without its blank line says nothing");
	{
		char big[DT_ANSWER_HEAD + 8];

		memset(big, 'x', sizeof(big));
		memcpy(big, "HTTP/1.1 100 ", 13);
		memcpy(big + sizeof(big) - 4, "\r\n\r\n", 4);
		ok(of_len(big, DT_ANSWER_HEAD, sizeof(big)) == DT_ANSWER_FINAL,
		   "a 1xx head longer than the %d bytes peeked: the answer", DT_ANSWER_HEAD);
	}
	ok(text("+PONG\r\n") == DT_ANSWER_FINAL && of("", 0) == DT_ANSWER_FINAL,
	   "a store's reply, nothing at all: the answer");

	ok(of(hello, sizeof(hello) - 1) == DT_ANSWER_HELLO && next == 5 + 0x7a,
	   "a TLS ServerHello record: a handshake starts (interim), the next record at %u", next);
	ok(of(hello_short, 5) == DT_ANSWER_INTERIM,
	   "a handshake record whose type is not there yet: interim");
	ok(of(finished12, sizeof(finished12) - 1) == DT_ANSWER_INTERIM,
	   "a TLS 1.2 server's last flight (handshake records): interim");
	ok(of(ccs, sizeof(ccs) - 1) == DT_ANSWER_INTERIM,
	   "a change_cipher_spec record: interim");
	ok(of(data, sizeof(data) - 1) == DT_ANSWER_TLS_DATA,
	   "application data: TLS data (the answer, or tickets after a 1.3 flight)");
	ok(of_len(hello, DT_ANSWER_TLS_HEAD, 763) == DT_ANSWER_HELLO &&
	   of_len(data, DT_ANSWER_TLS_HEAD, 1141) == DT_ANSWER_TLS_DATA &&
	   of_len("HTTP/1", DT_ANSWER_TLS_HEAD, 1141) == DT_ANSWER_FINAL,
	   "a write longer than %d bytes, its first %d peeked: TLS records told, HTTP an answer",
	   DT_ANSWER_HEAD, DT_ANSWER_TLS_HEAD);
	ok(of(alert, sizeof(alert) - 1) == DT_ANSWER_FINAL,
	   "an alert: the answer");
	ok(of(data, 4) == DT_ANSWER_FINAL,
	   "a record header cut short: the answer");
	ok(of(sslv2ish, sizeof(sslv2ish) - 1) == DT_ANSWER_FINAL &&
	   of(tls_future, sizeof(tls_future) - 1) == DT_ANSWER_FINAL,
	   "a version other than 3.0 to 3.4: the answer");
	ok(dt_answer_tls13(0x14) && dt_answer_tls13(0x17) &&
	   !dt_answer_tls13(0x16) && !dt_answer_tls13(0x15),
	   "after a ServerHello, a CCS or application data says TLS 1.3; a handshake record or an alert does not");
	{
		/* nginx's preface: SETTINGS (3 settings), WINDOW_UPDATE */
		static const char preface[] =
			"\x00\x00\x12\x04\x00\x00\x00\x00\x00"
			"\x00\x03\x00\x00\x00\x80\x00\x04\x00\x00\xff\xff\x00\x05\x00\x00\x40\x00"
			"\x00\x00\x04\x08\x00\x00\x00\x00\x00\x7f\xff\x00\x00";
		static const char ack[] = "\x00\x00\x00\x04\x01\x00\x00\x00\x00";
		static const char ping[] = "\x00\x00\x08\x06\x01\x00\x00\x00\x00"
			"\x01\x02\x03\x04\x05\x06\x07\x08";
		static const char wu3[] = "\x00\x00\x04\x08\x00\x00\x00\x00\x03\x00\x00\x10\x00";
		static const char prio[] = "\x00\x00\x05\x02\x00\x00\x00\x00\x03\x00\x00\x00\x00\x10";
		/* HEADERS on stream 1 (END_STREAM, END_HEADERS), 2 bytes */
		static const char headers[] = "\x00\x00\x02\x01\x05\x00\x00\x00\x01\x88\x82";
		static const char goaway[] = "\x00\x00\x08\x07\x00\x00\x00\x00\x00"
			"\x00\x00\x00\x00\x00\x00\x00\x00";
		static const char rst[] = "\x00\x00\x04\x03\x00\x00\x00\x00\x01\x00\x00\x00\x08";
		char two[64];

		ok(of(preface, sizeof(preface) - 1) == DT_ANSWER_CONTROL,
		   "HTTP/2: a server's SETTINGS and WINDOW_UPDATE in one write: control, no answer");
		ok(of(ack, 9) == DT_ANSWER_CONTROL && of(ping, 17) == DT_ANSWER_CONTROL &&
		   of(wu3, 13) == DT_ANSWER_CONTROL && of(prio, 14) == DT_ANSWER_CONTROL,
		   "HTTP/2: a SETTINGS ACK, a PING ACK, a stream's WINDOW_UPDATE, a PRIORITY: control");
		memcpy(two, ack, 9);
		memcpy(two + 9, headers, 11);
		ok(of(headers, 11) == DT_ANSWER_FINAL && of(two, 20) == DT_ANSWER_FINAL &&
		   of(goaway, 17) == DT_ANSWER_FINAL && of(rst, 13) == DT_ANSWER_FINAL,
		   "HTTP/2: HEADERS (alone or after an ACK), GOAWAY, RST_STREAM: the answer");
		ok(of(ack, 8) == DT_ANSWER_FINAL && of_len(ack, 9, 10) == DT_ANSWER_FINAL &&
		   of(ping, 16) == DT_ANSWER_FINAL && of_len(preface, 40, 4000) == DT_ANSWER_FINAL,
		   "HTTP/2: a frame cut short, more bytes than the frames, a head of a longer write: the answer");
		memcpy(two, ack, 9);
		two[4] = 0;
		two[2] = 5;	/* SETTINGS of 5 bytes */
		memset(two + 9, 0, 5);
		ok(of(two, 14) == DT_ANSWER_FINAL,
		   "HTTP/2: SETTINGS not a multiple of 6 bytes: the answer");
		memcpy(two, ack, 9);
		two[2] = 6;	/* an ACK with a payload */
		memset(two + 9, 0, 6);
		ok(of(two, 15) == DT_ANSWER_FINAL,
		   "HTTP/2: a SETTINGS ACK with a payload: the answer");
		memcpy(two, ping, 17);
		two[8] = 1;	/* PING on stream 1 */
		ok(of(two, 17) == DT_ANSWER_FINAL,
		   "HTTP/2: a PING on a stream: the answer");
		memcpy(two, prio, 14);
		two[8] = 0;	/* PRIORITY on stream 0 */
		ok(of(two, 14) == DT_ANSWER_FINAL,
		   "HTTP/2: a PRIORITY on stream 0: the answer");
	}
	return tap_done();
}
