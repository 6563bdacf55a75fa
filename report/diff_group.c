#include "diff.h"
int dg_group(struct corral_diff *d)
{
	(void)d;
	return 0;
}
void dout_group_text(const struct corral_diff *d, FILE *f,
		     enum corral_report_format fmt)
{
}
void dout_group_json(const struct corral_diff *d, FILE *f)
{
}
int corral_diff_html(const struct corral_diff *d, FILE *f)
{
	return 0;
}
