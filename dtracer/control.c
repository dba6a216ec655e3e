// SPDX-License-Identifier: GPL-2.0
/*
 * The control interface: /sys/distributed-tracer/.
 *
 *   probe  rw  "1" arms dtracer's hooks, "0" disarms them
 *   trace  r   "1" while dt_trace_active is non-zero, else "0"
 *
 * Every read ends with a newline; every bad write returns an errno and
 * changes nothing. Write permission is root's only (mode 0644).
 */
#include "dtracer.h"
#include "parse.h"

#include <linux/kobject.h>
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

static struct kobj_attribute dt_attr_probe = __ATTR_RW(probe);
static struct kobj_attribute dt_attr_trace = __ATTR_RO(trace);

static struct attribute *dt_attrs[] = {
	&dt_attr_probe.attr,
	&dt_attr_trace.attr,
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
