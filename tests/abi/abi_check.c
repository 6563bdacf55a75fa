/*
 * abi_check.c - one side of the ABI test (tests/integration/install_abi.sh).
 *
 * Built twice, against corral.h as it is ("old") and with
 * -DCORRAL_TEST_GROW ("new": the caller-allocated structs grew, as a later
 * version's would), and run against a library built each way. Prints what
 * it saw, one key=value per line:
 *
 *	abi_check run [KNOB]   run `sh -c 'exit 3'`; with KNOB (new only) set
 *	                       the grown field to KNOB first
 *
 * The config sits in memory followed by 0xab bytes and the result is
 * followed by a canary: a library that read or wrote past the caller's
 * size would be seen (a grown library refuses a config whose grown field
 * is not its default when the caller's size does not reach it).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corral.h>

#define PAD 128

int main(int argc, char **argv)
{
	static const char *const cmd[] = {"/bin/sh", "-c", "exit 3", NULL};
	if (argc < 2 || strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "usage: abi_check run [KNOB]\n");
		return 2;
	}
	union {
		struct corral_config cfg;
		unsigned char b[sizeof(struct corral_config) + PAD];
	} u;
	memset(&u, 0xab, sizeof(u));
	corral_config_init(&u.cfg); /* writes sizeof(cfg) bytes only */
	bool pad = true;
	for (size_t i = sizeof(u.cfg); i < sizeof(u.b); i++)
		pad = pad && u.b[i] == 0xab;
	u.cfg.argv = cmd;
	u.cfg.watch_parent = false;
	if (argc > 2) {
#ifdef CORRAL_TEST_GROW
		u.cfg.test_grow_knob = atoi(argv[2]);
#else
		fprintf(stderr, "abi_check: KNOB needs the grown header\n");
		return 2;
#endif
	}
	printf("header=%s\nsize=%zu\n", CORRAL_VERSION, sizeof(u.cfg));
	printf("library=%s\n", corral_version());
	printf("cfg_pad=%s\n", pad ? "ok" : "overwritten");

	struct corral *c;
	char err[256];
	int r = corral_new(&u.cfg, &c, err, sizeof(err));
	printf("new=%d\n", r);
	if (r < 0) {
		printf("error=%s\n", err);
		return 0;
	}
	r = corral_spawn(c);
	if (!r)
		r = corral_wait(c);
	printf("wait=%d\n", r);

	union {
		struct corral_result r;
		unsigned char b[sizeof(struct corral_result) + PAD];
	} res;
	memset(&res, 0xcd, sizeof(res));
	corral_result(c, &res.r);
	bool canary = true;
	for (size_t i = sizeof(res.r); i < sizeof(res.b); i++)
		canary = canary && res.b[i] == 0xcd;
	printf("exit=%d\n", res.r.exit_code);
	printf("survivors=%lu\n", res.r.survivors);
	printf("canary=%s\n", canary ? "ok" : "overwritten");
#ifdef CORRAL_TEST_GROW
	printf("grow_out=%lu\n", res.r.test_grow_out);
#endif
	printf("free=%d\n", corral_free(c));
	return 0;
}
