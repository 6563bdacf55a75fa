/*
 * landlock.c - the Landlock domain around the tree (landlock.h).
 *
 * Only what corral needs of the UAPI is declared, under names of our own
 * (the system header, when present, may or may not know `scoped`):
 * landlock_create_ruleset() takes a struct whose size says which fields the
 * caller knows, so passing the ABI 6 layout to a kernel that knows it is
 * all it takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#ifdef CORRAL_TESTING /* build/tests/corral-testkernel only */
#include "testkernel.h"
#endif

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

/* struct landlock_ruleset_attr as of ABI 6 (Linux 6.12). */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;	     /* ABI 6 */
};

/* struct landlock_path_beneath_attr (packed in the UAPI). */
struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* The first ABI with scoped signals and abstract unix sockets. */
#define LL_ABI_SCOPED 6

int landlock_abi(void)
{
	long r = syscall(SYS_landlock_create_ruleset, NULL, 0,
			 LL_CREATE_RULESET_VERSION);
	int abi = r < 0 ? -errno : (int)r;
#ifdef CORRAL_TESTING
	abi = testkernel_landlock_abi(abi); /* an older kernel, pretended */
#endif
	return abi;
}

int landlock_plan(enum corral_boundary want, bool sandboxed,
		  struct landlock_plan *out, char *err, size_t errlen)
{
	return landlock_plan_abi(landlock_abi(), want, sandboxed, out, err,
				 errlen);
}

int landlock_plan_abi(int abi, enum corral_boundary want, bool sandboxed,
		      struct landlock_plan *out, char *err, size_t errlen)
{
	*out = (struct landlock_plan){.abi = abi > 0 ? abi : 0};
	if (want == CORRAL_BOUNDARY_SECCOMP)
		return 0;
	if (abi >= LL_ABI_SCOPED) {
		out->active = true;
		out->scopes = CORRAL_SCOPE_PTRACE | CORRAL_SCOPE_SIGNAL |
			      CORRAL_SCOPE_ABSTRACT_UNIX;
		return 0;
	}
	if (want == CORRAL_BOUNDARY_LANDLOCK) {
		if (abi > 0)
			snprintf(err, errlen,
				 "--boundary=landlock: this kernel's Landlock "
				 "(ABI %d) cannot scope signals and abstract "
				 "sockets (needs ABI %d, Linux 6.12)",
				 abi, LL_ABI_SCOPED);
		else
			snprintf(err, errlen,
				 "--boundary=landlock: Landlock is %s on this "
				 "kernel",
				 abi == -EOPNOTSUPP ? "not enabled"
						    : "not available");
		return -EOPNOTSUPP;
	}
	/*
	 * ABI 1..5: a domain must handle a filesystem right to exist, and any
	 * such domain makes the kernel refuse mount(2), umount(2) and
	 * pivot_root(2) to the tree. Worth it for the ptrace confinement,
	 * except for bubblewrap, which must mount to build the sandbox.
	 */
	if (abi > 0 && !sandboxed) {
		out->active = true;
		out->scopes = CORRAL_SCOPE_PTRACE;
	}
	return 0;
}

const char *landlock_boundary_name(const struct landlock_plan *p)
{
	if (!p->active)
		return "seccomp";
	return (p->scopes & CORRAL_SCOPE_SIGNAL) ? "landlock"
						 : "landlock-ptrace";
}

int landlock_enter(const struct landlock_plan *p)
{
	if (!p->active)
		return 0;
	struct ll_ruleset_attr attr = {0};
	size_t size;
	if (p->scopes & CORRAL_SCOPE_SIGNAL) {
		/* No filesystem right handled: only the scopes (and the
		 * ptrace confinement every domain has). */
		attr.scoped = LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET;
		size = sizeof(attr);
	} else {
		/* ABI 1..5 refuse an empty ruleset (ENOMSG): handle the
		 * right to make block devices, and grant it below "/", so
		 * the domain changes nothing on the filesystem. */
		attr.handled_access_fs = LL_ACCESS_FS_MAKE_BLOCK;
		size = sizeof(attr.handled_access_fs);
	}
	int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0)
		return -errno;
	int r = 0;
	if (!(p->scopes & CORRAL_SCOPE_SIGNAL)) {
		struct ll_path_beneath_attr pb = {
			.allowed_access = LL_ACCESS_FS_MAKE_BLOCK,
			.parent_fd = open("/", O_PATH | O_CLOEXEC),
		};
		if (pb.parent_fd < 0 ||
		    syscall(SYS_landlock_add_rule, fd, LL_RULE_PATH_BENEATH,
			    &pb, 0) < 0)
			r = -errno;
		if (pb.parent_fd >= 0)
			close(pb.parent_fd);
	}
	if (!r && syscall(SYS_landlock_restrict_self, fd, 0) < 0)
		r = -errno;
	close(fd);
	return r;
}
