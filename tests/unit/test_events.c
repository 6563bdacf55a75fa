/*
 * test_events.c - the event vocabulary is declared once
 * (tracer/base/events.def) and the writer and the reader keep to it.
 *
 * The journal writer (the real one, on a memfd, through the real sink) is
 * handed one event of every type with every field it can write set, in
 * three variants (the keys that exclude each other: an exit's status or
 * signal, the end's command status, signal or exec error, --core or not). Every
 * key of every line must be one events.def declares for that event, with its
 * type; every key it declares must be written by one of the variants
 * (except the few listed below, which need a sandbox or an appended
 * file). Then `corral report` reads both journals: it must know every
 * event (no "does not know" note).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "mock_kernel.h"
#include "names.h"
#include "../../report/report.h"

static struct mock M;

/* Keys a unit test cannot make the writer write, and where they are
 * checked instead (tests/integration/journal_keys.sh, sandbox_*.sh). */
static const char *const unreachable[] = {
	"start.sandbox",      /* --sandbox: sandbox_journal.sh */
	"start.after",	      /* a run appended to a file: adv_journal_runs */
	"end.sandbox_failed", /* bubblewrap gave up: sandbox_journal.sh */
	"end.sandbox_error",  /* ditto */
};

/* Every key seen per event type, over the variants. */
static char seen[CORRAL_EV__COUNT][1024];
static int lines_of[CORRAL_EV__COUNT];

static const struct corral_frame frames[] = {
	{.ip = 0x401000, .func = "main", .off = 16, .module = "/bin/prog"},
};
static const char *const argv[] = {"prog", "-x", NULL};

static struct corral_event task(enum corral_event_type type)
{
	return (struct corral_event){.type = type,
				     .pid = 101,
				     .tgid = 101,
				     .ppid = 100,
				     .nspid = 2,
				     .setup = true};
}

/* One of each event, variant v (0, 1, 2), into a fresh journal. */
static struct corral *write_all(int v, char *coredir)
{
	mock_init(&M);
	struct corral *c = mock_corral(&M, 100);
	c->cfg.timeout = 5;
	if (v == 1) { /* --core: the end says what became of the cores */
		c->cfg.core = CORRAL_STACKS_TIMEOUT;
		c->cfg.core_dir = coredir;
		char err[256];
		assert_int_equal(cores_open(c, err, sizeof(err)), 0);
	}
	struct corral_event ev = {.type = CORRAL_EV_START, .pid = 1};
	journal_event(c, &ev);
	static const enum corral_event_type plain[] = {
		CORRAL_EV_FORK,	  CORRAL_EV_VFORK, CORRAL_EV_CLONE,
		CORRAL_EV_THREAD, CORRAL_EV_CONT,  CORRAL_EV_DENIED,
	};
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		ev = task(plain[i]);
		ev.detail = "creator's event lost";
		journal_event(c, &ev);
	}
	for (int t = CORRAL_EV_EXEC; t <= CORRAL_EV_LEFT; t += 5) {
		ev = task(t);
		ev.path = "/bin/prog";
		ev.argv = argv;
		ev.former = 102;
		ev.cwd = "/tmp";
		journal_event(c, &ev);
	}
	ev = task(CORRAL_EV_SIGNAL);
	ev.sig = SIGUSR1;
	journal_event(c, &ev);
	ev.type = CORRAL_EV_STOP;
	ev.sig = SIGSTOP;
	journal_event(c, &ev);
	ev = task(CORRAL_EV_EXIT);
	if (v) {
		ev.status = 3;
	} else {
		ev.sig = SIGSEGV;
		ev.core = true;
	}
	ev.has_rusage = true;
	ev.cpu_user = 0.5;
	ev.cpu_sys = 0.25;
	ev.max_rss = 2048;
	journal_event(c, &ev);
	ev = (struct corral_event){.type = CORRAL_EV_ENDING,
				   .reason = CORRAL_REASON_SIGNAL,
				   .sig = SIGTERM,
				   .detail = "asked"};
	journal_event(c, &ev);
	ev = task(CORRAL_EV_ESCAPE);
	ev.detail = "unshare(CLONE_NEWUSER)";
	ev.verdict = "log";
	ev.error = "a new user namespace";
	ev.frames = frames;
	ev.nframes = 1;
	ev.cut = "frames";
	journal_event(c, &ev);
	ev = task(CORRAL_EV_STACK);
	ev.detail = "timeout";
	ev.frames = frames;
	ev.nframes = 1;
	ev.error = "no more frames";
	ev.cut = "budget";
	journal_event(c, &ev);
	ev = (struct corral_event){.type = CORRAL_EV_SNAPSHOT, .raw = "[]"};
	journal_event(c, &ev);
	ev = (struct corral_event){.type = CORRAL_EV_DYING,
				   .waited = 1,
				   .count = 1,
				   .raw = "[101]"};
	journal_event(c, &ev);
	ev = (struct corral_event){.type = CORRAL_EV_CORE,
				   .pid = 101,
				   .detail = "timeout",
				   .path = "/tmp/core.101",
				   .bytes = 4096,
				   .count = 1,
				   .sha256 = "00",
				   .cut = "bytes",
				   .error = "No space left on device"};
	journal_event(c, &ev);
	ev = (struct corral_event){.type = CORRAL_EV_FUSE_ABORT,
				   .conn = 39,
				   .pid = 101,
				   .error = v ? "Operation not permitted"
					      : NULL};
	journal_event(c, &ev);
	ev = (struct corral_event){.type = CORRAL_EV_SURVIVOR,
				   .pid = 101,
				   .tgid = 101,
				   .state = "D",
				   .wchan = "request_wait_answer"};
	journal_event(c, &ev);
	ev = task(CORRAL_EV_PTRACE);
	ev.tracee = 102;
	ev.action = "attach";
	ev.detail = "PTRACE_ATTACH";
	journal_event(c, &ev);
	/* The end: the result as result.c leaves it. */
	struct corral_result *r = &OWN(c, result)->res;
	r->exit_code = v ? 127 : 130;
	r->reason = v ? CORRAL_REASON_EXITED : CORRAL_REASON_SIGNAL;
	r->term_signal = SIGINT;
	if (v == 1) {
		r->exec_failed = true;
		r->exec_errno = ENOENT;
	} else {
		r->status = v ? 3 << 8 : SIGKILL; /* exited 3, or killed */
	}
	r->unstopped = r->dying = r->escapes = r->stacks = 1;
	ev = (struct corral_event){.type = CORRAL_EV_END};
	journal_event(c, &ev);
	return c;
}

static const char *type_name(uint8_t t)
{
	static const char *const n[] = {
		[J_NULL] = "null", [J_BOOL] = "b", [J_NUM] = "n",
		[J_STR] = "s",	   [J_ARR] = "a",  [J_OBJ] = "o"};
	return n[t];
}

/* Does events.def declare key k (of length kl) with type ty for t? */
static bool declared(int t, const char *k, size_t kl, const char *ty)
{
	if ((kl == 5 && !memcmp(k, "event", 5)) || (kl == 1 && *k == 't') ||
	    (kl == 1 && *k == 'n') || (kl == 1 && *k == 'h'))
		return true;
	char want[96];
	snprintf(want, sizeof(want), " %.*s:%s ", (int)kl, k, ty);
	char keys[1024];
	snprintf(keys, sizeof(keys), " %s ", event_keys(t));
	return strstr(keys, want) != NULL;
}

/* Read journal j back: every key declared, with its type; note what was
 * seen. */
static void check_keys(const char *j)
{
	struct jreader rd;
	assert_int_equal(jr_open_mem(&rd, j, strlen(j)), 0);
	enum jr_status st;
	while ((st = jr_next(&rd)) != JR_EOF) {
		assert_int_equal(st, JR_OK);
		const struct jdoc *d = &rd.doc;
		const struct jnode *o = jd_node(d, 0);
		size_t el = 0;
		const char *ev = jd_string(d, o, "event", &el);
		assert_non_null(ev);
		int t = event_by_name(ev, el);
		if (t < 0)
			fail_msg("the writer wrote event \"%s\", which "
				 "tracer/base/events.def does not list",
				 ev);
		lines_of[t]++;
		for (int32_t i = o->first; i >= 0; i = d->n[i].next) {
			const struct jnode *kv = &d->n[i];
			const char *k = d->strs + kv->key;
			const char *ty = type_name(kv->type);
			if (!declared(t, k, kv->klen, ty))
				fail_msg("%s writes key \"%.*s\" (type %s): "
					 "not in tracer/base/events.def",
					 ev, (int)kv->klen, k, ty);
			char w[96];
			snprintf(w, sizeof(w), " %.*s ", (int)kv->klen, k);
			if (!strstr(seen[t], w) &&
			    strlen(seen[t]) + strlen(w) < sizeof(seen[t]))
				strcat(seen[t], w + (seen[t][0] ? 1 : 0));
		}
	}
	jr_close(&rd);
}

/* `corral report` reads j and knows every event in it. */
static void check_report(const char *j)
{
	struct corral_report *rep = NULL;
	char err[256] = "";
	int rc = corral_report_load_buffer(j, strlen(j), "events", &rep, err,
					   sizeof(err));
	if (rc < 0)
		fail_msg("report: %s", err);
	assert_int_equal(rep->unknown_events, 0);
	const char *note;
	for (size_t i = 0; (note = corral_report_note(rep, i, NULL)); i++)
		if (strstr(note, "not know"))
			fail_msg("report: %s", note);
	corral_report_free(rep);
}

static void test_writer_and_reader_keep_to_events_def(void **state)
{
	char coredir[] = "/tmp/test_events.XXXXXX";
	assert_non_null(mkdtemp(coredir));
	memset(seen, 0, sizeof(seen));
	memset(lines_of, 0, sizeof(lines_of));
	for (int v = 0; v < 3; v++) {
		struct corral *c = write_all(v, coredir);
		char *j = mock_journal(c);
		check_keys(j);
		check_report(j);
		free(j);
		mock_free(c);
	}
	rmdir(coredir);
	for (int t = 0; t < CORRAL_EV__COUNT; t++) {
		const char *name = corral_event_name(t);
		if (!lines_of[t])
			fail_msg("the test wrote no \"%s\" line: add one to "
				 "write_all()",
				 name);
		/* every declared key is written by one variant */
		const char *p = event_keys(t);
		while (*p) {
			size_t kl = strcspn(p, ":");
			char w[96], full[96];
			snprintf(w, sizeof(w), " %.*s ", (int)kl, p);
			snprintf(full, sizeof(full), "%s.%.*s", name, (int)kl,
				 p);
			char s[1040];
			snprintf(s, sizeof(s), " %s ", seen[t]);
			bool skip = false;
			for (size_t i = 0;
			     i < sizeof(unreachable) / sizeof(unreachable[0]);
			     i++)
				skip |= !strcmp(unreachable[i], full);
			if (!skip && !strstr(s, w))
				fail_msg("events.def declares %s, which the "
					 "writer never wrote",
					 full);
			p += strcspn(p, " ");
			p += strspn(p, " ");
		}
	}
}

/* Names both ways; a type the library does not know is "?". */
static void test_names(void **state)
{
	for (int t = 0; t < CORRAL_EV__COUNT; t++) {
		const char *n = corral_event_name(t);
		assert_string_not_equal(n, "?");
		assert_int_equal(event_by_name(n, strlen(n)), t);
	}
	assert_string_equal(
		corral_event_name((enum corral_event_type)CORRAL_EV__COUNT),
		"?");
	assert_string_equal(corral_event_name(-1), "?");
	assert_int_equal(event_by_name("exi", 3), -1);
	assert_int_equal(event_by_name("exits", 5), -1);
	assert_null(event_keys(CORRAL_EV__COUNT));
}

/*
 * The typed payloads' words (names.c): every value but NONE has one, each
 * its own; NONE and values past the last have none. Every verdict word is
 * one the report knows (esc_verdicts), and the report knows no other.
 */
static void test_payload_words(void **state)
{
	size_t nv = 0;
	for (int v = CORRAL_VERDICT_LOG; v <= CORRAL_VERDICT_ALLOW; v++) {
		const char *w = verdict_name(v);
		assert_non_null(w);
		bool known = false;
		for (const char *const *k = esc_verdicts; *k; k++)
			known |= !strcmp(*k, w);
		assert_true(known);
		for (int u = CORRAL_VERDICT_LOG; u < v; u++)
			assert_string_not_equal(verdict_name(u), w);
		nv++;
	}
	size_t nk = 0;
	for (const char *const *k = esc_verdicts; *k; k++)
		nk++;
	assert_int_equal(nk, nv);
	assert_null(verdict_name(CORRAL_VERDICT_NONE));
	assert_null(verdict_name(CORRAL_VERDICT_ALLOW + 1));

	for (int a = CORRAL_PTRACE_ATTACH; a <= CORRAL_PTRACE_REVOKED;
	     a++) {
		const char *w = ptrace_action_name(a);
		assert_non_null(w);
		for (int b = CORRAL_PTRACE_ATTACH; b < a; b++)
			assert_string_not_equal(ptrace_action_name(b), w);
	}
	assert_null(ptrace_action_name(CORRAL_PTRACE_NONE));
	assert_null(ptrace_action_name(CORRAL_PTRACE_REVOKED + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_and_reader_keep_to_events_def),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_payload_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
