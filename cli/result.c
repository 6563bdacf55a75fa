/*
 * result.c - `corral run --result FILE`: one JSON object a machine reads
 * after the run (a CI step, a wrapper): the end line's facts, the
 * processes that failed, crashed, were ended or left behind (first
 * RESULT_LIST_MAX, then a count), and the journal's head.
 *
 * Written atomically: a new file in FILE's directory (O_EXCL, never
 * following a symlink), written and fsync'd, then renamed over FILE.
 * A reader sees the old FILE or the whole new one, never a part; a
 * symlink at FILE is replaced, not followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "result.h"

#define RESULT_LIST_MAX 20

/*
 * How many bytes the UTF-8 sequence at p takes, or 0 when it is not one.
 * Strict (Unicode's table of well-formed sequences): no overlong form, no
 * surrogate (ED A0..BF), nothing past U+10FFFF (F4 90..), as the journal's
 * writer has it; Python's json refused the surrogate a lax check let
 * through (a corral's argv in `corral ps --json`).
 */
static size_t utf8_seq(const unsigned char *p)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string: bytes that are not UTF-8 as \udcXX (the journal's way). */
void result_json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	while (*p) {
		unsigned c = *p;
		size_t n = utf8_seq(p);
		if (n == 0) {
			fprintf(f, "\\udc%02x", c);
			p++;
		} else if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			if (c == '"' || c == '\\')
				fprintf(f, "\\%c", c);
			else if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc((int)c, f);
			p++;
		}
	}
	fputc('"', f);
}

static void jargv(FILE *f, const char *const *argv)
{
	fputc('[', f);
	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			fputc(',', f);
		result_json_str(f, argv[i]);
	}
	fputc(']', f);
}

static void jstatus(FILE *f, int status)
{
	char nb[16];
	if (WIFSIGNALED(status)) {
		int s = WTERMSIG(status);
		const char *n = sigabbrev_np(s);
		snprintf(nb, sizeof(nb), "SIG%s", n ? n : "?");
		fprintf(f, "\"signal\":\"%s\",\"core_dumped\":%s", n ? nb : "?",
			WCOREDUMP(status) ? "true" : "false");
	} else {
		fprintf(f, "\"status\":%d", WEXITSTATUS(status));
	}
}

struct failed {
	FILE *f;
	unsigned long n, listed;
	double t_ending;
	bool ending;
};

static void one(const struct corral_proc_info *p, void *arg)
{
	struct failed *x = arg;
	/* bubblewrap's own processes end as designed (docs/report.md) */
	if (p->setup)
		return;
	bool alive = p->ended < 0;
	bool bad = alive || WIFSIGNALED(p->status) ||
		   (WIFEXITED(p->status) && WEXITSTATUS(p->status));
	if (!bad)
		return;
	x->n++;
	if (x->listed >= RESULT_LIST_MAX)
		return;
	FILE *f = x->f;
	fprintf(f, "%s{\"pid\":%d,\"ppid\":%d,\"argv\":", x->listed ? "," : "",
		p->pid, p->ppid);
	x->listed++;
	jargv(f, p->argv);
	fputs(",\"path\":", f);
	result_json_str(f, p->path);
	fprintf(f, ",\"fork\":%s,\"born\":%.6f", p->nexecs ? "false" : "true",
		p->born);
	if (alive) {
		fputs(",\"alive\":true", f);
	} else {
		fprintf(f, ",\"ended\":%.6f,\"duration\":%.6f,", p->ended,
			p->ended - p->born);
		jstatus(f, p->status);
		if (x->ending && WIFSIGNALED(p->status) &&
		    p->ended >= x->t_ending)
			fputs(",\"ended_by_corral\":true", f);
	}
	fputc('}', f);
}

static int write_all(struct corral *c, const struct corral_result *r,
		     const struct corral_config *cfg, int code, FILE *f)
{
	fprintf(f, "{\"exit_code\":%d,\"reason\":", code);
	result_json_str(f, corral_reason_name(r->reason));
	if (r->sandbox_failed)
		fputs(",\"sandbox_failed\":true", f);
	else if (r->exec_failed) {
		fputs(",\"exec_error\":", f);
		result_json_str(f, strerror(r->exec_errno));
	} else {
		fputc(',', f);
		jstatus(f, r->status);
	}
	fputs(",\"command\":", f);
	jargv(f, (const char *const *)cfg->argv);
	fprintf(f,
		",\"duration\":%.6f,\"processes\":%lu,\"threads\":%lu,"
		"\"execs\":%lu,\"left\":%lu,\"killed\":%lu,\"survivors\":%lu",
		r->t_end, (unsigned long)r->processes,
		(unsigned long)r->threads, (unsigned long)r->execs,
		(unsigned long)r->left, (unsigned long)r->killed,
		(unsigned long)r->survivors);
	if (r->reason != CORRAL_REASON_NONE)
		fprintf(f, ",\"ending_at\":%.6f", r->t_ending);
	fputs(",\"journal\":", f);
	if (cfg->journal_path || cfg->journal_fd >= 0) {
		fputs("{\"path\":", f);
		result_json_str(f, cfg->journal_path);
		fprintf(f,
			",\"lines\":%lu,\"lost\":%lu,\"intact\":%s,\"head\":",
			(unsigned long)r->journal_lines,
			(unsigned long)r->journal_lost,
			r->journal_intact == 1	 ? "true"
			: r->journal_intact == 0 ? "false"
						 : "null");
		result_json_str(f, *r->journal_head ? r->journal_head : NULL);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	struct failed x = {.f = f,
			   .t_ending = r->t_ending,
			   .ending = r->reason != CORRAL_REASON_NONE};
	fputs(",\"failed\":[", f);
	corral_foreach_proc(c, one, &x);
	fprintf(f, "],\"failed_more\":%lu}\n", x.n - x.listed);
	return ferror(f) ? -EIO : 0;
}

int result_write(const char *path, struct corral *c,
		 const struct corral_result *r, const struct corral_config *cfg,
		 int code, char *err, size_t errlen)
{
	/* FILE's directory, for the temporary file and the rename */
	char tmp[4096];
	const char *slash = strrchr(path, '/');
	int dl = slash ? (int)(slash - path) + 1 : 0;
	if (snprintf(tmp, sizeof(tmp), "%.*s.corral-result.%d.XXXXXX", dl, path,
		     (int)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "--result %s: path too long", path);
		return -ENAMETOOLONG;
	}
	/* mkstemp: O_CREAT|O_EXCL, a new file, never a symlink's target */
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "--result %s: %s", path, strerror(e));
		return -e;
	}
	fchmod(fd, 0644 & ~0022);
	FILE *f = fdopen(fd, "w");
	int rc = f ? write_all(c, r, cfg, code, f) : -ENOMEM;
	if (f && fflush(f) != 0)
		rc = -errno;
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (f)
		fclose(f);
	else
		close(fd);
	/* rename() replaces a symlink at path, it does not follow it */
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		snprintf(err, errlen, "--result %s: %s", path, strerror(-rc));
	}
	return rc;
}
