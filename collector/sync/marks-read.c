/*
 * Reading dtracer's events from babeltrace2 fields. See marks-read.h.
 */
#include "marks-read.h"

#include <string.h>

const bt_field *dt_field_member(const bt_field *s, const char *name)
{
	if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	return bt_field_structure_borrow_member_field_by_name_const(s, name);
}

int dt_field_int(const bt_field *s, const char *name, int64_t *v)
{
	const bt_field *f = dt_field_member(s, name);

	if (!f)
		return -1;
	switch (bt_field_get_class_type(f)) {
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
		*v = (int64_t)bt_field_integer_unsigned_get_value(f);
		return 0;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		*v = bt_field_integer_signed_get_value(f);
		return 0;
	default:
		return -1;
	}
}

int dt_field_addr(const bt_field *s, const char *name, uint8_t *out,
		  uint64_t *len)
{
	const bt_field *f = dt_field_member(s, name);

	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f),
					  BT_FIELD_CLASS_TYPE_ARRAY))
		return -1;
	*len = bt_field_array_get_length(f);
	if (*len != 0 && *len != 4 && *len != 16)
		return -1;
	for (uint64_t i = 0; i < *len; i++) {
		const bt_field *e =
			bt_field_array_borrow_element_field_by_index_const(f, i);

		if (!bt_field_class_type_is(bt_field_get_class_type(e),
				BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return -1;
		out[i] = (uint8_t)bt_field_integer_unsigned_get_value(e);
	}
	return 0;
}

int dt_read_flow(const bt_field *payload, struct dt_flow *f, uint8_t *alen)
{
	int64_t family, sport, dport;
	uint64_t slen, dlen;

	memset(f, 0, sizeof(*f));
	if (dt_field_int(payload, "family", &family) ||
	    dt_field_int(payload, "sport", &sport) ||
	    dt_field_int(payload, "dport", &dport) ||
	    dt_field_addr(payload, "saddr", f->saddr, &slen) ||
	    dt_field_addr(payload, "daddr", f->daddr, &dlen) || slen != dlen)
		return -1;
	f->family = (uint8_t)family;
	f->sport = (uint16_t)sport;
	f->dport = (uint16_t)dport;
	*alen = (uint8_t)slen;
	return 0;
}

int dt_read_mark(const bt_field *payload, struct dt_flow *f, uint8_t *alen,
		 uint32_t *seq, uint32_t *end_seq)
{
	int64_t s, e;

	if (dt_read_flow(payload, f, alen) || !*alen ||
	    dt_field_int(payload, "seq", &s) ||
	    dt_field_int(payload, "end_seq", &e))
		return -1;
	*seq = (uint32_t)s;
	*end_seq = (uint32_t)e;
	return 0;
}

static int uint_member(const bt_field *s, const char *name, uint64_t *v)
{
	int64_t x;

	if (dt_field_int(s, name, &x))
		return -1;
	*v = (uint64_t)x;
	return 0;
}

/* The selected option of a variant member, if s has one of that name. */
static const bt_field *option(const bt_field *s, const char *name)
{
	const bt_field *v = dt_field_member(s, name);

	if (!v || !bt_field_class_type_is(bt_field_get_class_type(v),
					  BT_FIELD_CLASS_TYPE_VARIANT))
		return NULL;
	return bt_field_variant_borrow_selected_option_field_const(v);
}

/* IPv6 addresses: eight big-endian 16-bit words. */
static int addr6_member(const bt_field *s, const char *name, uint8_t *out)
{
	const bt_field *f = dt_field_member(s, name);

	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f),
					  BT_FIELD_CLASS_TYPE_ARRAY) ||
	    bt_field_array_get_length(f) != 8)
		return -1;
	for (uint64_t i = 0; i < 8; i++) {
		uint64_t w = bt_field_integer_unsigned_get_value(
			bt_field_array_borrow_element_field_by_index_const(f, i));

		out[2 * i] = (uint8_t)(w >> 8);
		out[2 * i + 1] = (uint8_t)w;
	}
	return 0;
}

int dt_read_net(const bt_field *p, struct dt_mark *m)
{
	const bt_field *ip = option(p, "network_header"), *tcp;
	uint64_t tot, ihl = 0, proto, doff, flags, sport, dport, seq;
	int64_t len;

	memset(m, 0, sizeof(*m));
	if (!ip)
		return -1;
	tcp = option(ip, "transport_header");
	if (!tcp || uint_member(tcp, "data_offset", &doff) ||
	    uint_member(tcp, "flags", &flags) ||
	    uint_member(tcp, "source_port", &sport) ||
	    uint_member(tcp, "dest_port", &dport) ||
	    uint_member(tcp, "seq", &seq))
		return -1;
	if (!uint_member(ip, "tot_len", &tot)) {
		uint64_t slen = 0, dlen = 0;

		if (uint_member(ip, "ihl", &ihl) ||
		    dt_field_addr(ip, "saddr", m->saddr, &slen) ||
		    dt_field_addr(ip, "daddr", m->daddr, &dlen) ||
		    slen != 4 || dlen != 4)
			return -1;
		m->family = 2;		/* AF_INET */
		m->alen = 4;
		len = (int64_t)tot - 4 * (int64_t)ihl - 4 * (int64_t)doff;
	} else if (!uint_member(ip, "payload_len", &tot) &&
		   !uint_member(ip, "nexthdr", &proto) && proto == 6 &&
		   !addr6_member(ip, "saddr", m->saddr) &&
		   !addr6_member(ip, "daddr", m->daddr)) {
		m->family = 10;		/* AF_INET6 */
		m->alen = 16;
		len = (int64_t)tot - 4 * (int64_t)doff;
	} else {
		return -1;
	}
	if (len < 0)
		return -1;
	len += !!(flags & 0x002) + !!(flags & 0x001);	/* SYN, FIN */
	m->sport = (uint16_t)sport;
	m->dport = (uint16_t)dport;
	m->seq = (uint32_t)seq;
	m->end_seq = (uint32_t)(seq + (uint64_t)len);
	return 0;
}
