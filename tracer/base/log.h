/* log.h - the library's messages for a person (corral_config.log). */
#ifndef CORRAL_LOG_H
#define CORRAL_LOG_H

#include "corral.h"

/* Format one message and hand it to fn (NULL: it goes nowhere). */
__attribute__((format(printf, 3, 4))) void log_msg(corral_log_fn fn, void *arg,
						   const char *fmt, ...);

/*
 * Format a message for a caller's err buffer and return -e: the one shape
 * of "say why, return -errno" for the setup code that fills err[].
 */
__attribute__((format(printf, 4, 5))) int err_fmt(char *err, size_t errlen,
						  int e, const char *fmt, ...);

#endif
