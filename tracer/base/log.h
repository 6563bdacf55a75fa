/* log.h - the library's messages for a person (corral_config.log). */
#ifndef CORRAL_LOG_H
#define CORRAL_LOG_H

#include "corral.h"

/* Format one message and hand it to fn (NULL: it goes nowhere). */
__attribute__((format(printf, 3, 4))) void log_msg(corral_log_fn fn, void *arg,
						   const char *fmt, ...);

#endif
