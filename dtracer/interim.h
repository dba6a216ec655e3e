/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interim answers: what a server's write is, from its first bytes. An
 * interim answer (HTTP/1.x's 1xx but 101, a TLS handshake) is written
 * while the request goes on: the client sends more of it after reading
 * it (the body after a 100 Continue, the request after the handshake).
 * Plain C with no kernel dependency (the userspace unit tests build this
 * very file); it reads headers only, never a payload.
 */
#ifndef _DTRACER_INTERIM_H
#define _DTRACER_INTERIM_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "kernel-types.h"	/* tests/unit/: u8, u32, bool */
#endif

/*
 * The bytes of a write's head that dt_answer_of() reads: an HTTP
 * interim answer is a whole write of at most this many bytes.
 */
#define DT_ANSWER_HEAD 64
/* ... of a longer write: a TLS record's header and its first byte. */
#define DT_ANSWER_TLS_HEAD 6

enum dt_answer {
	DT_ANSWER_FINAL,	/* anything else: the answer */
	DT_ANSWER_INTERIM,	/* HTTP/1.x 1xx (not 101), TLS handshake, CCS */
	DT_ANSWER_HELLO,	/* ... a TLS ServerHello record: interim */
	/* a TLS application data record: the answer, or TLS 1.3's flight */
	DT_ANSWER_TLS_DATA,
	/* HTTP/2 frames that answer no stream (SETTINGS, PING, ...) */
	DT_ANSWER_CONTROL,
};

/*
 * The kind of a write of len bytes whose first n bytes are b. An HTTP
 * interim answer is the whole write (a server that writes its 100
 * Continue and its answer at once has written the answer), its head
 * ending where the write does. A ServerHello starts a handshake whose
 * server's writes are interim: TLS 1.2's by their type (handshake,
 * change_cipher_spec); TLS 1.3 encrypts the rest of its flight, as
 * application data written before the client's next bytes are read
 * (egress.c and deferred.c keep that state per connection). For
 * DT_ANSWER_HELLO and DT_ANSWER_TLS_DATA, *next is where the record
 * after the first one starts, in the write (a ServerHello's write may
 * hold the whole flight; a server's tickets are records of one size).
 * HTTP/2's connection frames (SETTINGS, PING, WINDOW_UPDATE, PRIORITY:
 * a server's preface, its acknowledgements, flow control) answer no
 * stream: a whole write of them, each frame's 9-byte header well formed
 * for its type and the frames ending where the write does, is
 * DT_ANSWER_CONTROL (their payloads are not read).
 */
enum dt_answer dt_answer_of(const u8 *b, unsigned int n, unsigned long len,
			    u32 *next);

/*
 * Whether a record of type t after a ServerHello, in the same write,
 * says TLS 1.3: a change_cipher_spec kept for middleboxes, or the
 * encrypted rest of the flight (TLS 1.2's goes on in handshake records).
 */
bool dt_answer_tls13(u8 t);

#endif
