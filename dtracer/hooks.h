/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooking the kernel (hooks.c), for the files that hook: tracepoints found
 * by name and probed, netfilter hooks in every network namespace,
 * kretprobes. Each file registers and unregisters its own hooks, in its
 * own order, and unwinds its own failures; these helpers only set them up
 * and log a failure the same way everywhere. Process context, like every
 * registration.
 */
#ifndef DT_HOOKS_H
#define DT_HOOKS_H

#include <linux/kprobes.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/net_namespace.h>

struct tracepoint;

struct tracepoint *dt_tracepoint_find(const char *name);
int dt_tracepoint_hook(struct tracepoint **tp, const char *name,
		       void *probe, const char *what);
void dt_tracepoint_unhook(struct tracepoint *tp, void *probe);

/*
 * DT_NF_HOOKS(name, where) defines name_ops, the file's hook name_hook()
 * at NF_INET_<where> (LOCAL_IN, LOCAL_OUT) for IPv4 and IPv6, at the last
 * priority, and name_net_ops, which registers them in every network
 * namespace (dt_nf_hooks_register()) and unregisters them
 * (unregister_pernet_subsys()).
 */
#define DT_NF_HOOKS(name, where)					\
static const struct nf_hook_ops name##_ops[] = {			\
	{								\
		.hook = name##_hook,					\
		.pf = NFPROTO_IPV4,					\
		.hooknum = NF_INET_##where,				\
		.priority = NF_IP_PRI_LAST,				\
	},								\
	{								\
		.hook = name##_hook,					\
		.pf = NFPROTO_IPV6,					\
		.hooknum = NF_INET_##where,				\
		.priority = NF_IP6_PRI_LAST,				\
	},								\
};									\
									\
static int __net_init name##_net_init(struct net *net)			\
{									\
	return nf_register_net_hooks(net, name##_ops,			\
				     ARRAY_SIZE(name##_ops));		\
}									\
									\
static void __net_exit name##_net_exit(struct net *net)		\
{									\
	nf_unregister_net_hooks(net, name##_ops,			\
				ARRAY_SIZE(name##_ops));		\
}									\
									\
static struct pernet_operations name##_net_ops = {			\
	.init = name##_net_init,					\
	.exit = name##_net_exit,					\
}

int dt_nf_hooks_register(struct pernet_operations *ops, const char *what);

struct msghdr;
const void __user *dt_msg_user_head(const struct msghdr *msg, size_t *len);
long dt_msg_user_copy(const struct msghdr *msg, void *dst, size_t n);
long dt_msg_user_copy_at(const struct msghdr *msg, size_t off, void *dst,
			 size_t n);

void dt_kretprobe_init(struct kretprobe *rp, const char *symbol,
		       kretprobe_handler_t entry, kretprobe_handler_t handler,
		       size_t data_size, int maxactive);

#endif /* DT_HOOKS_H */
