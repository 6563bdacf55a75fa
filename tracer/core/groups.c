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
 *
 * Job control (second case only; in the first the command shares the
 * shell's job group and ^Z stops it and its job as usual). The terminal's
 * ^Z reaches the command's group, not corral's, so the shell, which waits
 * for corral, would never see its job stop. When a member of the
 * command's group enters a stop from SIGTSTP, SIGTTIN or SIGTTOU (ptrace
 * reports the group-stop; the engine leaves it stopped with LISTEN),
 * corral hands the terminal back to its own group and stops itself with
 * the same signal: the shell reports the job stopped ("Stopped", "Stopped
 * (tty input)"). On SIGCONT (`fg`, `bg`) corral gives the terminal to the
 * command's group again if the shell gave it to corral's, and passes
 * SIGCONT on to the command's group, as the shell does to a job.
 * While corral is stopped, members outside the command's group (daemons)
 * run on until their next ptrace event, which waits for corral.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int groups_prepare(struct corral *c)
{
	struct groups_part *g = OWN(c, groups);
	g->cmd_own_group = getpgrp() == c->lifecycle.self;
	if (!g->cmd_own_group)
		return 0;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/*
	 * Kept also when corral starts in the background (`corral run ... &`):
	 * job control needs it to hand the terminal over on `fg`.
	 */
	if (tcgetsid(fd) == getsid(0)) {
		g->ttyfd = fd;
		g->tty_given = tcgetpgrp(fd) == c->lifecycle.self;
	} else {
		close(fd);
	}
	return 0;
}

void groups_init(struct corral *c)
{
	OWN(c, groups)->ttyfd = -1;
}

void groups_parent(struct corral *c, pid_t pid)
{
	struct groups_part *g = OWN(c, groups);
	/* The group the command starts in belongs to the tree (audit). */
	g->root_pgid = (c->pty.ptm >= 0 || g->cmd_own_group) ? pid : getpgrp();
	if (c->pty.ptm < 0 && !g->cmd_own_group)
		setpgid(0, 0);
}

void groups_child(struct corral *c)
{
	struct groups_part *g = OWN(c, groups);
	if (!g->cmd_own_group)
		return;
	setpgid(0, 0);
	if (g->tty_given) {
		/* A background group may only take the terminal with
		 * SIGTTOU blocked; the caller still has corral's mask. */
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGTTOU);
		sigprocmask(SIG_BLOCK, &s, NULL);
		tcsetpgrp(g->ttyfd, getpid());
	}
}

void groups_restore(struct corral *c)
{
	struct groups_part *g = OWN(c, groups);
	if (g->ttyfd < 0)
		return;
	/* Only if the command's group still has it (not after `bg`). */
	if (g->tty_given && tcgetpgrp(g->ttyfd) == g->root_pgid)
		tcsetpgrp(g->ttyfd,
			  c->lifecycle.self); /* SIGTTOU is blocked in corral */
	g->tty_given = false;
	close(g->ttyfd);
	g->ttyfd = -1;
}

static bool job_control(const struct corral *c)
{
	const struct groups_part *g = &c->groups;
	return c->cfg.handle_signals && g->cmd_own_group && g->ttyfd >= 0 &&
	       g->root_pgid > 0 && c->phase.now == PH_RUN;
}

void groups_member_stopped(struct corral *c, struct task *t, int sig)
{
	struct groups_part *g = OWN(c, groups);
	if (!job_control(c))
		return;
	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		return;
	/* A job inside the command (an interactive shell run by corral)
	 * has a group of its own: its stops are that shell's business. */
	if (getpgid(t->tgid) != g->root_pgid)
		return;
	g->jc_stop = sig;
}

/* The shell continued corral's job: continue the command's group. */
void groups_sigcont(struct corral *c)
{
	struct groups_part *g = OWN(c, groups);
	if (!job_control(c))
		return;
	if (tcgetpgrp(g->ttyfd) == c->lifecycle.self) {
		/* `fg`: the terminal was given to corral's group. */
		tcsetpgrp(g->ttyfd, g->root_pgid);
		g->tty_given = true;
	}
	kill(-g->root_pgid, SIGCONT);
}

bool groups_step(struct corral *c)
{
	struct groups_part *g = OWN(c, groups);
	int sig = g->jc_stop;
	g->jc_stop = 0;
	if (!sig || !job_control(c))
		return false;
	if (sig != SIGTSTP && tcgetpgrp(g->ttyfd) == c->lifecycle.self) {
		/*
		 * SIGTTIN/SIGTTOU while corral's group has the terminal: the
		 * shell ran `fg` before corral could hand the terminal on.
		 * Not a stop of the job: hand it on and continue.
		 */
		groups_sigcont(c);
		return false;
	}
	if (tcgetpgrp(g->ttyfd) == g->root_pgid)
		tcsetpgrp(g->ttyfd, c->lifecycle.self);
	/*
	 * Stop with the member's signal, at its default action (SIGTTIN and
	 * SIGTTOU are blocked in corral, and a program hosting the library
	 * may have handlers). SIGCONT stays blocked (it is in the signalfd
	 * set) but still continues us; it is then consumed here.
	 */
	sigset_t one, old, cont;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	struct sigaction dfl = {.sa_handler = SIG_DFL}, olda;
	sigaction(sig, &dfl, &olda);
	sigprocmask(SIG_UNBLOCK, &one, &old);
	raise(sig);
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(sig, &olda, NULL);
	/*
	 * Continued (or never stopped: the kernel drops terminal stops for
	 * an orphaned group, and then nobody else would continue the tree).
	 *
	 * SIGCONT goes to the command's group first, then what the members
	 * reported while corral was stopped is taken. The order matters: a
	 * member may be held in its signal-delivery-stop for the same ^Z;
	 * SIGCONT cancels a stop signal already dequeued (the kernel clears
	 * JOBCTL_STOP_DEQUEUED), so re-injecting it now does not stop the
	 * member again, as untraced. Group-stops reported before the SIGCONT
	 * are old news: they must not be taken for a new ^Z.
	 */
	struct timespec zero = {0, 0};
	sigtimedwait(&cont, NULL, &zero);
	groups_sigcont(c);
	g->jc_stop = 0;
	return true; /* the loop takes the reports, then groups_continued() */
}

/* The reports taken after the SIGCONT are old news (see groups_step()). */
void groups_continued(struct corral *c)
{
	struct groups_part *g = OWN(c, groups);
	g->jc_stop = 0;
}
