/* Operations on a running container's cgroup: freeze/thaw, list and signal
 * its processes, count OOM kills. */
#include "linux/cgroup/cg_internal.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/cleanup.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The directory whose cgroup.procs is authoritative for "the container's
 * processes": v2 when it has the processes (pure v2), else a v1 one. */
static const char *procs_dir(struct cgroup_mgr *m)
{
	static const char *const pref[] = { "freezer", "pids", "memory", "cpu", "devices", NULL };
	struct cg_target t;

	if (m->layout == CGROUP_LAYOUT_V2 && cg_v2(m))
		return cg_v2(m)->path;
	for (int i = 0; pref[i]; i++)
		if (cg_find(m, pref[i], NULL, &t))
			return t.dir;
	return m->nh ? m->h[0].path : NULL;
}

int cgroup_pids(struct cgroup_mgr *m, pid_t **pids, size_t *n, struct clasp_error *err)
{
	const char *dir = procs_dir(m);

	if (!dir)
		return clasp_error_set(err, 0, "cgroup: no hierarchy");
	return cg_list_pids(dir, true, pids, n, err);
}

static int v1_freeze(const char *dir, bool frozen, struct clasp_error *err)
{
	const char *want = frozen ? "FROZEN" : "THAWED";

	/* the kernel may leave a cgroup FREEZING while tasks are in
	 * uninterruptible sleep; runc re-writes the state and, if it never
	 * settles, thaws and retries */
	for (int i = 0; i < 1000; i++) {
		_cleanup_free_ char *s = NULL;

		if (cg_write(dir, "freezer.state", want, "freezer.state", err) < 0)
			return -1;
		s = cg_read(dir, "freezer.state");
		if (!s)
			return clasp_error_set(err, errno, "read %s/freezer.state", dir);
		if (strncmp(s, want, strlen(want)) == 0)
			return 0;
		if (frozen && i % 50 == 49) {
			struct clasp_error e;
			cg_write(dir, "freezer.state", "THAWED", "freezer.state", &e);
		}
		sleep_ms(i < 10 ? 1 : 10);
	}
	if (frozen) {
		struct clasp_error e;
		cg_write(dir, "freezer.state", "THAWED", "freezer.state", &e);
	}
	return clasp_error_set(err, EBUSY, "freezer.state: %s did not become %s", dir, want);
}

static int v2_freeze(const char *dir, bool frozen, struct clasp_error *err)
{
	if (cg_write(dir, "cgroup.freeze", frozen ? "1" : "0", "cgroup.freeze", err) < 0)
		return -1;
	for (int i = 0; i < 1000; i++) {
		_cleanup_free_ char *ev = cg_read(dir, "cgroup.events");
		uint64_t v;

		if (!ev)
			return clasp_error_set(err, errno, "read %s/cgroup.events", dir);
		if (cg_kv_get(ev, "frozen", &v) && (v == 1) == frozen)
			return 0;
		sleep_ms(i < 10 ? 1 : 10);
	}
	if (frozen) {
		struct clasp_error e;
		cg_write(dir, "cgroup.freeze", "0", "cgroup.freeze", &e);
	}
	return clasp_error_set(err, EBUSY, "cgroup.freeze: %s did not become %s", dir,
			       frozen ? "frozen" : "thawed");
}

int cgroup_freeze(struct cgroup_mgr *m, bool frozen, struct clasp_error *err)
{
	struct cg_target t;

	if (!cg_find(m, "freezer", "", &t))
		return clasp_error_set(err, 0, "cgroup: the freezer controller is not available");
	return t.v2 ? v2_freeze(t.dir, frozen, err) : v1_freeze(t.dir, frozen, err);
}

int cgroup_is_frozen(struct cgroup_mgr *m, bool *frozen)
{
	struct cg_target t;
	_cleanup_free_ char *s = NULL;

	*frozen = false;
	if (!cg_find(m, "freezer", "", &t))
		return -1;
	if (t.v2) {
		uint64_t v = 0;
		s = cg_read(t.dir, "cgroup.freeze");
		if (!s)
			return -1;
		v = strtoull(s, NULL, 10);
		*frozen = v == 1;
		return 0;
	}
	s = cg_read(t.dir, "freezer.state");
	if (!s)
		return -1;
	*frozen = strncmp(s, "FROZEN", 6) == 0 || strncmp(s, "FREEZING", 8) == 0;
	return 0;
}

static int signal_all(struct cgroup_mgr *m, int sig, struct clasp_error *err)
{
	pid_t *pids = NULL;
	size_t n = 0;
	int rc = 0;

	if (cgroup_pids(m, &pids, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (kill(pids[i], sig) < 0 && errno != ESRCH && rc == 0)
			rc = clasp_error_set(err, errno, "kill %d", (int)pids[i]);
	free(pids);
	return rc;
}

int cgroup_kill_all(struct cgroup_mgr *m, int sig, struct clasp_error *err)
{
	struct cg_target t;
	bool was_frozen = false, froze = false;
	int rc;

	/* v2 (5.14+): the kernel kills the whole subtree atomically */
	if (sig == SIGKILL && m->layout == CGROUP_LAYOUT_V2 && cg_v2(m) &&
	    cg_file_exists(cg_v2(m)->path, "cgroup.kill"))
		return cg_write(cg_v2(m)->path, "cgroup.kill", "1", "cgroup.kill", err);
	if (sig == SIGKILL && cg_find(m, "freezer", "", &t)) {
		struct clasp_error e;
		cgroup_is_frozen(m, &was_frozen);
		if (!was_frozen && cgroup_freeze(m, true, &e) == 0)
			froze = true;
	}
	rc = signal_all(m, sig, err);
	if (froze || (was_frozen && sig == SIGKILL)) {
		/* thaw so the signals are delivered */
		struct clasp_error e;
		cgroup_freeze(m, false, &e);
	}
	return rc;
}

int cgroup_oom_count(struct cgroup_mgr *m, uint64_t *count)
{
	struct cg_target t;
	_cleanup_free_ char *s = NULL;

	*count = 0;
	if (!cg_find(m, "memory", "memory", &t))
		return -1;
	s = cg_read(t.dir, t.v2 ? "memory.events" : "memory.oom_control");
	if (!s)
		return -1;
	if (!cg_kv_get(s, "oom_kill", count))
		return -1;
	return 0;
}
