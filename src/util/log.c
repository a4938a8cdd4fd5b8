#include "util/log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/json.h"

static int log_fd = -1;
static bool log_json;
static bool log_debug_on;

static const char *level_name(enum log_level l)
{
	switch (l) {
	case LOG_LEVEL_ERROR: return "error";
	case LOG_LEVEL_WARN: return "warning";
	case LOG_LEVEL_INFO: return "info";
	default: return "debug";
	}
}

int log_init(const char *path, bool json, bool debug)
{
	log_json = json;
	log_debug_on = debug;
	if (path && *path) {
		log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (log_fd < 0)
			return -1;
	}
	return 0;
}

bool log_debug_enabled(void) { return log_debug_on; }

static void write_line(int fd, enum log_level level, const char *msg)
{
	char ts[64];
	struct timespec now;
	struct tm tm;
	char line[4096 + 256];
	int n;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	n = (int)strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts + n, sizeof ts - (size_t)n, ".%09ldZ", now.tv_nsec);
	if (log_json) {
		struct json_gen *g = json_gen_new(false);
		const char *buf;
		size_t len;

		json_gen_object_open(g);
		json_gen_kv_string(g, "level", level_name(level));
		json_gen_kv_string(g, "msg", msg);
		json_gen_kv_string(g, "time", ts);
		json_gen_object_close(g);
		buf = json_gen_buf(g, &len);
		n = snprintf(line, sizeof line, "%.*s\n", (int)len, buf);
		json_gen_free(g);
	} else {
		n = snprintf(line, sizeof line, "time=\"%s\" level=%s msg=\"%s\"\n", ts, level_name(level), msg);
	}
	if (n > 0) {
		if ((size_t)n >= sizeof line)
			n = (int)sizeof line - 1;
		if (write(fd, line, (size_t)n) < 0) {
			/* nowhere left to report a failing log write */
		}
	}
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	if (level == LOG_LEVEL_DEBUG && !log_debug_on)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (log_fd >= 0)
		write_line(log_fd, level, msg);
	if (level != LOG_LEVEL_INFO || log_debug_on)
		if (log_fd < 0 || level <= LOG_LEVEL_WARN)
			fprintf(stderr, "%s: %s\n", level == LOG_LEVEL_ERROR ? "clasp" : level_name(level), msg);
}

void log_fatal(const char *msg)
{
	if (log_fd >= 0)
		write_line(log_fd, LOG_LEVEL_ERROR, msg);
	fprintf(stderr, "clasp: %s\n", msg);
}
