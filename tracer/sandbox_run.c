/*
 * sandbox_run.c - `--sandbox`: spawn bubblewrap instead of the command.
 *
 * corral seizes bwrap itself before it runs (spawn.c), so bwrap's whole
 * setup - its clone into new namespaces, its pid-1 init, the command - is
 * inside the supervised tree from its first instruction, and ending the
 * tree at any instant, during the setup too, leaves nothing behind.
 *
 * The checks here are the cheap ones (bwrap found, configuration valid);
 * the full host probe (sandbox/probe.c) runs a trial sandbox and costs as
 * much as a run, so it runs only to explain a failure: if bwrap exits
 * before the command has exec'd, corral exits 125 with the probe's reason
 * (cli). The command never runs unsandboxed: corral has no other path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sandbox.h"

int sandbox_prepare(struct corral *c, char *err, size_t errlen)
{
	const struct corral_sandbox_config *sc = &c->cfg.sandbox;
	char bwrap[4096];
	int r = sandbox_find_bwrap(sc->bwrap, bwrap, sizeof(bwrap));
	if (r < 0) {
		snprintf(err, errlen,
			 "--sandbox: bubblewrap (bwrap) not found%s%s: "
			 "install the Debian package bubblewrap",
			 sc->bwrap ? " at " : "", sc->bwrap ? sc->bwrap : "");
		return -EOPNOTSUPP;
	}
	r = sandbox_validate(sc, err, errlen);
	if (r < 0)
		return -EINVAL;
	c->policy_fd = sandbox_policy_fd(sc);
	if (c->policy_fd < 0) {
		snprintf(err, errlen, "--sandbox: seccomp policy: %s",
			 strerror(-c->policy_fd));
		c->policy_fd = -1;
		return -EOPNOTSUPP;
	}
	char **argv = sandbox_argv(sc, bwrap, c->policy_fd, c->cfg.argv);
	if (!argv) {
		snprintf(err, errlen, "--sandbox: %s", strerror(errno));
		return -EINVAL;
	}
	free(c->exe);
	c->exe = strdup(bwrap);
	if (!c->exe) {
		sandbox_argv_free(argv);
		return -ENOMEM;
	}
	c->spawn_argv = argv;
	c->sandboxed = true;
	return 0;
}
