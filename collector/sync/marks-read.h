/*
 * Reading dtracer's events from babeltrace2 fields, once for the whole
 * collector: the clock sync's filter (flt-sync.c) and the requests
 * reader (requests-read.c) decode the addresses and sequence ranges of
 * dtracer_mark_send, dtracer_mark_recv and dtracer_flag with these, and
 * their payload fields with the same readers.
 */
#ifndef DT_COLLECTOR_MARKS_READ_H
#define DT_COLLECTOR_MARKS_READ_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "segments.h"
#include "sync.h"

/* Member name of structure s; NULL if s is NULL or no structure. */
const bt_field *dt_field_member(const bt_field *s, const char *name);

/* An integer or enumeration member, signed or not; 0, or -1 if none. */
int dt_field_int(const bt_field *s, const char *name, int64_t *v);

/* An address member: an array of 0, 4 or 16 bytes; 0, or -1. */
int dt_field_addr(const bt_field *s, const char *name, uint8_t *out,
		  uint64_t *len);

/*
 * The addresses of a dtracer event (family, saddr, daddr, sport,
 * dport): *alen is 0 (family none: a manual flag), 4 or 16, the rest of
 * each address zero. 0, or -1 if they are malformed.
 */
int dt_read_flow(const bt_field *payload, struct dt_flow *f, uint8_t *alen);

/*
 * A dtracer_mark_send or dtracer_mark_recv: its flow (a 4- or 16-byte
 * address required) and [seq, end_seq). 0, or -1 if malformed.
 */
int dt_read_mark(const bt_field *payload, struct dt_flow *f, uint8_t *alen,
		 uint32_t *seq, uint32_t *end_seq);

/*
 * The payload of LTTng's net_dev_queue / net_if_receive_skb with their
 * network and transport headers: a TCP segment's addresses, ports and
 * sequence range (payload, plus one for SYN and one for FIN) as a mark.
 * 0, or -1 if the event is not a TCP segment over IPv4 or IPv6 (without
 * extension headers).
 */
int dt_read_net(const bt_field *payload, struct dt_mark *m);

#endif
