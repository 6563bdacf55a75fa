/* execstack.h - argv at the exec stop, from the new image's stack. */
#ifndef CORRAL_EXECSTACK_H
#define CORRAL_EXECSTACK_H

#include <sys/types.h>

/*
 * The argv of tid, stopped at PTRACE_EVENT_EXEC, into one malloc'd block
 * (*argv points into it), as /proc/tid/cmdline would give it now; -errno
 * where the stack cannot be read or its layout is not known (32-bit
 * tracee, another architecture): read /proc then.
 */
int execstack_argv(pid_t tid, char **block, char ***argv);

#endif
