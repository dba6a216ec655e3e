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
 * That list is the initial network namespace's. Every other network
 * namespace trusts nothing until the host's root gives it a list of its
 * own (/sys/distributed-tracer/trust_netns, "INODE PREFIX...", INODE as
 * /proc/PID/ns/net names it): a process that made a network namespace
 * (a rootless container: CAP_NET_RAW and CAP_NET_ADMIN over its own)
 * can forge marks on its own loopback, which the host's list trusts in
 * the initial namespace only. A namespace's list lives in its net_generic
 * slot and goes with it.
 *
 * A list is replaced whole: a write is parsed into a new list, which is
 * published with RCU; the ingress hook reads it under RCU (netfilter
 * hooks run in an RCU read-side section). Writers serialise on
 * dt_trust_lock (process context).
 */
#include "dtracer.h"
#include "parse.h"

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

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

static struct dt_trust __rcu *dt_trust_list;	/* the initial namespace's */
static DEFINE_MUTEX(dt_trust_lock);

/* Another network namespace's list, NULL until root gives it one. */
struct dt_trust_net {
	struct dt_trust __rcu *list;
};

static unsigned int dt_trust_net_id;

static struct dt_trust __rcu **dt_trust_slot(struct net *net)
{
	struct dt_trust_net *tn;

	if (net_eq(net, &init_net))
		return &dt_trust_list;
	tn = net_generic(net, dt_trust_net_id);
	return &tn->list;
}

/*
 * Whether the source of skb (IPv4 or IPv6, by pf), received in net, is
 * trusted there. RCU.
 */
bool dt_trusted(const struct sk_buff *skb, u8 pf, struct net *net)
{
	const struct dt_trust *t = rcu_dereference(*dt_trust_slot(net));
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

/* buf parsed into a new list, or an ERR_PTR. */
static struct dt_trust *dt_trust_parse(const char *buf, size_t len)
{
	struct dt_trust *t;
	int n;

	t = kzalloc(struct_size(t, p, DT_PREFIXES_MAX), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	n = dt_parse_prefixes(buf, len, t->p, DT_PREFIXES_MAX);
	if (n < 0) {
		kfree(t);
		return ERR_PTR(n);
	}
	t->n = n;
	return t;
}

/* t (or none: NULL) becomes the list of *slot; the old one goes. */
static void dt_trust_publish(struct dt_trust __rcu **slot, struct dt_trust *t)
{
	struct dt_trust *old;

	mutex_lock(&dt_trust_lock);
	old = rcu_replace_pointer(*slot, t, lockdep_is_held(&dt_trust_lock));
	mutex_unlock(&dt_trust_lock);
	if (old)
		kfree_rcu(old, rcu);
}

/*
 * Parses buf into the initial namespace's new list and publishes it;
 * nothing changes on error.
 */
int dt_trust_set(const char *buf, size_t len)
{
	struct dt_trust *t = dt_trust_parse(buf, len);

	if (IS_ERR(t))
		return PTR_ERR(t);
	dt_trust_publish(&dt_trust_list, t);
	return 0;
}

/* Appends t's prefixes to buf at len, space-separated; the new length. */
static int dt_trust_print(char *buf, int len, const struct dt_trust *t)
{
	const struct dt_prefix *p;
	unsigned int i;

	for (i = 0; t && i < t->n; i++) {
		p = &t->p[i];
		if (p->family == 4)
			len += sysfs_emit_at(buf, len, "%s%pI4/%u", i ? " " : "",
					     p->addr, p->bits);
		else
			len += sysfs_emit_at(buf, len, "%s%pI6c/%u", i ? " " : "",
					     p->addr, p->bits);
	}
	return len;
}

/* The list as "PREFIX PREFIX...\n" ("\n" alone when empty). */
ssize_t dt_trust_show(char *buf)
{
	int len;

	rcu_read_lock();
	len = dt_trust_print(buf, 0, rcu_dereference(dt_trust_list));
	rcu_read_unlock();
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/* The network namespace whose inode is inum (a reference), or NULL. */
static struct net *dt_net_by_inum(unsigned int inum)
{
	struct net *net, *found = NULL;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (net->ns.inum == inum) {
			found = maybe_get_net(net);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * trust_netns: "INODE PREFIX..." gives the network namespace INODE (not
 * the initial one: that is trust's) that list; "INODE" alone takes its
 * list away (it trusts nothing again). EINVAL for a bad number, the
 * initial namespace or a bad list (E2BIG: too long), ENOENT for no such
 * namespace; nothing changes on error.
 */
int dt_trust_netns_set(const char *buf, size_t len)
{
	struct dt_trust *t;
	char num[16];
	unsigned int inum;
	struct net *net;
	size_t i, n;
	int ret;

	for (i = 0; i < len && (buf[i] == ' ' || buf[i] == '\t'); i++)
		;
	for (n = 0; i + n < len && buf[i + n] >= '0' && buf[i + n] <= '9'; n++)
		;
	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, buf + i, n);
	num[n] = 0;
	if (kstrtouint(num, 10, &inum))	/* ERANGE too: a bad number */
		return -EINVAL;
	i += n;
	if (i < len && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n')
		return -EINVAL;
	net = dt_net_by_inum(inum);
	if (!net)
		return -ENOENT;
	ret = -EINVAL;
	if (net_eq(net, &init_net))
		goto out;
	t = dt_trust_parse(buf + i, len - i);
	ret = PTR_ERR_OR_ZERO(t);
	if (ret)
		goto out;
	if (!t->n) {		/* no list: it trusts nothing */
		kfree(t);
		t = NULL;
	}
	dt_trust_publish(dt_trust_slot(net), t);
out:
	put_net(net);
	return ret;
}

/* Every namespace given a list, as "INODE PREFIX...\n" lines. */
ssize_t dt_trust_netns_show(char *buf)
{
	const struct dt_trust *t;
	struct net *net;
	int len = 0;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (net_eq(net, &init_net))
			continue;
		t = rcu_dereference(*dt_trust_slot(net));
		if (!t)
			continue;
		len += sysfs_emit_at(buf, len, "%u%s", net->ns.inum,
				     t->n ? " " : "");
		len = dt_trust_print(buf, len, t);
		len += sysfs_emit_at(buf, len, "\n");
	}
	rcu_read_unlock();
	return len;
}

/*
 * A namespace going away takes its list with it (no reader can find the
 * namespace any more: it left the list of namespaces a grace period ago,
 * and its hooks are gone).
 */
static void dt_trust_net_exit(struct net *net)
{
	struct dt_trust_net *tn = net_generic(net, dt_trust_net_id);
	struct dt_trust *t = rcu_replace_pointer(tn->list, NULL, true);

	if (t)
		kfree_rcu(t, rcu);
}

static struct pernet_operations dt_trust_net_ops = {
	.exit = dt_trust_net_exit,
	.id = &dt_trust_net_id,
	.size = sizeof(struct dt_trust_net),
};

int dt_trust_init(void)
{
	int ret = dt_trust_set(trust, strlen(trust));

	if (ret == -E2BIG)
		pr_err("trust=: more than %d prefixes\n", DT_PREFIXES_MAX);
	else if (ret)
		pr_err("trust=\"%s\": not a list of address prefixes (ADDRESS[/BITS],...)\n",
		       trust);
	if (ret)
		return ret;
	ret = register_pernet_subsys(&dt_trust_net_ops);
	if (ret)
		dt_trust_publish(&dt_trust_list, NULL);
	return ret;
}

/* After the hooks are gone (main.c): every list goes. */
void dt_trust_exit(void)
{
	unregister_pernet_subsys(&dt_trust_net_ops);
	dt_trust_publish(&dt_trust_list, NULL);
}
