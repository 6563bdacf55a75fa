/*
 * seccomp_event.c - PTRACE_EVENT_SECCOMP stops: a member made a call that
 * the containment filter marked SECCOMP_RET_TRACE (the escape audit).
 */
#include "internal.h"

void engine_seccomp(struct corral *c, struct task *t)
{
	engine_resume(c, t, 0);
}
