// SPDX-License-Identifier: GPL-2.0
/*
 * Interim answers (see interim.h).
 */
#include "interim.h"
#include "frames.h"

#define DT_TLS_CCS 0x14
#define DT_TLS_HANDSHAKE 0x16
#define DT_TLS_DATA 0x17
#define DT_TLS_SERVER_HELLO 0x02
#define DT_TLS_HEADER 5

/* A TLS record header: a type, then version 3.x (SSL 3.0 to TLS 1.3). */
static bool dt_tls_record(const u8 *b, unsigned int n, u8 type)
{
	return n >= DT_TLS_HEADER && b[0] == type && b[1] == 0x03 &&
	       b[2] <= 0x04;
}

static bool dt_digit(u8 c)
{
	return c >= '0' && c <= '9';
}

#define DT_STATUS_LINE 12	/* "HTTP/1.1 100" */

/* Where the first blank line of b ends (the head's end), or 0. */
static unsigned int dt_head_end(const u8 *b, unsigned int n)
{
	unsigned int i;

	for (i = 3; i < n; i++)
		if (b[i - 3] == '\r' && b[i - 2] == '\n' && b[i - 1] == '\r' &&
		    b[i] == '\n')
			return i + 1;
	return 0;
}

/*
 * "HTTP/1.0 1xx" or "HTTP/1.1 1xx", but 101 (the protocol switched), a
 * whole write of n bytes that ends with the head's blank line.
 */
static bool dt_http_interim(const u8 *b, unsigned int n, unsigned long len)
{
	static const char v[] = "HTTP/1.";
	unsigned int i;

	if (n < DT_STATUS_LINE || len != n || dt_head_end(b, n) != n)
		return false;
	for (i = 0; i < sizeof(v) - 1; i++)
		if (b[i] != (u8)v[i])
			return false;
	if ((b[7] != '0' && b[7] != '1') || b[8] != ' ' || b[9] != '1' ||
	    !dt_digit(b[10]) || !dt_digit(b[11]))
		return false;
	return !(b[10] == '0' && b[11] == '1');
}

/* A whole write of n bytes b of HTTP/2 connection frames only. */
static bool dt_h2_controls(const u8 *b, unsigned int n, unsigned long len)
{
	unsigned int at = 0;
	u32 size;

	if (len != n || !n)
		return false;
	while (at < n) {
		if (n - at < DT_H2_FRAME_HEADER)
			return false;
		size = dt_h2_frame_size(b + at);
		if (size > n - at - DT_H2_FRAME_HEADER ||
		    !dt_h2_control(b + at, size))
			return false;
		at += DT_H2_FRAME_HEADER + size;
	}
	return true;
}

enum dt_answer dt_answer_of(const u8 *b, unsigned int n, unsigned long len,
			    u32 *next)
{
	if (dt_tls_record(b, n, DT_TLS_HANDSHAKE)) {
		if (n <= DT_TLS_HEADER || b[DT_TLS_HEADER] != DT_TLS_SERVER_HELLO)
			return DT_ANSWER_INTERIM;
		*next = DT_TLS_HEADER + ((u32)b[3] << 8 | b[4]);
		return DT_ANSWER_HELLO;
	}
	if (dt_tls_record(b, n, DT_TLS_CCS))
		return DT_ANSWER_INTERIM;
	if (dt_tls_record(b, n, DT_TLS_DATA)) {
		*next = DT_TLS_HEADER + ((u32)b[3] << 8 | b[4]);
		return DT_ANSWER_TLS_DATA;
	}
	if (dt_h2_controls(b, n, len))
		return DT_ANSWER_CONTROL;
	return dt_http_interim(b, n, len) ? DT_ANSWER_INTERIM :
					     DT_ANSWER_FINAL;
}

bool dt_answer_tls13(u8 t)
{
	return t == DT_TLS_CCS || t == DT_TLS_DATA;
}
