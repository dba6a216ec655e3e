// SPDX-License-Identifier: GPL-2.0
/*
 * Trust: whose marks are honoured.
 *
 * Anyone who can send a TCP segment to this host can set the mark bit. A
 * marked segment is honoured (its bytes recorded, its reader flagged)
 * only when its source address is in the trust list: address prefixes,
 * IPv4 and IPv6, set by root through /sys/distributed-tracer/trust or the
 * module parameter trust=. Other marked segments are counted
 * (marks_untrusted) and otherwise ignored, as if unmarked.
 *
 * The default is loopback only (127.0.0.0/8 ::1/128): on loopback only
 * this host's own processes send, and only a thread root flagged sets the
 * bit without raw sockets. Machines on a network are trusted by naming
 * them.
 *
 * The list is replaced whole: a write is parsed into a new list, which is
 * published with RCU; the ingress hook reads it under RCU (netfilter
 * hooks run in an RCU read-side section). Writers serialise on
 * dt_trust_lock (process context).
 */
#include "dtracer.h"
#include "parse.h"

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#define DT_TRUST_DEFAULT "127.0.0.0/8 ::1/128"

static char *trust = DT_TRUST_DEFAULT;
module_param(trust, charp, 0);
MODULE_PARM_DESC(trust,
		 "Address prefixes whose marks are honoured, separated by commas (default: "
		 DT_TRUST_DEFAULT ")");

struct dt_trust {
	struct rcu_head rcu;
	unsigned int n;
	struct dt_prefix p[];
};

static struct dt_trust __rcu *dt_trust_list;
static DEFINE_MUTEX(dt_trust_lock);

/* Whether the source of skb (IPv4 or IPv6, by pf) is trusted. RCU. */
bool dt_trusted(const struct sk_buff *skb, u8 pf)
{
	const struct dt_trust *t = rcu_dereference(dt_trust_list);
	const unsigned char *addr;
	unsigned char family;
	unsigned int i;

	if (pf == NFPROTO_IPV4) {
		family = 4;
		addr = (const unsigned char *)&ip_hdr(skb)->saddr;
	} else {
		family = 6;
		addr = ipv6_hdr(skb)->saddr.s6_addr;
	}
	for (i = 0; t && i < t->n; i++)
		if (dt_prefix_match(&t->p[i], family, addr))
			return true;
	return false;
}

/* Parses buf into a new list and publishes it; nothing changes on error. */
int dt_trust_set(const char *buf, size_t len)
{
	struct dt_trust *t, *old;
	int n;

	t = kzalloc(struct_size(t, p, DT_PREFIXES_MAX), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	n = dt_parse_prefixes(buf, len, t->p, DT_PREFIXES_MAX);
	if (n < 0) {
		kfree(t);
		return n;
	}
	t->n = n;
	mutex_lock(&dt_trust_lock);
	old = rcu_replace_pointer(dt_trust_list, t,
				  lockdep_is_held(&dt_trust_lock));
	mutex_unlock(&dt_trust_lock);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* The list as "PREFIX PREFIX...\n" ("\n" alone when empty). */
ssize_t dt_trust_show(char *buf)
{
	const struct dt_trust *t;
	const struct dt_prefix *p;
	unsigned int i;
	int len = 0;

	rcu_read_lock();
	t = rcu_dereference(dt_trust_list);
	for (i = 0; t && i < t->n; i++) {
		p = &t->p[i];
		if (p->family == 4)
			len += sysfs_emit_at(buf, len, "%s%pI4/%u", i ? " " : "",
					     p->addr, p->bits);
		else
			len += sysfs_emit_at(buf, len, "%s%pI6c/%u", i ? " " : "",
					     p->addr, p->bits);
	}
	rcu_read_unlock();
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

int dt_trust_init(void)
{
	int ret = dt_trust_set(trust, strlen(trust));

	if (ret == -E2BIG)
		pr_err("trust=: more than %d prefixes\n", DT_PREFIXES_MAX);
	else if (ret)
		pr_err("trust=\"%s\": not a list of address prefixes (ADDRESS[/BITS],...)\n",
		       trust);
	return ret;
}

void dt_trust_exit(void)
{
	struct dt_trust *t;

	mutex_lock(&dt_trust_lock);
	t = rcu_replace_pointer(dt_trust_list, NULL,
				lockdep_is_held(&dt_trust_lock));
	mutex_unlock(&dt_trust_lock);
	if (t)
		kfree_rcu(t, rcu);
}
