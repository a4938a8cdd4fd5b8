/* Diagnostics for the runtime binary. Errors are printed once, by main, to
 * stderr and, when --log is given, as runc-style lines to the log file
 * (JSON lines {"level","msg","time"} with --log-format json, which podman and
 * containerd's shim read back to show the user). */
#pragma once
#include <stdbool.h>

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* path may be NULL; json selects the JSON line format. */
int log_init(const char *path, bool json, bool debug);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A failure of the whole command: to stderr always, and to the log file. */
void log_fatal(const char *msg);
bool log_debug_enabled(void);

#define log_warn(...) log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)
