// SPDX-License-Identifier: GPL-2.0
/*
 * Hooking the kernel: the helpers (hooks.h) every file that hooks uses.
 * The kernel's tracepoints dtracer hooks (lifecycle.c's fork and exit,
 * ingress.c's read, egress.c's connect, sockets.c's destroy, handoff.c's
 * wake-up, syscalls.c's system call tracepoints) are not all exported as
 * symbols: they are found by name among the kernel's. Netfilter hooks go
 * into every network namespace (DT_NF_HOOKS()), kretprobes are set up
 * from scratch before each registration.
 *
 * Locking: none of its own; process context only (registration sleeps),
 * the callers serialise their own hooks (dt_probe_lock, module init and
 * exit, dt_syscalls_lock).
 */
#include "dtracer.h"
#include "hooks.h"

#include <linux/socket.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

struct dt_tp_search {
	const char *name;
	struct tracepoint *tp;
};

static void dt_tp_match(struct tracepoint *tp, void *priv)
{
	struct dt_tp_search *s = priv;

	if (!strcmp(tp->name, s->name))
		s->tp = tp;
}

/* The kernel's tracepoint called name, or NULL. Process context. */
struct tracepoint *dt_tracepoint_find(const char *name)
{
	struct dt_tp_search s = { .name = name };

	for_each_kernel_tracepoint(dt_tp_match, &s);
	return s.tp;
}

/*
 * probe (its data NULL) on the kernel's tracepoint name, found into *tp:
 * 0, or an errno and a line in the log ("kernel has no NAME tracepoint",
 * "cannot hook WHAT: ERRNO").
 */
int dt_tracepoint_hook(struct tracepoint **tp, const char *name,
		       void *probe, const char *what)
{
	int ret;

	*tp = dt_tracepoint_find(name);
	if (!*tp) {
		pr_err("kernel has no %s tracepoint\n", name);
		return -ENOENT;
	}
	ret = tracepoint_probe_register(*tp, probe, NULL);
	if (ret)
		pr_err("cannot hook %s: %d\n", what, ret);
	return ret;
}

/* probe off tp, and no CPU in it any more. */
void dt_tracepoint_unhook(struct tracepoint *tp, void *probe)
{
	tracepoint_probe_unregister(tp, probe, NULL);
	tracepoint_synchronize_unregister();
}

/*
 * ops (DT_NF_HOOKS()'s name_net_ops) in every network namespace: 0, or an
 * errno and "cannot hook WHAT: ERRNO" in the log.
 */
int dt_nf_hooks_register(struct pernet_operations *ops, const char *what)
{
	int ret = register_pernet_subsys(ops);

	if (ret)
		pr_err("cannot hook %s: %d\n", what, ret);
	return ret;
}

/* rp, from scratch: handlers entry and handler on symbol. */
void dt_kretprobe_init(struct kretprobe *rp, const char *symbol,
		       kretprobe_handler_t entry, kretprobe_handler_t handler,
		       size_t data_size, int maxactive)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = symbol;
	rp->entry_handler = entry;
	rp->handler = handler;
	rp->data_size = data_size;
	rp->maxactive = maxactive;
}

/*
 * The user memory a sendmsg's or recvmsg's msg starts with, and how many
 * bytes of it are there (its first segment); NULL for kernel memory
 * (kTLS, splice).
 */
const void __user *dt_msg_user_head(const struct msghdr *msg, size_t *len)
{
	const struct iov_iter *i = &msg->msg_iter;

	if (!iter_is_ubuf(i) && !iter_is_iovec(i))
		return NULL;
#ifdef DT_HAVE_ITER_IOV
	*len = min(iter_iov_len(i), i->count);
	return iter_iov_addr(i);
#else
	if (iter_is_ubuf(i)) {
		*len = i->count;
		return i->ubuf + i->iov_offset;
	}
	*len = min(i->iov->iov_len - i->iov_offset, i->count);
	return i->iov->iov_base + i->iov_offset;
#endif
}

/*
 * n bytes at off of a sendmsg's or recvmsg's user memory, across its
 * segments (a writev's), copied into dst without faulting (a kprobe's
 * handler may not sleep): how many (fewer if the message has fewer), or
 * -EFAULT (kernel memory, a page not there).
 */
long dt_msg_user_copy_at(const struct msghdr *msg, size_t off, void *dst,
			 size_t n)
{
	const struct iov_iter *i = &msg->msg_iter;
	const struct iovec *iov;
	size_t done = 0, len, total = iov_iter_count(i);
	unsigned long seg;

	if (off >= total)
		return 0;
	n = min(n, total - off);
	if (iter_is_ubuf(i))
		return copy_from_user_nofault(dst, i->ubuf + i->iov_offset + off,
					      n) ? -EFAULT : n;
	if (!iter_is_iovec(i))
		return -EFAULT;
#ifdef DT_HAVE_ITER_IOV
	iov = iter_iov(i);
#else
	iov = i->iov;
#endif
	off += i->iov_offset;
	for (seg = 0; seg < i->nr_segs && done < n; seg++) {
		if (off >= iov[seg].iov_len) {
			off -= iov[seg].iov_len;
			continue;
		}
		len = min(iov[seg].iov_len - off, n - done);
		if (copy_from_user_nofault(dst + done,
					   iov[seg].iov_base + off, len))
			return -EFAULT;
		done += len;
		off = 0;
	}
	return done;
}

/* The first n bytes of the same (dt_msg_user_copy_at()). */
long dt_msg_user_copy(const struct msghdr *msg, void *dst, size_t n)
{
	return dt_msg_user_copy_at(msg, 0, dst, n);
}
