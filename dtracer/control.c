// SPDX-License-Identifier: GPL-2.0
/*
 * The control interface: /sys/distributed-tracer/.
 *
 *   add_pid      w   flag these thread ids (manual)
 *   remove_pid   w   unflag these thread ids
 *   list_pid     r   every flagged thread: "TID PID REASON [DETAIL] [answered]"
 *   probe        rw  "1" arms the packet hooks, "0" disarms them
 *   trace        r   "1" while dt_trace_active is non-zero, else "0"
 *   inherit      rw  "1": children of flagged threads are flagged
 *   max_threads  rw  size limit of the thread table
 *   max_sockets  rw  size limit of the socket table
 *   trust        rw  address prefixes whose marks are honoured in the
 *                    initial network namespace (trust.c)
 *   trust_netns  rw  the same for other network namespaces, which trust
 *                    nothing until given a list: "INODE PREFIX..." lines
 *   max_propagations rw  new propagated flags allowed per second (0: no
 *                    limit)
 *   gate         rw  what the lttng-modules fork records while the probe
 *                    is armed: "off", "global" (default) or "thread"
 *                    (see gate.c)
 *   stats        r   "name value" lines: counters and table sizes
 *
 * Every read ends with a newline; every bad write returns an errno and
 * changes nothing. Writes are root's only (the file modes).
 */
#include "dtracer.h"
#include "parse.h"

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

static struct kobject *dt_kobj;

static ssize_t probe_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", dt_probe_armed());
}

static ssize_t probe_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	bool arm;
	int ret;

	ret = dt_parse_switch(buf, count, &arm);
	if (ret)
		return ret;
	ret = dt_probe_set(arm);
	return ret ? ret : count;
}

static ssize_t trace_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&dt_trace_active) > 0);
}

/* Parses a list of thread ids and hands it to apply. */
static ssize_t dt_store_tids(const char *buf, size_t count,
			     int (*apply)(int *ids, int n))
{
	size_t max = count / 2 + 1;
	int *ids, n, ret;

	ids = kmalloc_array(max, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	n = dt_parse_tids(buf, count, ids, max);
	ret = n < 0 ? n : apply(ids, n);
	kfree(ids);
	return ret ? ret : count;
}

static ssize_t add_pid_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	return dt_store_tids(buf, count, dt_flags_add);
}

static ssize_t remove_pid_store(struct kobject *kobj,
				struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	return dt_store_tids(buf, count, dt_flags_remove);
}

static ssize_t list_pid_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return dt_flags_list(buf, PAGE_SIZE);
}

static ssize_t inherit_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(dt_inherit));
}

static ssize_t inherit_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = dt_parse_switch(buf, count, &on);
	if (ret)
		return ret;
	WRITE_ONCE(dt_inherit, on);
	return count;
}

#define DT_MAX_THREADS_LIMIT 65536
#define DT_MAX_SOCKETS_LIMIT 65536

/* A table limit: a number from 1 to max. */
static ssize_t dt_store_limit(const char *buf, size_t count, unsigned int max,
			      unsigned int *limit)
{
	unsigned int v;
	int ret;

	ret = dt_parse_uint(buf, count, 1, max, &v);
	if (ret)
		return ret;
	WRITE_ONCE(*limit, v);
	return count;
}

static ssize_t max_threads_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(dt_max_threads));
}

static ssize_t max_threads_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	return dt_store_limit(buf, count, DT_MAX_THREADS_LIMIT, &dt_max_threads);
}

static ssize_t max_sockets_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(dt_max_sockets));
}

static ssize_t max_sockets_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	return dt_store_limit(buf, count, DT_MAX_SOCKETS_LIMIT, &dt_max_sockets);
}

static ssize_t trust_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return dt_trust_show(buf);
}

static ssize_t trust_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int ret = dt_trust_set(buf, count);

	return ret ? ret : count;
}

static ssize_t trust_netns_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return dt_trust_netns_show(buf);
}

static ssize_t trust_netns_store(struct kobject *kobj,
				 struct kobj_attribute *attr, const char *buf,
				 size_t count)
{
	int ret = dt_trust_netns_set(buf, count);

	return ret ? ret : count;
}

#define DT_MAX_PROPAGATIONS_LIMIT 1000000

static ssize_t max_propagations_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dt_flags_max_propagations());
}

static ssize_t max_propagations_store(struct kobject *kobj,
				      struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	unsigned int v;
	int ret;

	ret = dt_parse_uint(buf, count, 0, DT_MAX_PROPAGATIONS_LIMIT, &v);
	if (ret)
		return ret;
	dt_flags_set_max_propagations(v);
	return count;
}

static ssize_t gate_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", dt_gate_names[dt_gate_get()]);
}

static ssize_t gate_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	int mode = __sysfs_match_string(dt_gate_names, DT_GATE_COUNT, buf);

	if (mode < 0)
		return -EINVAL;
	dt_gate_set(mode);
	return count;
}

static ssize_t go_show(struct kobject *kobj, struct kobj_attribute *attr,
		       char *buf)
{
	return dt_go_show(buf);
}

static ssize_t go_store(struct kobject *kobj, struct kobj_attribute *attr,
			const char *buf, size_t count)
{
	int ret = dt_go_set(buf, count);

	return ret ? ret : count;
}

static ssize_t python_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return dt_pyq_show(buf);
}

static ssize_t python_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	int ret = dt_pyq_set(buf, count);

	return ret ? ret : count;
}

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	int len = 0;
	int s;

	len += sysfs_emit_at(buf, len, "threads %u\n", dt_flags_count());
	len += sysfs_emit_at(buf, len, "sockets %u\n", dt_socks_count());
	len += sysfs_emit_at(buf, len, "lttng_attached %d\n",
			     dt_gate_attached());
	len += sysfs_emit_at(buf, len, "syscalls_narrowed %d\n",
			     dt_flags_narrowed());
	for (s = 0; s < DT_STAT_COUNT; s++)
		len += sysfs_emit_at(buf, len, "%s %llu\n", dt_stat_name(s),
				     dt_stat_read(s));
	len += sysfs_emit_at(buf, len, "drops_missed_probes %lu\n",
			     dt_egress_missed());
	for (s = 0; s < DT_MEM_COUNT; s++)
		len += sysfs_emit_at(buf, len, "%s %ld\n", dt_mem_name(s),
				     dt_mem_read(s));
	return len;
}

static struct kobj_attribute dt_attr_probe = __ATTR_RW(probe);
static struct kobj_attribute dt_attr_trace = __ATTR_RO(trace);
static struct kobj_attribute dt_attr_add_pid = __ATTR_WO(add_pid);
static struct kobj_attribute dt_attr_remove_pid = __ATTR_WO(remove_pid);
static struct kobj_attribute dt_attr_list_pid = __ATTR_RO(list_pid);
static struct kobj_attribute dt_attr_inherit = __ATTR_RW(inherit);
static struct kobj_attribute dt_attr_max_threads = __ATTR_RW(max_threads);
static struct kobj_attribute dt_attr_max_sockets = __ATTR_RW(max_sockets);
static struct kobj_attribute dt_attr_trust = __ATTR_RW(trust);
static struct kobj_attribute dt_attr_trust_netns = __ATTR_RW(trust_netns);
static struct kobj_attribute dt_attr_max_propagations =
	__ATTR_RW(max_propagations);
static struct kobj_attribute dt_attr_gate = __ATTR_RW(gate);
static struct kobj_attribute dt_attr_stats = __ATTR_RO(stats);
static struct kobj_attribute dt_attr_go = __ATTR_RW(go);
static struct kobj_attribute dt_attr_python = __ATTR_RW(python);

static struct attribute *dt_attrs[] = {
	&dt_attr_probe.attr,
	&dt_attr_go.attr,
	&dt_attr_python.attr,
	&dt_attr_trace.attr,
	&dt_attr_add_pid.attr,
	&dt_attr_remove_pid.attr,
	&dt_attr_list_pid.attr,
	&dt_attr_inherit.attr,
	&dt_attr_max_threads.attr,
	&dt_attr_max_sockets.attr,
	&dt_attr_trust.attr,
	&dt_attr_trust_netns.attr,
	&dt_attr_max_propagations.attr,
	&dt_attr_gate.attr,
	&dt_attr_stats.attr,
	NULL,
};

static const struct attribute_group dt_attr_group = {
	.attrs = dt_attrs,
};

int dt_control_init(void)
{
	int ret;

	dt_kobj = kobject_create_and_add("distributed-tracer", NULL);
	if (!dt_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(dt_kobj, &dt_attr_group);
	if (ret) {
		kobject_put(dt_kobj);
		dt_kobj = NULL;
	}
	return ret;
}

void dt_control_exit(void)
{
	sysfs_remove_group(dt_kobj, &dt_attr_group);
	kobject_put(dt_kobj);
	dt_kobj = NULL;
}
