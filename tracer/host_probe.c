/*
 * host_probe.c - corral_probe(): the sandbox's probe (sandbox/probe.c) in
 * the caller-allocated, size-versioned struct of corral.h.
 */
#include <errno.h>
#include <string.h>

#include "abi.h"
#include "sandbox.h"

/* The same field, the same size: a change on one side fails the build. */
#define COPY(f)                                                                \
	do {                                                                   \
		_Static_assert(sizeof(out.f) == sizeof(in.f), #f);             \
		memcpy(&out.f, &in.f, sizeof(out.f));                          \
	} while (0)

int corral_probe_host(const char *bwrap_path, struct corral_probe *p)
{
	struct sandbox_probe in;
	struct corral_probe out;
	memset(&out, 0, sizeof(out));
	out.size = sizeof(out);
	if (p->size < sizeof(size_t))
		return -EINVAL;
	int r = sandbox_probe(bwrap_path, &in);
	if (r < 0)
		return r;
	COPY(sandbox_ok);
	COPY(reason);
	COPY(yama_ptrace_scope);
	COPY(seccomp);
	COPY(ptrace);
	COPY(userns);
	COPY(userns_error);
	COPY(bwrap_found);
	COPY(bwrap_path);
	COPY(bwrap_version);
	COPY(bwrap_setuid);
	COPY(bwrap_works);
	COPY(bwrap_error);
	COPY(cgroup2);
	COPY(cgroup2_mount);
	COPY(is_root);
	COPY(landlock_abi);
	COPY(boundary);
	COPY(boundary_sandbox);
	COPY(trial_user);
	return abi_out(p, &out, sizeof(out));
}
