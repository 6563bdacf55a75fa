/*
 * host_probe.c - corral_probe(): the sandbox's probe (sandbox/probe.c) in
 * the caller-allocated, size-versioned struct of corral.h.
 */
#include <errno.h>
#include <string.h>

#include "abi.h"
#include "json.h"
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

static void key_bool(struct sbuf *b, const char *k, bool v)
{
	sb_json_key(b, k);
	sb_puts(b, v ? "true" : "false");
}

static void key_str(struct sbuf *b, const char *k, const char *v)
{
	sb_json_key(b, k);
	v = v ? v : "";
	sb_json_str(b, v, strlen(v));
}

/*
 * The probe as one JSON object, keys = field names, strings written as
 * the journal writes them (json.c: bytes that are not UTF-8 as \udcXX),
 * so that a bwrap path or a message with odd bytes is still valid JSON.
 */
char *corral_probe_json(const struct corral_probe *user)
{
	struct corral_probe p;
	if (!user || abi_in(&p, sizeof(p), user) < 0)
		return NULL;
	struct sbuf b = {0};
	sb_putc(&b, '{');
	key_bool(&b, "sandbox_ok", p.sandbox_ok);
	key_str(&b, "reason", p.reason);
	key_bool(&b, "bwrap_found", p.bwrap_found);
	key_str(&b, "bwrap_path", p.bwrap_found ? p.bwrap_path : "");
	key_str(&b, "bwrap_version", p.bwrap_version);
	key_bool(&b, "bwrap_setuid", p.bwrap_setuid);
	key_bool(&b, "bwrap_works", p.bwrap_works);
	key_str(&b, "bwrap_error", p.bwrap_error);
	key_str(&b, "trial_user", p.trial_user);
	key_bool(&b, "userns", p.userns);
	key_str(&b, "userns_error", p.userns_error);
	key_bool(&b, "seccomp", p.seccomp);
	key_bool(&b, "ptrace", p.ptrace);
	sb_json_key(&b, "yama_ptrace_scope");
	sb_long(&b, p.yama_ptrace_scope);
	key_bool(&b, "cgroup2", p.cgroup2);
	key_str(&b, "cgroup2_mount", p.cgroup2_mount);
	key_bool(&b, "is_root", p.is_root);
	sb_json_key(&b, "landlock_abi");
	sb_long(&b, p.landlock_abi);
	key_str(&b, "boundary", p.boundary);
	key_str(&b, "boundary_sandbox", p.boundary_sandbox);
	sb_putc(&b, '}');
	if (b.oom) {
		sb_free(&b);
		return NULL;
	}
	return b.p;
}
