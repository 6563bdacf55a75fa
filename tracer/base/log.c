/*
 * log.c - the library's messages for a person (and err_fmt, the setup
 * code's "say why, return -errno"): a journal that cannot be
 * written, a core that could not be made. They go to the caller's
 * callback (corral_config.log), the CLI's prints them on stderr; without
 * one they go nowhere: a library does not write on its host's stderr
 * uninvited (docs/api.md). What they say is in the journal and
 * corral_result as well.
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

void log_msg(corral_log_fn fn, void *arg, const char *fmt, ...)
{
	if (!fn)
		return;
	/* On the stack: a message about running out of memory works too. */
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fn(buf, arg);
}

int err_fmt(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}
