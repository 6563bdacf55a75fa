/*
 * policy.c - the seccomp policy applied to the sandboxed command.
 *
 * Built with libseccomp (no hand-written BPF) and handed to bubblewrap as
 * a program in a file descriptor: bwrap loads it right before it execs the
 * command, after its own setup (which needs mount, pivot_root, unshare...).
 *
 * Shape: default ALLOW, a deny list, every denial an errno. Nothing kills:
 * a killed member is indistinguishable from a crash, while an errno is
 * something a build tool reports ("Operation not permitted") and a human
 * understands. Every entry and its reason is listed in docs/sandbox.md;
 * keep the two in sync.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "filter.h"
#include "sandbox.h"

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
/* asm-generic values; the same on x86. */
#define POLICY_TIOCSTI	 0x5412
#define POLICY_TIOCLINUX 0x541C

struct deny {
	const char *name;
	int err;
};

/*
 * Denied whatever the arguments. Names, not SCMP_SYS(), so a syscall the
 * installed libseccomp does not know (or an arch lacks) is skipped rather
 * than breaking the build.
 */
static const struct deny deny_always[] = {
	/* Not ptrace: corral's containment filter, under which bwrap and
	 * every member run, stops every ptrace() call at corral, which
	 * emulates it (tracer/audit/eptrace.c): no member is ever a real
	 * tracer. An ERRNO here would outrank that TRACE and break
	 * LeakSanitizer, gdb and strace inside the sandbox. */
	/* The filesystem view bwrap built is the sandbox: no changing it. */
	{"mount", EPERM},
	{"umount", EPERM},
	{"umount2", EPERM},
	{"pivot_root", EPERM},
	{"chroot", EPERM},
	{"move_mount", EPERM},
	{"open_tree", EPERM},
	{"fsopen", EPERM},
	{"fsmount", EPERM},
	{"fsconfig", EPERM},
	{"fspick", EPERM},
	{"mount_setattr", EPERM},
	/* Joining another namespace leaves the sandbox. */
	{"setns", EPERM},
	/* Large kernel attack surface, no use in a build or test. */
	{"bpf", EPERM},
	{"perf_event_open", EPERM},
	{"userfaultfd", EPERM},
	/* io_uring runs socket/connect/openat from kernel context, where
	 * this filter does not see them. */
	{"io_uring_setup", EPERM},
	{"io_uring_enter", EPERM},
	{"io_uring_register", EPERM},
	/* Keyrings are not namespaced: the user keyring is shared with the
	 * user's processes outside. */
	{"keyctl", EPERM},
	{"add_key", EPERM},
	{"request_key", EPERM},
	/* Whole-machine operations. */
	{"kexec_load", EPERM},
	{"kexec_file_load", EPERM},
	{"init_module", EPERM},
	{"finit_module", EPERM},
	{"delete_module", EPERM},
	{"reboot", EPERM},
	{"swapon", EPERM},
	{"swapoff", EPERM},
	{"acct", EPERM},
	{"quotactl", EPERM},
	{"quotactl_fd", EPERM},
	{"iopl", EPERM},
	{"ioperm", EPERM},
	{"lookup_dcookie", EPERM},
	/* File handles bypass the path walk, i.e. the bind-mount view. */
	{"open_by_handle_at", EPERM},
	{"name_to_handle_at", EPERM},
	/* clone3 passes its flags in memory, which seccomp cannot read;
	 * ENOSYS makes glibc fall back to clone(), filtered below. */
	{"clone3", ENOSYS},
};

static int add(scmp_filter_ctx ctx, uint32_t action, const char *name,
	       unsigned n, const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		return 0; /* unknown to this libseccomp: nothing to deny */
	int err = seccomp_rule_add_array(ctx, action, nr, n, cmp);
	/* -EOPNOTSUPP/-EDOM: not on this arch (or pseudo syscall). */
	if (err == -EOPNOTSUPP || err == -EDOM)
		return 0;
	return err;
}

static int add_masked(scmp_filter_ctx ctx, uint32_t action, const char *name,
		      unsigned arg, uint64_t mask, uint64_t val)
{
	struct scmp_arg_cmp c = {arg, SCMP_CMP_MASKED_EQ, mask, val};
	return add(ctx, action, name, 1, &c);
}

static int add_arches(scmp_filter_ctx ctx)
{
	uint32_t native = seccomp_arch_native();
	/*
	 * A process can make syscalls of the native arch's compat ABIs
	 * (int 0x80 on x86_64, x32 numbers, a 32-bit binary): give them the
	 * same rules, else they would bypass every one. libseccomp
	 * translates numbers per arch (and, for x86, turns the socket rule
	 * into a denial of socketcall(SYS_SOCKET), whose arguments are in
	 * memory).
	 */
	uint32_t extra[2] = {0, 0};
	if (native == SCMP_ARCH_X86_64) {
		extra[0] = SCMP_ARCH_X86;
		extra[1] = SCMP_ARCH_X32;
	} else if (native == SCMP_ARCH_AARCH64) {
		extra[0] = SCMP_ARCH_ARM;
	}
	for (int i = 0; i < 2; i++) {
		if (!extra[i])
			continue;
		int err = seccomp_arch_add(ctx, extra[i]);
		if (err && err != -EEXIST)
			return err;
	}
	return 0;
}

static int build(const struct corral_sandbox_config *sc, scmp_filter_ctx *out)
{
	*out = NULL;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	int err = add_arches(ctx);
	/* Any other arch: fail closed, but with an errno, not a kill. */
	if (!err)
		err = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				       SCMP_ACT_ERRNO(ENOSYS));
	for (size_t i = 0;
	     !err && i < sizeof(deny_always) / sizeof(deny_always[0]); i++)
		err = add(ctx, SCMP_ACT_ERRNO(deny_always[i].err),
			  deny_always[i].name, 0, NULL);

	/*
	 * clone()/unshare() with any namespace flag (tracer/base/filter.h's
	 * table) is denied (EPERM): a new namespace inside the sandbox could
	 * remount, re-map users or hide members.
	 */
	for (const struct flag_name *ns = filter_ns_flags; !err && ns->name;
	     ns++) {
		err = add_masked(ctx, SCMP_ACT_ERRNO(EPERM), "clone",
				 CLONE_FLAGS_ARG, ns->flag, ns->flag);
		if (!err)
			err = add_masked(ctx, SCMP_ACT_ERRNO(EPERM), "unshare",
					 0, ns->flag, ns->flag);
	}
	/* CLONE_UNTRACED alone is not refused here: corral's containment
	 * filter TRACEs it and clears the bit, so the child is traced like
	 * any other (LeakSanitizer's helper); with a namespace flag it is
	 * refused by both filters. */
	if (!err) /* only meaningful for unshare (clone's low byte is CSIGNAL)
		   */
		err = add_masked(ctx, SCMP_ACT_ERRNO(EPERM), "unshare", 0,
				 CLONE_NEWTIME, CLONE_NEWTIME);

	/*
	 * TIOCSTI pushes bytes into the terminal's input, to be read by the
	 * shell outside once the command ends (CVE-2017-5226); TIOCLINUX
	 * can do the same on a virtual console. Denying them is what lets the
	 * profile keep the caller's terminal session (no --new-session).
	 * The kernel truncates cmd to 32 bits, so compare only those.
	 */
	if (!err)
		err = add_masked(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1,
				 0xffffffffu, POLICY_TIOCSTI);
	if (!err)
		err = add_masked(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1,
				 0xffffffffu, POLICY_TIOCLINUX);

	if (!err && !sc->share_net) {
		/*
		 * No network: only AF_UNIX (pipes' big sibling, used by
		 * every build tool). AF_NETLINK is denied too: in a private
		 * net namespace it has nothing useful to say and its families
		 * are kernel attack surface; glibc copes (getaddrinfo falls
		 * back). NE on the full 64-bit value fails closed for junk in
		 * the upper half.
		 */
		struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
		err = add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, &c);
		if (!err)
			err = add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT),
				  "socketpair", 1, &c);
	}
	if (err) {
		seccomp_release(ctx);
		return err < 0 ? err : -EINVAL;
	}
	*out = ctx;
	return 0;
}

int sandbox_policy_pfc(const struct corral_sandbox_config *sc, int fd)
{
	scmp_filter_ctx ctx;
	int err = build(sc, &ctx);
	if (err)
		return err;
	err = seccomp_export_pfc(ctx, fd);
	seccomp_release(ctx);
	return err;
}

/* A pipe holds the whole program (a few KiB, far below 64 KiB). */
static int export_pipe(scmp_filter_ctx ctx)
{
	int p[2];
	if (pipe(p) < 0)
		return -errno;
	int err = seccomp_export_bpf(ctx, p[1]);
	close(p[1]);
	if (err) {
		close(p[0]);
		return err;
	}
	return p[0];
}

int sandbox_policy_fd(const struct corral_sandbox_config *sc)
{
	scmp_filter_ctx ctx;
	int err = build(sc, &ctx);
	if (err)
		return err;
	/* Not CLOEXEC: bwrap inherits it through exec. */
	int fd = memfd_create("corral-seccomp", MFD_ALLOW_SEALING);
	if (fd < 0 && errno == ENOSYS) {
		fd = export_pipe(ctx);
		seccomp_release(ctx);
		return fd;
	}
	if (fd < 0) {
		err = -errno;
		seccomp_release(ctx);
		return err;
	}
	err = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (!err && lseek(fd, 0, SEEK_SET) < 0)
		err = -errno;
	/* The program is final: nobody (a member inheriting it, a bug) may
	 * change what bwrap will load. */
	if (!err &&
	    fcntl(fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		err = -errno;
	if (err) {
		close(fd);
		return err < 0 ? err : -EIO;
	}
	return fd;
}
