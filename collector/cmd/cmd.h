/* The `dtracer` command's subcommands (main.c dispatches). */
#ifndef DT_COLLECTOR_CMD_H
#define DT_COLLECTOR_CMD_H

int dt_cmd_merge(int argc, char **argv, int only_sync);
int dt_cmd_collect(int argc, char **argv);
int dt_cmd_record(int argc, char **argv);
int dt_cmd_stop(int argc, char **argv);
int dt_cmd_requests(int argc, char **argv);
int dt_cmd_view(int argc, char **argv);
int dt_cmd_export(int argc, char **argv);
int dt_cmd_watch(int argc, char **argv);
int dt_cmd_go(int argc, char **argv);
int dt_cmd_python(int argc, char **argv);

#endif
