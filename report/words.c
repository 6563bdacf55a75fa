/*
 * words.c - the run's result and its ending in plain words ("corral exited
 * 124 because the timeout expired; the command was killed by SIGTERM",
 * "the tree was ended because the timeout expired"), one wording for every
 * output that says them: the text and Markdown summaries and the Perfetto
 * trace's instants. The journal's reasons are names for programs; a person
 * reads these.
 *
 * Our words go out as they are; every journal string (a reason, a signal
 * name, an exec error) through esc.c, in the output's kind: an enumerated
 * value corral does not write is quoted (text) or a code span (Markdown),
 * so it cannot pass for one of ours, and inside a JSON string it is a
 * piece of that string (esc_json_piece).
 */
#include <stdarg.h>

#include "report.h"

/* Our own words, printf-style: as they are, or a piece of a JSON string. */
static void say(const struct words *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct words *w, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (w->piece)
		esc_json_piece(w->f, us_lit(buf), w->k);
	else
		fputs(buf, w->f);
}

/* A journal string: escaped for the output's kind. */
static void put(const struct words *w, struct ustr u)
{
	if (w->piece)
		esc_json_piece(w->f, us_or(u, "?"), w->k);
	else
		esc_put(w->f, u, w->k);
}

/* An enumerated journal value (SET: its known values; NULL: a signal). */
static void put_enum(const struct words *w, struct ustr u,
		     const char *const *set)
{
	if (w->piece)
		esc_json_piece(w->f, us_or(u, "?"), w->k);
	else
		esc_enum(w->f, u, set, w->k);
}

/*
 * Why the tree was ended, in words: the words for each esc_reasons value
 * but "none" (nothing was ended). NULL for a value corral does not write.
 */
static const char *because(struct ustr reason)
{
	static const struct {
		const char *reason, *words;
	} t[] = {
		{"exited", "the command exited and left processes behind"},
		{"timeout", "the timeout expired"},
		{"signal", "corral got a signal"},
		{"parent", "corral's parent died"},
		{"max-procs", "the tree had more processes than --max-procs"},
		{"escape", "a member tried to escape (--escape=kill)"},
		{"request", "the program using libcorral asked"},
		{"journal", "a journal line was lost (--journal-strict)"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (us_eq(reason, t[i].reason))
			return t[i].words;
	return NULL;
}

/* "because WORDS" for REASON (SIG: the signal corral got, if known). */
static void put_because(const struct words *w, struct ustr reason,
			struct ustr sig)
{
	const char *b = because(reason);
	say(w, "because ");
	if (!b) {
		say(w, "of reason ");
		put_enum(w, reason, esc_reasons);
	} else if (us_eq(reason, "signal") && us_ok(sig)) {
		say(w, "corral got ");
		put_enum(w, sig, NULL);
	} else
		say(w, "%s", b);
}

/* The command's own end: "the command exited with status 3", ... */
static void put_command_end(const struct words *w,
			    const struct corral_report *m)
{
	if (m->sandbox_failed)
		say(w, "the sandbox could not be built");
	else if (us_ok(m->exec_error)) {
		say(w, "the command could not run: ");
		put(w, us_sub(m->exec_error, 0, 60));
	} else if (us_ok(m->end_signal)) {
		say(w, "the command was killed by ");
		put_enum(w, m->end_signal, NULL);
	} else
		say(w, "the command exited with status %d", m->end_status);
}

void words_result(const struct words *w, const struct corral_report *m)
{
	if (!m->has_end) {
		say(w, "unknown: no end line (corral was killed?)");
		return;
	}
	/* what the shell saw, why, what the command did */
	say(w, "corral exited %d", m->exit_code);
	if (!us_eq(m->end_reason, "none") && !us_eq(m->end_reason, "exited")) {
		say(w, " ");
		put_because(w, m->end_reason, m->by_signal);
	}
	say(w, "; ");
	put_command_end(w, m);
	if (us_eq(m->end_reason, "exited"))
		say(w, " and left processes behind");
}

void words_ending(const struct words *w, const struct corral_report *m, bool at)
{
	say(w, "the tree was ended ");
	if (at)
		say(w, "from %.6fs ", m->ending_t);
	put_because(w, m->ending_reason, m->ending_signal);
}
