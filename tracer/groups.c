/*
 * groups.c - keep the command out of corral's process group.
 *
 * A member may signal its own process group (kill(0, sig), `kill 0` in a
 * shell script, a terminal's ^Z). If corral shared that group, a member
 * could stop it (SIGSTOP cannot be caught) and wedge supervision, and no
 * seccomp rule can tell kill(0, ...) apart by argument. So the command and
 * corral never share a group, and the filter refuses kill() aimed at
 * corral's own group (-corral's pid).
 *
 * Two cases, chosen so that the command still sees what it would see
 * untraced (same terminal foreground, same ^C):
 *
 *  - corral is not a group leader (started by a runner, a pipeline,
 *    make...): corral moves itself into a new group of its own, right
 *    after the fork; the command stays in the group corral was given.
 *  - corral leads its group (a shell job, a new session): the command
 *    gets a new group, and if corral's group had the terminal's
 *    foreground, the command's group gets it, and corral takes it back
 *    when the run ends.
 *
 * Either way corral's group id is its pid, which is what the containment
 * filter is built with before the fork.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "internal.h"

int groups_prepare(struct corral *c)
{
	c->cmd_own_group = getpgrp() == c->self;
	if (!c->cmd_own_group)
		return 0;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && tcgetpgrp(fd) == c->self) {
		c->ttyfd = fd;
		c->tty_given = true;
	} else if (fd >= 0) {
		close(fd);
	}
	return 0;
}

void groups_parent(struct corral *c)
{
	if (!c->cmd_own_group)
		setpgid(0, 0);
}

void groups_child(struct corral *c)
{
	if (!c->cmd_own_group)
		return;
	setpgid(0, 0);
	if (c->tty_given) {
		/* A background group may only take the terminal with
		 * SIGTTOU blocked; the caller still has corral's mask. */
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGTTOU);
		sigprocmask(SIG_BLOCK, &s, NULL);
		tcsetpgrp(c->ttyfd, getpid());
	}
}

void groups_restore(struct corral *c)
{
	if (c->ttyfd < 0)
		return;
	if (c->tty_given)
		tcsetpgrp(c->ttyfd, c->self); /* SIGTTOU is blocked in corral */
	c->tty_given = false;
	close(c->ttyfd);
	c->ttyfd = -1;
}
