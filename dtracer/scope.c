// SPDX-License-Identifier: GPL-2.0
/*
 * Scope: whether the system call a thread is in works for its request.
 *
 * An event loop in a request's context reads and writes many
 * connections; it leaves the context only when it reads another
 * client's bytes or answers another request, which happens inside that
 * system call, after its entry was recorded. The gate (gate.c, mode
 * thread) asks here first: an event of a thread in context c, in task
 * context, during a read or write family system call (read, write,
 * readv, writev, sendto, recvfrom, sendmsg, recvmsg, sendfile) whose
 * file descriptor is a TCP connection that is neither c's request
 * socket nor one that c sent a request on or is served on, is another
 * connection's work and is not recorded. Other descriptors (files,
 * pipes, eventfds, UDP) say nothing and are recorded as before.
 *
 * The system call is read from the registers its entry saved (x86-64:
 * orig_ax holds its number, di its first argument). The SYSCALL
 * instruction put the return address in cx and the flags in r11, so a
 * frame with cx equal to ip and r11 to flags is a system call's (the
 * kernel's own test for returning with SYSRET); a page fault's frame,
 * whose orig_ax is an error code, is not. A 32-bit call (int 0x80,
 * other numbers) is not judged. Its return event is judged as its
 * entry: the thread is still in the context if the call did not take
 * it out. The descriptor is looked up under RCU without a reference:
 * the call being made on it holds one. Elsewhere than x86-64 nothing
 * is judged.
 *
 * Locking: RCU (the caller's read-side section, asserted): the thread's
 * file table and the socket table are read, nothing is written.
 */
#include "dtracer.h"

#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <net/sock.h>
#ifdef CONFIG_X86_64
#include <asm/unistd.h>
#endif

#ifdef CONFIG_X86_64
/* The descriptor of the read or write family call current is in, or -1. */
static long dt_scope_fd(void)
{
	const struct pt_regs *regs = task_pt_regs(current);

	if (regs->cx != regs->ip || regs->r11 != regs->flags ||
	    in_ia32_syscall())
		return -1;
	switch (regs->orig_ax) {
	case __NR_read:
	case __NR_write:
	case __NR_readv:
	case __NR_writev:
	case __NR_sendto:
	case __NR_recvfrom:
	case __NR_sendmsg:
	case __NR_recvmsg:
	case __NR_sendfile:
		return regs->di <= INT_MAX ? (long)regs->di : -1;
	default:
		return -1;
	}
}
#else
static long dt_scope_fd(void)
{
	return -1;
}
#endif

/* The TCP connection behind current's descriptor fd, or NULL. */
static const struct sock *dt_scope_sock(unsigned int fd)
{
	struct files_struct *files = current->files;
	const struct sock *sk;
	struct socket *sock;
	struct file *file;

	if (!files)
		return NULL;
	file = files_lookup_fd_raw(files, fd);
	sock = file ? sock_from_file(file) : NULL;
	sk = sock ? READ_ONCE(sock->sk) : NULL;
	if (!sk || sk->sk_protocol != IPPROTO_TCP || !sk_fullsock(sk))
		return NULL;
	return sk;
}

/*
 * Whether current, working for c, is in a system call on another TCP
 * connection than c's (see above). Task context, under RCU.
 */
bool dt_scope_foreign(const struct dt_ctx *c)
{
	const struct sock *sk;
	struct dt_sock *ds;
	long fd;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "scope read outside an RCU read-side section");
	if (current->flags & PF_KTHREAD)
		return false;
	fd = dt_scope_fd();
	sk = fd >= 0 ? dt_scope_sock(fd) : NULL;
	if (!sk || sk == c->sk)
		return false;
	ds = dt_sock_find(sk);
	return !ds || (READ_ONCE(ds->served) != c &&
		       READ_ONCE(ds->outstanding) != c);
}
