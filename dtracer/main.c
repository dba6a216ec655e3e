// SPDX-License-Identifier: GPL-2.0
/*
 * dtracer: module init and exit, nothing else. Each concern lives in its
 * own file: state.c (switches), control.c (sysfs), parse.c (input).
 */
#include "dtracer.h"

#include <linux/module.h>

static int __init dt_init(void)
{
	int ret;

	ret = dt_control_init();
	if (ret)
		return ret;

	pr_info("loaded\n");
	return 0;
}

static void __exit dt_exit(void)
{
	dt_control_exit();
	dt_probe_set(false);
	pr_info("unloaded\n");
}

module_init(dt_init);
module_exit(dt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Zero-instrumentation distributed kernel tracing");
MODULE_AUTHOR("The dtracer developers");
MODULE_VERSION("0.1.0");
