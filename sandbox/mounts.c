/*
 * mounts.c - the user's shaping of the sandbox, checked before anything
 * runs: binds ("SRC" or "SRC:DST"), --dev-bind, --tmpfs, --hostname,
 * --uid/--gid and the environment options.
 *
 * The rules (docs/sandbox.md, "Options"): a source must exist and not be
 * "/"; a destination and a --tmpfs must be absolute, must not be "/" or
 * cover the sandbox's own /proc, /dev or /tmp (be one of them or an
 * ancestor), must not be inside /proc (host kernel state), must not hide
 * the workspace (be an ancestor of it; a --tmpfs not even the workspace
 * itself), and no destination may be given twice. Every refusal names the
 * option and the path, so that corral can exit 125 with it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox.h"

int sandbox_mount_split(const char *arg, struct sandbox_mount *m)
{
	memset(m, 0, sizeof(*m));
	if (!arg || !arg[0])
		return -EINVAL;
	/* The first ':' splits: a source containing ':' cannot be given
	 * with a destination (documented). */
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	if (n == 0 || n >= sizeof(m->src))
		return -EINVAL;
	memcpy(m->src, arg, n);
	m->src[n] = '\0';
	if (colon) {
		if (!colon[1] || strlen(colon + 1) >= sizeof(m->dst))
			return -EINVAL;
		strcpy(m->dst, colon + 1);
		m->has_dst = true;
	} else {
		strcpy(m->dst, m->src);
	}
	return 0;
}

int sandbox_path_normalize(const char *in, char *out, size_t outlen)
{
	size_t o = 0;
	if (in[0] != '/')
		return -EINVAL;
	const char *p = in;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		if (o + 1 + n + 1 > outlen)
			return -ENAMETOOLONG;
		out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
		p += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* path equal to dir or below it (both normalised, absolute). */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1)
		return true;
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

int sandbox_mount_resolve(const char *kind, const char *arg, char *src,
			  char *dst, char *err, size_t errlen)
{
	struct sandbox_mount m;
	struct stat st;
	if (sandbox_mount_split(arg, &m) < 0) {
		snprintf(err, errlen,
			 "sandbox: %s '%s': expected SRC or SRC:DST", kind,
			 arg ? arg : "");
		return -EINVAL;
	}
	if (stat(m.src, &st) < 0 || !realpath(m.src, src)) {
		int e = errno;
		snprintf(err, errlen, "sandbox: %s %s: %s", kind, m.src,
			 strerror(e));
		return -e;
	}
	/* A bind of / would cover the sandbox's own /dev, /proc and /tmp,
	 * or show the whole host somewhere else. */
	if (strcmp(src, "/") == 0) {
		snprintf(err, errlen,
			 "sandbox: %s /: refusing to expose the whole root; "
			 "name the directories you need",
			 kind);
		return -EINVAL;
	}
	if (!m.has_dst) {
		strcpy(dst, src);
		return 0;
	}
	int e = sandbox_path_normalize(m.dst, dst, PATH_MAX);
	if (e) {
		snprintf(err, errlen,
			 "sandbox: %s %s: the destination %s must be an "
			 "absolute path without '.' or '..'",
			 kind, arg, m.dst);
		return e;
	}
	return 0;
}

/*
 * A destination the sandbox's own structure forbids. tmpfs: also the
 * workspace itself (a tmpfs there would hide it; a bind there replaces it,
 * which `--ro-bind .` uses to make it read-only).
 */
static int check_dst(const char *kind, const char *arg, const char *dst,
		     const char *ws, bool tmpfs, char *err, size_t errlen)
{
	static const char *const own[] = {"/proc", "/dev", "/tmp"};
	if (strcmp(dst, "/") == 0) {
		snprintf(err, errlen,
			 "sandbox: %s %s: the destination / would cover the "
			 "whole sandbox",
			 kind, arg);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (under(own[i], dst)) {
			snprintf(err, errlen,
				 "sandbox: %s %s: the destination %s would "
				 "cover the sandbox's own %s",
				 kind, arg, dst, own[i]);
			return -EINVAL;
		}
	if (under(dst, "/proc")) {
		snprintf(err, errlen,
			 "sandbox: %s %s: nothing may be mounted inside the "
			 "sandbox's /proc",
			 kind, arg);
		return -EINVAL;
	}
	if (under(ws, dst) && (tmpfs || strcmp(ws, dst) != 0)) {
		snprintf(err, errlen,
			 "sandbox: %s %s: the destination %s would hide the "
			 "workspace %s",
			 kind, arg, dst, ws);
		return -EINVAL;
	}
	return 0;
}

struct seen {
	char (*v)[PATH_MAX];
	const char **arg;
	size_t n;
};

static int remember(struct seen *s, const char *kind, const char *arg,
		    const char *dst, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], dst) == 0) {
			snprintf(err, errlen,
				 "sandbox: %s %s: the destination %s is "
				 "already given (%s)",
				 kind, arg, dst, s->arg[i]);
			return -EINVAL;
		}
	strcpy(s->v[s->n], dst);
	s->arg[s->n++] = arg;
	return 0;
}

static size_t count(const char *const *v)
{
	size_t n = 0;
	for (; v && v[n]; n++)
		;
	return n;
}

static int check_binds(const char *kind, const char *const *b, const char *ws,
		       struct seen *s, char *err, size_t errlen)
{
	char src[PATH_MAX], dst[PATH_MAX];
	for (; b && *b; b++) {
		int e = sandbox_mount_resolve(kind, *b, src, dst, err, errlen);
		e = e ?: check_dst(kind, *b, dst, ws, false, err, errlen);
		e = e ?: remember(s, kind, *b, dst, err, errlen);
		if (e)
			return e;
	}
	return 0;
}

static int check_tmpfs(const char *const *t, const char *ws, struct seen *s,
		       char *err, size_t errlen)
{
	char dst[PATH_MAX];
	for (; t && *t; t++) {
		if (sandbox_path_normalize(*t, dst, sizeof(dst)) < 0) {
			snprintf(err, errlen,
				 "sandbox: --tmpfs '%s': must be an absolute "
				 "path without '.' or '..'",
				 *t);
			return -EINVAL;
		}
		int e = check_dst("--tmpfs", *t, dst, ws, true, err, errlen);
		e = e ?: remember(s, "--tmpfs", *t, dst, err, errlen);
		if (e)
			return e;
	}
	return 0;
}

/* RFC 1123 host name: labels of letters, digits and '-', dot-separated. */
static bool good_hostname(const char *h)
{
	size_t n = strlen(h), label = 0;
	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = h[i];
		if (c == '.') {
			if (label == 0 || h[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-'))
			return false;
		if (c == '-' && label == 0)
			return false;
		label++;
	}
	return label > 0 && h[n - 1] != '-';
}

/* An environment variable name: not empty, no '='. */
static bool good_name(const char *s, size_t n)
{
	return n > 0 && memchr(s, '=', n) == NULL;
}

static int check_env(const struct corral_sandbox_opts *so, char *err,
		     size_t errlen)
{
	for (const char *const *e = so->setenv; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || !good_name(*e, (size_t)(eq - *e))) {
			snprintf(err, errlen,
				 "sandbox: --setenv '%s': expected NAME=VALUE",
				 *e);
			return -EINVAL;
		}
	}
	for (const char *const *e = so->unsetenv; e && *e; e++)
		if (!good_name(*e, strlen(*e))) {
			snprintf(err, errlen,
				 "sandbox: --unsetenv '%s': expected a "
				 "variable name (no '=')",
				 *e);
			return -EINVAL;
		}
	return 0;
}

int sandbox_validate_opts(const struct corral_sandbox_config *sc,
			  const struct corral_sandbox_opts *so, const char *ws,
			  char *err, size_t errlen)
{
	size_t n = count(sc->ro_binds) + count(sc->binds);
	if (so)
		n += count(so->dev_binds) + count(so->tmpfs);
	struct seen s = {calloc(n ? n : 1, PATH_MAX),
			 calloc(n ? n : 1, sizeof(char *)), 0};
	int e = s.v && s.arg ? 0 : -ENOMEM;
	if (e)
		snprintf(err, errlen, "sandbox: out of memory");
	e = e ?: check_binds("--ro-bind", sc->ro_binds, ws, &s, err, errlen);
	e = e ?: check_binds("--bind", sc->binds, ws, &s, err, errlen);
	if (so) {
		e = e
			    ?: check_binds("--dev-bind", so->dev_binds, ws, &s,
					   err, errlen);
		e = e ?: check_tmpfs(so->tmpfs, ws, &s, err, errlen);
		if (!e && so->hostname && !good_hostname(so->hostname)) {
			snprintf(err, errlen,
				 "sandbox: --hostname '%s': expected a host "
				 "name (letters, digits, '-' and '.', at most "
				 "64 characters)",
				 so->hostname);
			e = -EINVAL;
		}
		if (!e && (so->uid == 0xffffffffu || so->gid == 0xffffffffu)) {
			snprintf(
				err, errlen,
				"sandbox: --uid/--gid 4294967295 is not an id");
			e = -EINVAL;
		}
		e = e ?: check_env(so, err, errlen);
		if (!e && (unsigned)so->git > CORRAL_SANDBOX_GIT_RW) {
			snprintf(err, errlen, "sandbox: unknown git mode %d",
				 (int)so->git);
			e = -EINVAL;
		}
	}
	free(s.v);
	free(s.arg);
	return e;
}
