/*
 * The babeltrace2 plugin `dtracer` (babeltrace-plugin-dtracer.so): load
 * it with `babeltrace2 --plugin-path=DIR` or install it into
 * babeltrace2's plugin directory (`make install`).
 */
#include <babeltrace2/babeltrace.h>

#include "flt-dedup.h"
#include "flt-sync.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(dtracer);
BT_PLUGIN_DESCRIPTION("dtracer: align the clocks of hosts from dtracer's marked TCP segments");
BT_PLUGIN_AUTHOR("dtracer developers");
BT_PLUGIN_LICENSE("GPL-2.0");

BT_PLUGIN_FILTER_COMPONENT_CLASS(sync, dt_flt_sync_iter_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(sync,
	"Pass messages through; match dtracer_mark_send with dtracer_mark_recv "
	"and report each pair of hosts' clock offset and drift (convex hull)");
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP(sync,
	"Parameters: reference=HOST (clock the others map into), "
	"path=FILE (report; default standard output). "
	"Example: babeltrace2 --plugin-path=DIR TRACE... -c flt.dtracer.sync -c sink.utils.dummy");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(sync, dt_flt_sync_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(sync, dt_flt_sync_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(sync,
	dt_flt_sync_iter_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(sync,
	dt_flt_sync_iter_finalize);

BT_PLUGIN_FILTER_COMPONENT_CLASS(dedup, dt_flt_dedup_iter_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(dedup,
	"Drop repeated copies of an event (same host, time, name and fields): "
	"overlapping flight-recorder snapshots of one host, muxed");
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP(dedup,
	"No parameters; place it after a muxer. Example: babeltrace2 "
	"--plugin-path=DIR SNAPSHOTS... -c flt.dtracer.dedup");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(dedup, dt_flt_dedup_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(dedup, dt_flt_dedup_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(dedup,
	dt_flt_dedup_iter_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(dedup,
	dt_flt_dedup_iter_finalize);
