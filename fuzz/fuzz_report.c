/*
 * fuzz_report.c - libFuzzer target for the report's journal reader and
 * every writer behind it (summary in three formats, tree, Perfetto, HTML):
 * whatever the bytes, corral_report_load_buffer() either refuses them with
 * a message or builds a model every writer can print, without a crash, a
 * leak or undefined behaviour (built with ASan + UBSan by `make fuzz`).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "corral.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct corral_report *r;
	char err[512];
	int e = corral_report_load_buffer((const char *)data, size, "fuzz", &r,
					  err, sizeof(err));
	if (e < 0) {
		/* a refusal must say why */
		if (!err[0])
			__builtin_trap();
		return 0;
	}
	FILE *f = fopen("/dev/null", "w");
	if (f) {
		corral_report_summary(r, f, CORRAL_REPORT_TEXT);
		corral_report_summary(r, f, CORRAL_REPORT_MD);
		corral_report_summary(r, f, CORRAL_REPORT_JSON);
		corral_report_tree(r, f);
		corral_report_perfetto(r, f);
		corral_report_html(r, f);
		fclose(f);
	}
	unsigned long line;
	for (size_t i = 0; corral_report_note(r, i, &line); i++)
		;
	corral_report_free(r);
	return 0;
}
